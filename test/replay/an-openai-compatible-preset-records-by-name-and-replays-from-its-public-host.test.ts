import OpenAI from 'openai';
import { expect, test } from 'vitest';
import { loadTape } from 'modeltape/recordings';
import { openTape } from 'modeltape/replay';
import { closeAfterEach } from '../support/close-after-each.js';
import { startStandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

const dir = tempDir();
const started = closeAfterEach();

test('the groq preset records through $MODELTAPE_URL/groq/openai/v1, and a client aimed at api.groq.com replays it through session.fetch with no lookup', async () => {
  const answer = {
    id: 'chatcmpl-fake-groq',
    object: 'chat.completion',
    created: 1764892800,
    model: 'llama-3.3-70b-versatile',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from the stand-in.' }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: 9, completion_tokens: 5, total_tokens: 14 },
  };
  const standIn = started(await startStandInUpstream(() => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify(answer) })));
  const tape = `${dir}/groq.jsonl`;
  const recording = started(await openTape(tape, { mode: 'record', allowRecordInCi: true, config: false, upstreams: { groq: standIn.url }, env: {} }));
  const ask = (client: OpenAI) => client.chat.completions.create({ model: 'llama-3.3-70b-versatile', messages: [{ role: 'user', content: 'Say hello' }] });
  const live = await ask(new OpenAI({ baseURL: `${recording.proxy.url}/groq/openai/v1`, apiKey: 'fake-groq-key', maxRetries: 0 }));
  await recording.close();
  expect(live.choices[0]!.message.content).toBe('Hello from the stand-in.');
  expect(standIn.received.map((request) => request.url)).toEqual(['/openai/v1/chat/completions']);
  expect(loadTape(tape).exchanges.map(({ exchange }) => [exchange.upstream, exchange.request.path])).toEqual([['groq', '/openai/v1/chat/completions']]);
  await standIn.close();

  // Replay, as code written for Groq would build its client: the public host, the session's fetch.
  const session = started(await openTape(tape, { config: false, env: {} }));
  const replayed = await ask(new OpenAI({ baseURL: 'https://api.groq.com/openai/v1', apiKey: 'fake-groq-key', fetch: session.fetch, maxRetries: 0 }));
  expect(replayed).toEqual(live);
  expect(await session.close()).toMatchObject({ hits: 1, misses: 0, upstreamConnections: 0 });
});
