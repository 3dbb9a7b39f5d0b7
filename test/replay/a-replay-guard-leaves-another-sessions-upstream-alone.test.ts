import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { openTape } from 'modeltape/replay';
import { startStandInUpstream } from '../support/stand-in-upstream.js';
import { recordTape } from '../support/record-tape.js';
import { tempDir } from '../support/temp-dir.js';

const ask = (client: OpenAI, content: string) => client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }] });

describe('the replay guard and a recording session in the same process', () => {
  const dir = tempDir();

  test("a replay session's guard does not stop the upstream connections of a session that records", async () => {
    const provider = await startStandInUpstream();
    const replayTape = `${dir}/replay.jsonl`;
    await recordTape(replayTape, async ({ openai }) => {
      await ask(new OpenAI({ apiKey: 'k', baseURL: openai, maxRetries: 0 }), 'recorded');
    });
    // Session A replays (guard on); session B records a new tape against the same provider.
    const replaying = await openTape(replayTape, { config: false, upstreams: { openai: provider.url } });
    const recording = await openTape(`${dir}/record.jsonl`, { mode: 'record', allowRecordInCi: true, config: false, upstreams: { openai: provider.url } });
    // Today: 502 modeltape_upstream_error — A's guard destroyed B's proxy's own socket.
    const answer = await ask(new OpenAI({ apiKey: 'k', fetch: recording.fetch, maxRetries: 0 }), 'new question').then(
      (completion) => completion.choices[0]!.message.content,
      (error: Error) => error.message,
    );
    const recorded = (await recording.close()).recorded;
    const replayClosed = await replaying.close().then(
      () => 'ok',
      (error: Error) => error.message,
    );
    await provider.close();
    expect(answer).toContain('Galaxy Day');
    expect(recorded).toBe(1);
    // Today: EscapeError — nothing of A's escaped.
    expect(replayClosed).toBe('ok');
  });

  test('a replay session that was never closed does not stop later recording sessions', async () => {
    const provider = await startStandInUpstream();
    const replayTape = `${dir}/forgotten.jsonl`;
    await recordTape(replayTape, async ({ openai }) => {
      await ask(new OpenAI({ apiKey: 'k', baseURL: openai, maxRetries: 0 }), 'recorded');
    });
    // A test that threw before close(): its guard stays subscribed for the rest of the worker.
    const forgotten = await openTape(replayTape, { config: false, upstreams: { openai: provider.url } });
    const recording = await openTape(`${dir}/later.jsonl`, { mode: 'record', allowRecordInCi: true, config: false, upstreams: { openai: provider.url } });
    try {
      const response = await recording.fetch(`${provider.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"model":"gpt-4o","messages":[]}',
      });
      expect(response.status).toBe(200);
    } finally {
      await recording.close();
      await forgotten.close().catch(() => undefined);
      await provider.close();
    }
  });
});
