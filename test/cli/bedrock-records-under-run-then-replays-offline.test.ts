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

// Unmodified application code, as AWS's docs write it: the client takes its region, its
// credentials and (under modeltape run) its endpoint from the environment, and speaks HTTP/2.
const APP = `import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
const client = new BedrockRuntimeClient({ maxAttempts: 1 });
const modelId = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const out = {};
out.converse = (await client.send(new ConverseCommand({ modelId, messages: [{ role: 'user', content: [{ text: process.env.PROMPT ?? 'Say hello' }] }] }))).output;
const stream = await client.send(new ConverseStreamCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'Count to three' }] }] }));
out.text = '';
for await (const event of stream.stream) out.text += event.contentBlockDelta?.delta?.text ?? '';
console.log(JSON.stringify(out));
`;

const outputOf = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
const CREDENTIALS = {
  AWS_ACCESS_KEY_ID: ACCESS_KEY_ID,
  AWS_SECRET_ACCESS_KEY: SECRET,
  AWS_SESSION_TOKEN: SESSION_TOKEN,
  AWS_REGION: 'us-east-1',
  AWS_EC2_METADATA_DISABLED: 'true',
};

test('unmodified BedrockRuntimeClient code records under modeltape run, re-signed for the endpoint, and replays offline with no credentials', async () => {
  const standIn = started(await startBedrockUpstream({ accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET, sessionToken: SESSION_TOKEN }));
  const app = `${dir}/app.mjs`;
  writeFileSync(app, APP);
  const tape = `${dir}/bedrock.jsonl`;

  const recorded = await runMain(['run', '--tape', tape, '--mode', 'record', '--upstream', `bedrock=${standIn.url}`, '--', process.execPath, app], {
    env: CREDENTIALS,
  });
  expect(recorded.code, recorded.stderr).toBe(0);
  const live = outputOf(recorded.stdout);
  expect(standIn.requests.map((request) => [request.path, request.rejectedWith])).toEqual([
    ['/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse', undefined],
    ['/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse-stream', undefined],
  ]);
  expect(String(live.text).length).toBeGreaterThan(0);
  await standIn.close();

  const text = readFileSync(tape, 'utf8');
  for (const secret of [ACCESS_KEY_ID, SECRET, SESSION_TOKEN, 'Signature=', standIn.host]) expect(text).not.toContain(secret);
  expect(loadTape(tape).exchanges.map(({ exchange }) => [exchange.upstream, exchange.response.stream?.format ?? 'json'])).toEqual([
    ['bedrock', 'json'],
    ['bedrock', 'eventstream'],
  ]);

  // Replay: the endpoint is gone and no credentials are set; a profile that does not exist is
  // set, which would make the SDK's chain fail (or ask SSO) if the placeholders did not win.
  const replayed = await runMain(['run', '--tape', tape, '--', process.execPath, app], { env: { AWS_PROFILE: 'modeltape-no-such-profile' } });
  expect(replayed.code, replayed.stderr).toBe(0);
  expect(outputOf(replayed.stdout)).toEqual(live);
  expect(replayed.stderr).toContain('2 hits, 0 misses');
  expect(replayed.stderr).toContain('0 upstream connections');

  // A changed prompt misses, with the nearest recording and its difference.
  const missed = await runMain(['run', '--tape', tape, '--', process.execPath, app], { env: { PROMPT: 'Say goodbye' } });
  expect(missed.code).not.toBe(0);
  expect(missed.stderr).toContain('Failed to replay POST /bedrock/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse');
  expect(missed.stderr).toContain('at .messages[0].content[0].text: recorded "Say hello" sent "Say goodbye"');
  expect(`${missed.stdout}${missed.stderr}`).not.toContain(ACCESS_KEY_ID);
});
