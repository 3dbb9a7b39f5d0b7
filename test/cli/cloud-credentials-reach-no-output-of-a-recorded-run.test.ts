import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { startAzureStandIn } from '../support/azure-upstream.js';
import { startBedrockUpstream } from '../support/bedrock-upstream.js';
import { closeAfterEach } from '../support/close-after-each.js';
import { runMain } from '../support/cli.js';
import { startVertexStandIn, userGoogleCredentials } from '../support/vertex-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// One app records Bedrock (SigV4 with a session token), Vertex AI (a Google OAuth access token from
// a token exchange, and the proxy's own token route asked in record mode), Azure OpenAI with an
// api-key and with an Entra ID bearer, under `modeltape run --mode record`; then every command
// that reads the tape or runs the app again (report, drift, mutate, inspect, verify, in every
// format) runs with the same credentials in its environment. None of them, nor a signature they
// made, reaches the tape, stdout, stderr or a page.

const dir = tempDir({ inProject: true });
const started = closeAfterEach();
// Built at runtime so no file holds a credential-shaped literal.
const random = (seed: string, length: number) =>
  createHash('sha256')
    .update(seed)
    .digest('base64')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, length);
const ACCESS_KEY_ID = [
  'AK',
  'IA',
  'FAKE',
  random('id', 12)
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, 'Q'),
].join('');
const SECRET_ACCESS_KEY = `${random('secret', 20)}${random('secret 2', 20)}`;
const SESSION_TOKEN = `${random('session', 30)}${random('session 2', 30)}`;
const GOOGLE_TOKEN = ['ya', '29.a0', random('google', 40)].join('');
const ENTRA_TOKEN = ['ey', 'J', random('header', 20), '.', 'ey', 'J', random('claims', 30), '.', random('signature', 40)].join('');
const AZURE_KEY = createHash('sha256').update('azure key').digest('hex').slice(0, 32);

const APP = `import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import { GoogleGenAI } from '@google/genai';
import { AzureOpenAI } from 'openai';
const prompt = process.env.PROMPT ?? 'Say hello';
const out = {};
const bedrock = new BedrockRuntimeClient({ maxAttempts: 1 });
const modelId = 'anthropic.claude-3-5-haiku-20241022-v1:0';
out.bedrock = (await bedrock.send(new ConverseCommand({ modelId, messages: [{ role: 'user', content: [{ text: prompt }] }] }))).output.message.content[0].text;
const stream = await bedrock.send(new ConverseStreamCommand({ modelId, messages: [{ role: 'user', content: [{ text: 'Count to three' }] }] }));
out.stream = '';
for await (const event of stream.stream) out.stream += event.contentBlockDelta?.delta?.text ?? '';
const ai = new GoogleGenAI({ vertexai: true, project: 'fake-project', location: 'us-central1' });
out.vertex = (await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: prompt })).text;
// The proxy's own token route, asked in record mode as a placeholder credentials file would ask it.
const exchange = await fetch(process.env.MODELTAPE_URL + '/_modeltape/google-token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=refresh_token&refresh_token=' + process.env.GOOGLE_TOKEN_FOR_EXCHANGE });
out.exchange = exchange.status;
const keyed = new AzureOpenAI({ apiVersion: '2024-10-21', deployment: 'gpt-4o-dev', maxRetries: 0 });
out.azureKey = (await keyed.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: prompt }] })).choices[0].message.content;
delete process.env.AZURE_OPENAI_API_KEY;
const entra = new AzureOpenAI({ azureADTokenProvider: async () => process.env.ENTRA_TOKEN, apiVersion: '2024-10-21', deployment: 'gpt-4o-entra', maxRetries: 0 });
out.azureEntra = (await entra.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: prompt + ' (entra)' }] })).choices[0].message.content;
console.log(JSON.stringify(out));
`;

test('modeltape run --mode record writes no AWS secret, session token or signature, no Google or Entra token and no Azure key, to the tape or to any report over it', async () => {
  const bedrock = started(await startBedrockUpstream({ accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET_ACCESS_KEY, sessionToken: SESSION_TOKEN }));
  const vertex = started(await startVertexStandIn(GOOGLE_TOKEN));
  const azure = started(await startAzureStandIn());
  const app = `${dir}/app.mjs`;
  writeFileSync(app, APP);
  const googleCredentials = `${dir}/user-credentials.json`;
  writeFileSync(googleCredentials, JSON.stringify(userGoogleCredentials(vertex.url)));
  const env = {
    AWS_ACCESS_KEY_ID: ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY,
    AWS_SESSION_TOKEN: SESSION_TOKEN,
    AWS_REGION: 'us-east-1',
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_SHARED_CREDENTIALS_FILE: `${dir}/no-such-credentials`,
    AWS_CONFIG_FILE: `${dir}/no-such-config`,
    GOOGLE_APPLICATION_CREDENTIALS: googleCredentials,
    GOOGLE_TOKEN_FOR_EXCHANGE: GOOGLE_TOKEN,
    AZURE_OPENAI_API_KEY: AZURE_KEY,
    ENTRA_TOKEN,
  };
  const tape = `${dir}/clouds.jsonl`;
  const upstreams = ['--upstream', `bedrock=${bedrock.url}`, '--upstream', `vertex=${vertex.url}`, '--upstream', `azure=${azure.url}`];
  const outputs: Record<string, string> = {};
  const recorded = await runMain(['run', '--tape', tape, '--mode', 'record', ...upstreams, '--', process.execPath, app], { env, cwd: dir });
  outputs['run --mode record'] = `${recorded.stdout}\n${recorded.stderr}`;
  expect(recorded.code, recorded.stderr).toBe(0);
  const live = JSON.parse(recorded.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
  expect(live.exchange).toBe(200);
  expect(Object.keys(live)).toEqual(['bedrock', 'stream', 'vertex', 'exchange', 'azureKey', 'azureEntra']);
  // Each credential reached its upstream: the signatures were made with them.
  expect(bedrock.requests.map((request) => request.rejectedWith)).toEqual([undefined, undefined]);
  const signatures = bedrock.requests.map((request) => /Signature=([0-9a-f]{64})/.exec(String(request.headers.authorization))![1]!);
  expect(vertex.calls.map((call) => call.token)).toEqual([GOOGLE_TOKEN]);
  expect(azure.received.map((request) => request.headers['api-key'] ?? request.headers.authorization)).toEqual([AZURE_KEY, `Bearer ${ENTRA_TOKEN}`]);
  outputs['tape'] = readFileSync(tape, 'utf8');
  expect(outputs['tape']).not.toContain('google-token');

  const cli = async (name: string, args: string[]) => {
    const result = await runMain(args, { env: { ...env, PROMPT: 'Say goodbye' }, cwd: dir });
    outputs[name] = `${result.stdout}\n${result.stderr}`;
  };
  await cli('run (replay, drifted)', ['run', '--tape', tape, '--', process.execPath, app]);
  await cli('drift --json --html', ['drift', '--tape', tape, '--json', '--html', `${dir}/drift.html`, '--', process.execPath, app]);
  await cli('report --json', ['report', tape, '--json']);
  await cli('report --html', ['report', tape, '--html', `${dir}/report.html`]);
  await cli('inspect', ['inspect', tape]);
  await cli('inspect --json', ['inspect', tape, '--json']);
  await cli('verify', ['verify', tape]);
  const mutateEnv = { ...env };
  const mutated = await runMain(['mutate', '--tape', tape, '--max', '4', '--json', '--html', `${dir}/mutate.html`, '--', process.execPath, app], {
    env: mutateEnv,
    cwd: dir,
  });
  outputs['mutate --json --html'] = `${mutated.stdout}\n${mutated.stderr}`;
  for (const page of ['drift.html', 'report.html', 'mutate.html']) if (existsSync(`${dir}/${page}`)) outputs[page] = readFileSync(`${dir}/${page}`, 'utf8');
  expect(Object.keys(outputs)).toHaveLength(13);

  const secrets: Record<string, string> = {
    'AWS access key id': ACCESS_KEY_ID,
    'AWS secret access key': SECRET_ACCESS_KEY,
    'AWS session token': SESSION_TOKEN,
    'Google access token': GOOGLE_TOKEN,
    'Entra token': ENTRA_TOKEN,
    'Azure api-key': AZURE_KEY,
    ...Object.fromEntries(signatures.map((signature, index) => [`SigV4 signature ${index}`, signature])),
  };
  const found: string[] = [];
  for (const [output, text] of Object.entries(outputs))
    for (const [name, secret] of Object.entries(secrets)) {
      for (let at = 0; at + 12 <= secret.length; at += 6) {
        const slice = secret.slice(at, at + 12);
        if (text.includes(slice) || text.includes(Buffer.from(slice).toString('base64').slice(0, 12))) {
          found.push(`${name} in ${output}`);
          break;
        }
      }
    }
  expect(found).toEqual([]);
}, 240_000);
