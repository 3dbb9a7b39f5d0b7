import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { describe, expect, test } from 'vitest';
import { interceptProviders, openTape } from 'modeltape/replay';
import { offMachineStandIn } from '../support/off-machine-stand-in.js';
import { recordTape } from '../support/record-tape.js';
import { tempDir } from '../support/temp-dir.js';

describe('interceptProviders beside a suite that already uses msw', () => {
  // weather.test and api.openai.com: what msw did not answer would reach this loopback stand-in.
  const offMachine = offMachineStandIn();
  const dir = tempDir();

  test("given the suite's own server, its handlers still answer during and after the interception, and provider requests reach the session", async () => {
    const tape = `${dir}/beside-msw.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      await (
        await fetch(`${openai}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"gpt-4o","messages":[]}' })
      ).arrayBuffer();
    });
    const own = setupServer(http.get('https://weather.test/today', () => HttpResponse.json({ sky: 'clear' })));
    own.listen({ onUnhandledRequest: 'bypass' });
    try {
      const session = await openTape(tape, { config: false });
      const interception = await interceptProviders(session, { server: own });
      const during = await (await fetch('https://weather.test/today')).json();
      const provider = await fetch('https://api.openai.com/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"model":"gpt-4o","messages":[]}',
      });
      await interception.close();
      const after = await (await fetch('https://weather.test/today')).json();
      const summary = await session.close();
      expect(during).toEqual({ sky: 'clear' });
      expect(provider.status).toBe(200);
      expect(after).toEqual({ sky: 'clear' });
      expect(summary.hits).toBe(1);
    } finally {
      own.close();
    }
    expect(await offMachine.heard()).toEqual([]);
  });
});
