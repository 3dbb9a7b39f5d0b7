import { afterEach, describe, expect, test } from 'vitest';
import { interceptProviders, openTape, type TapeSession } from 'modeltape/replay';
import { offMachineStandIn } from '../support/off-machine-stand-in.js';
import { recordTape } from '../support/record-tape.js';
import { tempDir } from '../support/temp-dir.js';

// A GET recorded once: GET /v1/models (openai).
async function recordModelsList(tape: string): Promise<void> {
  await recordTape(
    tape,
    async ({ openai }) => {
      const response = await fetch(`${openai}/models`, { headers: { authorization: 'Bearer k' } });
      await response.arrayBuffer();
    },
    { reply: () => ({ body: '{"object":"list","data":[]}' }) },
  );
}

describe('session.fetch with a Request object for a GET', () => {
  // The global fetch below names api.openai.com: unanswered and unstopped, it would reach this loopback stand-in.
  const offMachine = offMachineStandIn();
  const dir = tempDir();
  let session: TapeSession | undefined;
  afterEach(async () => {
    await session?.close().catch(() => undefined);
    session = undefined;
  });

  test('replays it like the same GET given as (url, init)', async () => {
    const tape = `${dir}/models.jsonl`;
    await recordModelsList(tape);
    session = await openTape(tape, { config: false, repeat: 'last' });
    const viaInit = await session.fetch('https://api.openai.com/v1/models', { headers: { authorization: 'Bearer k' } });
    expect(viaInit.status).toBe(200);
    // Today: TypeError "Request with GET/HEAD method cannot have body" — the empty ArrayBuffer
    // read from the Request is handed on as a body.
    const viaRequest = await session.fetch(new Request('https://api.openai.com/v1/models', { headers: { authorization: 'Bearer k' } }));
    expect(viaRequest.status).toBe(200);
  });

  test('interceptProviders answers a GET made through the global fetch (msw hands session.fetch a Request)', async () => {
    const tape = `${dir}/models-intercepted.jsonl`;
    await recordModelsList(tape);
    session = await openTape(tape, { config: false });
    const interception = await interceptProviders(session);
    try {
      const response = await fetch('https://api.openai.com/v1/models', { headers: { authorization: 'Bearer k' } });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ object: 'list', data: [] });
    } finally {
      await interception.close();
    }
    expect(await offMachine.heard()).toEqual([]);
  });
});
