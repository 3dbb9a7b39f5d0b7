import { afterEach, describe, expect, test } from 'vitest';
import { openTape, type TapeSession } from 'modeltape/replay';
import { recordTape } from '../support/record-tape.js';
import { tempDir } from '../support/temp-dir.js';

describe('session.fetch(request, init)', () => {
  const dir = tempDir();
  let session: TapeSession | undefined;
  afterEach(async () => {
    await session?.close().catch(() => undefined);
    session = undefined;
  });

  test('lets init override the Request, as fetch does (a key header given in init is keyed)', async () => {
    const tape = `${dir}/beta.jsonl`;
    // Recorded with openai-beta (a key header) set.
    await recordTape(tape, async ({ openai }) => {
      await (
        await fetch(`${openai}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'openai-beta': 'assistants=v2' },
          body: '{"model":"gpt-4o","messages":[]}',
        })
      ).arrayBuffer();
    });
    session = await openTape(tape, { config: false });
    const request = new Request('https://api.openai.com/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"model":"gpt-4o","messages":[]}',
    });
    // fetch(request, init): init's headers replace the request's. A plain fetch would send openai-beta.
    const response = await session.fetch(request, { headers: { 'content-type': 'application/json', 'openai-beta': 'assistants=v2' } });
    expect(response.status).toBe(200);
  });

  test('an abort signal given in init aborts the request', async () => {
    const tape = `${dir}/abort.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      await (
        await fetch(`${openai}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"gpt-4o","messages":[]}' })
      ).arrayBuffer();
    });
    session = await openTape(tape, { config: false });
    const controller = new AbortController();
    controller.abort(new Error('cancelled by the caller'));
    const request = new Request('https://api.openai.com/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"model":"gpt-4o","messages":[]}',
    });
    await expect(session.fetch(request, { signal: controller.signal })).rejects.toThrow(/cancelled by the caller/);
  });
});
