import { readFileSync, writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { loadTape } from 'modeltape/recordings';
import { startBedrockUpstream } from '../support/bedrock-upstream.js';
import { closeAfterEach } from '../support/close-after-each.js';
import { runMain } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

const dir = tempDir({ inProject: true });
const started = closeAfterEach();
// Built at runtime so no file holds an access-key-shaped literal.
const ACCESS_KEY_ID = ['AKIA', 'FAKE'.repeat(4)].join('');
const SECRET = `fake-secret-${'S'.repeat(28)}`;
const SESSION_TOKEN = `fake-session-token-${'T'.repeat(40)}`;

// Unmodified application code, as Anthropic's docs write it: the client takes its region and
// credentials from the environment, and (under modeltape run) its base URL from
// ANTHROPIC_BEDROCK_BASE_URL. It calls InvokeModel with an Anthropic Messages body, signs with
// its own SigV4 over fetch, and turns the streamed event stream back into Anthropic's events.
const APP = `import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
const client = new AnthropicBedrock({ maxRetries: 0 });
const model = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const out = {};
const message = await client.messages.create({ model, max_tokens: 64, messages: [{ role: 'user', content: process.env.PROMPT ?? 'Say hello' }] });
out.message = message.content;
const stream = client.messages.stream({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Count to three' }] });
out.text = '';
for await (const event of stream) if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') out.text += event.delta.text;
console.log(JSON.stringify(out));
`;

const outputOf = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
// No credential lookup may leave the machine: no instance role, no shared files.
const NO_LOOKUPS = {
  AWS_EC2_METADATA_DISABLED: 'true',
  AWS_SHARED_CREDENTIALS_FILE: `${dir}/no-such-credentials`,
  AWS_CONFIG_FILE: `${dir}/no-such-config`,
};
const CREDENTIALS = {
  ...NO_LOOKUPS,
  AWS_ACCESS_KEY_ID: ACCESS_KEY_ID,
  AWS_SECRET_ACCESS_KEY: SECRET,
  AWS_SESSION_TOKEN: SESSION_TOKEN,
  AWS_REGION: 'us-east-1',
};

test('unmodified AnthropicBedrock code records InvokeModel and its stream under modeltape run, re-signed, and replays offline with no credentials', async () => {
  const standIn = started(await startBedrockUpstream({ accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET, sessionToken: SESSION_TOKEN }));
  const app = `${dir}/app.mjs`;
  writeFileSync(app, APP);
  const tape = `${dir}/bedrock.jsonl`;

  const recorded = await runMain(['run', '--tape', tape, '--mode', 'record', '--upstream', `bedrock=${standIn.url}`, '--', process.execPath, app], {
    env: CREDENTIALS,
  });
  expect(recorded.code, recorded.stderr).toBe(0);
  const live = outputOf(recorded.stdout);
  // The client leaves the model id's `:` unencoded (the AWS SDK sends %3A): see docs/bedrock.md.
  expect(standIn.requests.map((request) => [request.path, request.rejectedWith, JSON.parse(request.body).anthropic_version])).toEqual([
    ['/model/anthropic.claude-3-5-haiku-20241022-v1:0/invoke', undefined, expect.any(String)],
    ['/model/anthropic.claude-3-5-haiku-20241022-v1:0/invoke-with-response-stream', undefined, expect.any(String)],
  ]);
  expect(live.message).toEqual([{ type: 'text', text: '42' }]);
  expect(String(live.text).length).toBeGreaterThan(0);
  await standIn.close();

  const text = readFileSync(tape, 'utf8');
  for (const secret of [ACCESS_KEY_ID, SECRET, SESSION_TOKEN, 'Signature=', standIn.host]) expect(text).not.toContain(secret);
  expect(loadTape(tape).exchanges.map(({ exchange }) => [exchange.upstream, exchange.request.path, exchange.response.stream?.format ?? 'json'])).toEqual([
    ['bedrock', '/model/anthropic.claude-3-5-haiku-20241022-v1:0/invoke', 'json'],
    ['bedrock', '/model/anthropic.claude-3-5-haiku-20241022-v1:0/invoke-with-response-stream', 'eventstream'],
  ]);

  // Replay: the endpoint is gone, no credentials are set, and a profile that does not exist is.
  const replayed = await runMain(['run', '--tape', tape, '--', process.execPath, app], { env: { ...NO_LOOKUPS, AWS_PROFILE: 'modeltape-no-such-profile' } });
  expect(replayed.code, replayed.stderr).toBe(0);
  expect(outputOf(replayed.stdout)).toEqual(live);
  expect(replayed.stderr).toContain('2 hits, 0 misses');
  expect(replayed.stderr).toContain('0 upstream connections');

  // A changed prompt misses, with the nearest recording and its difference.
  const missed = await runMain(['run', '--tape', tape, '--', process.execPath, app], { env: { ...NO_LOOKUPS, PROMPT: 'Say goodbye' } });
  expect(missed.code).not.toBe(0);
  expect(missed.stderr).toContain('Failed to replay POST /bedrock/model/anthropic.claude-3-5-haiku-20241022-v1:0/invoke');
  expect(missed.stderr).toContain('at .messages[0].content: recorded "Say hello" sent "Say goodbye"');
  expect(`${missed.stdout}${missed.stderr}`).not.toContain(ACCESS_KEY_ID);
});
