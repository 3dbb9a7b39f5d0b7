import OpenAI from 'openai';
import { expect, test } from 'vitest';
import { startProxy } from 'modeltape/proxy';
import { recordTape } from '../support/record-tape.js';
import { closeAfterEach } from '../support/close-after-each.js';
import { startStandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

const dir = tempDir();
const started = closeAfterEach();

test('refuses to open an upstream socket in replay mode, for hits and misses alike, even with a live upstream configured', async () => {
  const tape = `${dir}/replay.jsonl`;
  await recordTape(tape, async ({ openai }) => {
    await new OpenAI({ apiKey: 'fake-key', baseURL: openai, maxRetries: 0 }).chat.completions.create({
      model: 'gpt-4.1-nano',
      messages: [{ role: 'user', content: 'hi' }],
    });
  });
  // A live upstream is right there; replay must still never touch it.
  const standIn = started(await startStandInUpstream());
  const proxy = started(await startProxy({ tape, mode: 'replay', upstreams: { openai: standIn.url } }));
  const client = new OpenAI({ apiKey: 'fake-key', baseURL: proxy.baseUrls.openai, maxRetries: 0 });
  await client.chat.completions.create({ model: 'gpt-4.1-nano', messages: [{ role: 'user', content: 'hi' }] });
  await expect(client.chat.completions.create({ model: 'gpt-4.1-nano', messages: [{ role: 'user', content: 'not recorded' }] })).rejects.toThrow(
    /no recorded exchange matches/,
  );
  await expect(client.models.list()).rejects.toThrow(/nothing was recorded for GET \/v1\/models \(openai\)/);
  const summary = await proxy.close();
  expect(summary).toMatchObject({ hits: 1, misses: 2, upstreamConnections: 0 });
  expect(standIn.connections()).toBe(0);
  expect(standIn.received).toHaveLength(0);
});
