import { readFileSync, writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { loadTape } from 'modeltape/recordings';
import { closeAfterEach } from '../support/close-after-each.js';
import { runMain } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';
import { VERTEX_RESOURCE_EXHAUSTED, startVertexStandIn, userGoogleCredentials } from '../support/vertex-upstream.js';

const dir = tempDir({ inProject: true });
const started = closeAfterEach();
const ACCESS_TOKEN = ['ya29', `a0FAKE${'FAKE'.repeat(10)}_fake-0001`].join('.');
const MODEL = 'claude-sonnet-4-5@20250929';

// Unmodified application code, as Anthropic's docs write it: AnthropicVertex with its project
// and region, its Google credentials (Application Default Credentials) and, under modeltape run,
// its base URL (ANTHROPIC_VERTEX_BASE_URL) from the environment. It moves the model into the
// path (`…/models/{model}:rawPredict`, `:streamRawPredict`) and the API version into the body.
const APP = `import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
const client = new AnthropicVertex({ projectId: 'fake-project', region: 'us-east5', maxRetries: 0 });
const model = '${MODEL}';
const out = {};
const message = await client.messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: process.env.PROMPT ?? 'Say hello' }] });
out.message = message.content;
out.usage = message.usage;
const stream = client.messages.stream({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Count to three' }] });
out.text = '';
for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') out.text += event.delta.text;
out.tokens = (await client.messages.countTokens({ model, messages: [{ role: 'user', content: 'Count me' }] })).input_tokens;
try {
  await client.messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Busy: one more' }] });
  out.busy = 'answered';
} catch (error) {
  out.busy = { status: error.status, error: error.error };
}
console.log(JSON.stringify(out));
`;

const outputOf = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, any>;

test('unmodified AnthropicVertex code records rawPredict, its stream and a token count under modeltape run, and replays offline with no Google credentials', async () => {
  const standIn = started(await startVertexStandIn(ACCESS_TOKEN));
  const app = `${dir}/app.mjs`;
  writeFileSync(app, APP);
  const credentials = `${dir}/user-credentials.json`;
  writeFileSync(credentials, JSON.stringify(userGoogleCredentials(standIn.url)));
  const tape = `${dir}/vertex-claude.jsonl`;

  const recorded = await runMain(['run', '--tape', tape, '--mode', 'record', '--upstream', `vertex=${standIn.url}`, '--', process.execPath, app], {
    env: { GOOGLE_APPLICATION_CREDENTIALS: credentials },
  });
  expect(recorded.code, recorded.stderr).toBe(0);
  const live = outputOf(recorded.stdout);
  const base = `/v1/projects/fake-project/locations/us-east5/publishers/anthropic/models`;
  expect(standIn.received.filter((request) => request.url !== '/token').map((request) => request.url)).toEqual([
    `${base}/${MODEL}:rawPredict`,
    `${base}/${MODEL}:streamRawPredict`,
    `${base}/count-tokens:rawPredict`,
    `${base}/${MODEL}:rawPredict`,
  ]);
  expect(standIn.calls.map((call) => call.token)).toEqual(Array(4).fill(ACCESS_TOKEN));
  // The SDK's Anthropic version goes in the body, the model in the path.
  const firstBody = JSON.parse(standIn.received.find((request) => request.url.endsWith(':rawPredict'))!.body) as Record<string, unknown>;
  expect(firstBody).toMatchObject({ anthropic_version: expect.any(String), max_tokens: 64 });
  expect(firstBody).not.toHaveProperty('model');
  expect(live.message).toEqual([{ type: 'text', text: `Hello from ${MODEL}: Say hello` }]);
  expect(live.text).toBe('Hello there!');
  expect(live.tokens).toBe(14);
  expect(live.busy).toEqual({ status: 429, error: VERTEX_RESOURCE_EXHAUSTED });
  await standIn.close();

  const text = readFileSync(tape, 'utf8');
  for (const secret of [ACCESS_TOKEN, 'ya29.', 'fake-refresh-token', new URL(standIn.url).host]) expect(text).not.toContain(secret);
  expect(loadTape(tape).exchanges.map(({ exchange }) => [exchange.upstream, exchange.request.path, exchange.response.status])).toEqual([
    ['vertex', `${base}/${MODEL}:rawPredict`, 200],
    ['vertex', `${base}/${MODEL}:streamRawPredict`, 200],
    ['vertex', `${base}/count-tokens:rawPredict`, 200],
    ['vertex', `${base}/${MODEL}:rawPredict`, 429],
  ]);

  // Replay: nothing to reach, no Google credentials of the user's at all.
  const replayed = await runMain(['run', '--tape', tape, '--', process.execPath, app]);
  expect(replayed.code, replayed.stderr).toBe(0);
  expect(outputOf(replayed.stdout)).toEqual(live);
  expect(replayed.stderr).toContain('4 hits, 0 misses');
  expect(replayed.stderr).toContain('0 upstream connections');

  // A changed prompt misses with its diff, answered in Anthropic's error shape (what the SDK reads).
  const missed = await runMain(['run', '--tape', tape, '--', process.execPath, app], { env: { PROMPT: 'Say goodbye' } });
  expect(missed.code).not.toBe(0);
  expect(missed.stderr).toContain(`Failed to replay POST /vertex${base}/${MODEL}:rawPredict`);
  expect(missed.stderr).toContain('at .messages[0].content: recorded "Say hello" sent "Say goodbye"');
  expect(missed.stderr).toContain('modeltape_replay_miss');
  expect(missed.stderr).not.toContain('MODELTAPE_REPLAY_MISS');
});
