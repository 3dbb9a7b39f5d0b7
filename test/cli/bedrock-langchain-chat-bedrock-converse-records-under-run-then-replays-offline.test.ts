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

// Unmodified application code, as LangChain's docs write it: ChatBedrockConverse builds the AWS
// SDK's BedrockRuntimeClient (which, under modeltape run, takes its endpoint from
// AWS_ENDPOINT_URL_BEDROCK_RUNTIME), with the credentials of the SDK's default chain and the
// region of AWS_DEFAULT_REGION (the only region variable it reads). invoke calls Converse,
// stream ConverseStream.
const APP = `import { ChatBedrockConverse } from '@langchain/aws';
const model = new ChatBedrockConverse({ model: 'anthropic.claude-3-5-haiku-20241022-v1:0', maxRetries: 0 });
const out = {};
out.answer = (await model.invoke(process.env.PROMPT ?? 'Say hello')).content;
out.text = '';
for await (const chunk of await model.stream('Count to three')) out.text += typeof chunk.content === 'string' ? chunk.content : '';
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
  AWS_DEFAULT_REGION: 'us-east-1',
};

test('unmodified ChatBedrockConverse code records Converse and ConverseStream under modeltape run, re-signed, and replays offline with no credentials or region', async () => {
  const standIn = started(await startBedrockUpstream({ accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET, sessionToken: SESSION_TOKEN }));
  const app = `${dir}/app.mjs`;
  writeFileSync(app, APP);
  const tape = `${dir}/bedrock.jsonl`;

  const recorded = await runMain(['run', '--tape', tape, '--mode', 'record', '--upstream', `bedrock=${standIn.url}`, '--', process.execPath, app], {
    env: CREDENTIALS,
  });
  expect(recorded.code, recorded.stderr).toBe(0);
  const live = outputOf(recorded.stdout);
  // The AWS SDK's encoding of the model id, as BedrockRuntimeClient's own: the tapes key alike.
  expect(standIn.requests.map((request) => [request.path, request.rejectedWith])).toEqual([
    ['/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse', undefined],
    ['/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse-stream', undefined],
  ]);
  expect(String(live.answer).length).toBeGreaterThan(0);
  expect(String(live.text).length).toBeGreaterThan(0);
  await standIn.close();

  const text = readFileSync(tape, 'utf8');
  for (const secret of [ACCESS_KEY_ID, SECRET, SESSION_TOKEN, 'Signature=', standIn.host]) expect(text).not.toContain(secret);
  expect(loadTape(tape).exchanges.map(({ exchange }) => [exchange.upstream, exchange.response.stream?.format ?? 'json'])).toEqual([
    ['bedrock', 'json'],
    ['bedrock', 'eventstream'],
  ]);

  // Replay: the endpoint is gone, and neither credentials nor a region are set (ChatBedrockConverse
  // refuses to start without AWS_DEFAULT_REGION: modeltape run sets it with the placeholders).
  const replayed = await runMain(['run', '--tape', tape, '--', process.execPath, app], { env: { ...NO_LOOKUPS, AWS_PROFILE: 'modeltape-no-such-profile' } });
  expect(replayed.code, replayed.stderr).toBe(0);
  expect(outputOf(replayed.stdout)).toEqual(live);
  expect(replayed.stderr).toContain('2 hits, 0 misses');
  expect(replayed.stderr).toContain('0 upstream connections');

  // A changed prompt misses, with the nearest recording and its difference.
  const missed = await runMain(['run', '--tape', tape, '--', process.execPath, app], { env: { ...NO_LOOKUPS, PROMPT: 'Say goodbye' } });
  expect(missed.code).not.toBe(0);
  expect(missed.stderr).toContain('Failed to replay POST /bedrock/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse');
  expect(missed.stderr).toContain('at .messages[0].content[0].text: recorded "Say hello" sent "Say goodbye"');
  expect(`${missed.stdout}${missed.stderr}`).not.toContain(ACCESS_KEY_ID);
});
