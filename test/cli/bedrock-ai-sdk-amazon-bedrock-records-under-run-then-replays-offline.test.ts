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

// Unmodified application code, as the AI SDK's docs write it: both providers of
// @ai-sdk/amazon-bedrock take their endpoint from AWS_ENDPOINT_URL_BEDROCK_RUNTIME (set by
// modeltape run), their region from AWS_REGION and their credentials from AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY only (no profile, no chain), and sign with aws4fetch over fetch. `bedrock`
// calls Converse and ConverseStream; `bedrockAnthropic` InvokeModel with an Anthropic Messages
// body and InvokeModelWithResponseStream.
const APP = `import { bedrock } from '@ai-sdk/amazon-bedrock';
import { bedrockAnthropic } from '@ai-sdk/amazon-bedrock/anthropic';
import { generateText, streamText } from 'ai';
const modelId = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const out = {};
for (const [name, model] of [['converse', bedrock(modelId)], ['invoke', bedrockAnthropic(modelId)]]) {
  out[name] = (await generateText({ model, prompt: process.env.PROMPT ?? 'Say hello', maxRetries: 0 })).text;
  const result = streamText({ model, prompt: 'Count to three', maxRetries: 0, onError: ({ error }) => { throw error; } });
  out[name + 'Streamed'] = '';
  for await (const delta of result.textStream) out[name + 'Streamed'] += delta;
}
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
const MODEL_PATH = '/model/anthropic.claude-3-5-haiku-20241022-v1%3A0';

test('unmodified @ai-sdk/amazon-bedrock code records Converse and InvokeModel, streamed and not, under modeltape run, re-signed, and replays offline with no credentials', async () => {
  const standIn = started(await startBedrockUpstream({ accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET, sessionToken: SESSION_TOKEN }));
  const app = `${dir}/app.mjs`;
  writeFileSync(app, APP);
  const tape = `${dir}/bedrock.jsonl`;

  const recorded = await runMain(['run', '--tape', tape, '--mode', 'record', '--upstream', `bedrock=${standIn.url}`, '--', process.execPath, app], {
    env: CREDENTIALS,
  });
  expect(recorded.code, recorded.stderr).toBe(0);
  const live = outputOf(recorded.stdout);
  // encodeURIComponent, as the AWS SDK: these key alike with BedrockRuntimeClient's requests.
  expect(standIn.requests.map((request) => [request.path, request.rejectedWith])).toEqual([
    [`${MODEL_PATH}/converse`, undefined],
    [`${MODEL_PATH}/converse-stream`, undefined],
    [`${MODEL_PATH}/invoke`, undefined],
    [`${MODEL_PATH}/invoke-with-response-stream`, undefined],
  ]);
  expect(JSON.parse(standIn.requests[2]!.body)).toMatchObject({ anthropic_version: 'bedrock-2023-05-31' });
  expect(live.invoke).toBe('42');
  for (const name of ['converse', 'converseStreamed', 'invokeStreamed']) expect(String(live[name]).length, name).toBeGreaterThan(0);
  await standIn.close();

  const text = readFileSync(tape, 'utf8');
  for (const secret of [ACCESS_KEY_ID, SECRET, SESSION_TOKEN, 'Signature=', standIn.host]) expect(text).not.toContain(secret);
  expect(loadTape(tape).exchanges.map(({ exchange }) => exchange.response.stream?.format ?? 'json')).toEqual(['json', 'eventstream', 'json', 'eventstream']);

  // Replay: the endpoint is gone and no credentials are set (the provider throws without
  // AWS_ACCESS_KEY_ID and AWS_REGION: modeltape run sets placeholders).
  const replayed = await runMain(['run', '--tape', tape, '--', process.execPath, app], { env: NO_LOOKUPS });
  expect(replayed.code, replayed.stderr).toBe(0);
  expect(outputOf(replayed.stdout)).toEqual(live);
  expect(replayed.stderr).toContain('4 hits, 0 misses');
  expect(replayed.stderr).toContain('0 upstream connections');

  // A changed prompt misses, with the nearest recording and its difference.
  const missed = await runMain(['run', '--tape', tape, '--', process.execPath, app], { env: { ...NO_LOOKUPS, PROMPT: 'Say goodbye' } });
  expect(missed.code).not.toBe(0);
  expect(missed.stderr).toContain(`Failed to replay POST /bedrock${MODEL_PATH}/converse`);
  expect(missed.stderr).toContain('at .messages[0].content[0].text: recorded "Say hello" sent "Say goodbye"');
  expect(`${missed.stdout}${missed.stderr}`).not.toContain(ACCESS_KEY_ID);
});
