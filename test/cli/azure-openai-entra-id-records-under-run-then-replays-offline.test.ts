import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, expect, test } from 'vitest';
import { startAzureStandIn } from '../support/azure-upstream.js';
import { runMain } from '../support/cli.js';
import { startStandInUpstream, type StandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// Unmodified code that authenticates with Entra ID as Azure's docs write it: DefaultAzureCredential
// (@azure/identity) and getBearerTokenProvider, the token fetched before the first call. Recorded
// on a machine with a managed identity (a loopback stand-in for App Service's identity endpoint),
// replayed under `modeltape run` with no identity at all: the proxy answers the token request.

const dir = tempDir({ inProject: true });
const RECORDED_TOKEN = 'fake-entra-access-token-from-the-managed-identity';

const APP = `import { AzureOpenAI } from 'openai';
import { DefaultAzureCredential, getBearerTokenProvider } from '@azure/identity';
const azureADTokenProvider = getBearerTokenProvider(new DefaultAzureCredential(), 'https://cognitiveservices.azure.com/.default');
const client = new AzureOpenAI({ azureADTokenProvider, apiVersion: '2024-10-21', deployment: 'gpt-4o-dev', maxRetries: 0 });
const answer = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Say hello' }] });
const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Count to three' }], stream: true });
let text = '';
for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
console.log(JSON.stringify({ hello: answer.choices[0].message.content, text }));
`;

let closing: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of closing.reverse()) await thing.close();
  closing = [];
});

/** App Service's identity endpoint, as MSAL asks it (api-version 2019-08-01, X-IDENTITY-HEADER). */
async function startManagedIdentity(): Promise<StandInUpstream> {
  const identity = await startStandInUpstream((request) => {
    const query = new URLSearchParams(request.url.split('?')[1] ?? '');
    if (request.headers['x-identity-header'] !== 'fake-identity-header' || query.get('api-version') !== '2019-08-01')
      return { status: 400, headers: { 'content-type': 'application/json' }, body: '{"error":"invalid_request"}' };
    return {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        access_token: RECORDED_TOKEN,
        expires_on: String(Math.floor(Date.now() / 1000) + 3600),
        resource: query.get('resource'),
        token_type: 'Bearer',
        client_id: 'fake-client-id',
      }),
    };
  });
  closing.push(identity);
  return identity;
}

// The same client, its credential built explicitly from the same variables EnvironmentCredential reads.
const CLIENT_SECRET_APP = APP.replace(
  'getBearerTokenProvider(new DefaultAzureCredential(),',
  'getBearerTokenProvider(new ClientSecretCredential(process.env.AZURE_TENANT_ID, process.env.AZURE_CLIENT_ID, process.env.AZURE_CLIENT_SECRET),',
).replace('DefaultAzureCredential, getBearerTokenProvider', 'ClientSecretCredential, getBearerTokenProvider');

const outputOf = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;

test('DefaultAzureCredential code records with the machine’s managed identity, then replays offline with the proxy’s stand-in, whatever identity the CI machine has', async () => {
  const identity = await startManagedIdentity();
  const resource = await startAzureStandIn();
  closing.push(resource);
  writeFileSync(`${dir}/app.mjs`, APP);
  const tape = `${dir}/entra.jsonl`;

  const recorded = await runMain(['run', '--tape', tape, '--mode', 'record', '--upstream', `azure=${resource.url}`, '--', process.execPath, `${dir}/app.mjs`], {
    env: { IDENTITY_ENDPOINT: `${identity.url}/msi/token`, IDENTITY_HEADER: 'fake-identity-header', AZURE_OPENAI_API_KEY: undefined },
  });
  expect(recorded.code, recorded.stderr).toBe(0);
  const live = outputOf(recorded.stdout);
  expect(live).toEqual({ hello: 'Hello from deployment gpt-4o-dev: Say hello', text: 'One, two, three.' });
  // The resource got the token the identity gave, as a bearer token, scoped to Cognitive Services.
  expect(resource.received.map((request) => request.headers.authorization)).toEqual([`Bearer ${RECORDED_TOKEN}`, `Bearer ${RECORDED_TOKEN}`]);
  expect(new URLSearchParams(identity.received[0]!.url.split('?')[1]).get('resource')).toBe('https://cognitiveservices.azure.com');
  expect(readFileSync(tape, 'utf8')).not.toContain(RECORDED_TOKEN);
  await identity.close();
  await resource.close();

  // A CI machine with its own identity settings, every one of which would leave loopback: a
  // developer's "dev" chain, a client secret for login.microsoftonline.com, App Service's and
  // Service Fabric's endpoints, IMDS, a workload identity's token file.
  const hostile = {
    AZURE_TOKEN_CREDENTIALS: 'dev',
    AZURE_TENANT_ID: '00000000-0000-0000-0000-000000000000',
    AZURE_CLIENT_ID: '11111111-1111-1111-1111-111111111111',
    AZURE_CLIENT_SECRET: 'fake-client-secret-that-must-not-be-used',
    IDENTITY_ENDPOINT: identity.url,
    IDENTITY_HEADER: 'fake-identity-header',
    IDENTITY_SERVER_THUMBPRINT: 'fake-thumbprint',
    MSI_ENDPOINT: 'http://169.254.169.254/metadata/identity/oauth2/token',
    AZURE_FEDERATED_TOKEN_FILE: `${dir}/no-such-token-file`,
    // Entra code has no key: set empty, so the run leaves it so (AzureOpenAI refuses a key beside a token provider).
    AZURE_OPENAI_API_KEY: '',
  };
  const replayed = await runMain(['run', '--tape', tape, '--', process.execPath, `${dir}/app.mjs`], { env: hostile });
  expect(replayed.code, replayed.stderr).toBe(0);
  expect(outputOf(replayed.stdout)).toEqual(live);
  expect(replayed.stderr).toContain('2 hits, 0 misses');
  expect(replayed.stderr).toContain('0 upstream connections');
  // Nothing left loopback: no provider reached, no other host off this machine tried.
  expect(replayed.stderr).toContain('no guarded process reached a provider');
  expect(replayed.stderr).not.toMatch(/connections to other hosts|169\.254|login\.microsoftonline/);
  expect(identity.received).toHaveLength(1);

  // Without AZURE_OPENAI_API_KEY set empty, the run's placeholder key meets the token provider,
  // and AzureOpenAI refuses to start: it says the two exclude each other.
  const unset = await runMain(['run', '--tape', tape, '--', process.execPath, `${dir}/app.mjs`], { env: { ...hostile, AZURE_OPENAI_API_KEY: undefined } });
  expect(unset.code).not.toBe(0);
  expect(unset.stderr).toContain('The `apiKey` and `azureADTokenProvider` arguments are mutually exclusive');

  // An explicit ClientSecretCredential asks Entra ID itself (https://login.microsoftonline.com),
  // which a replay never reaches: it fails, and the summary says what to build instead
  // (DefaultAzureCredential, as above: EnvironmentCredential with the same variables when recording).
  writeFileSync(`${dir}/client-secret.mjs`, CLIENT_SECRET_APP);
  const explicit = await runMain(['run', '--tape', tape, '--', process.execPath, `${dir}/client-secret.mjs`], { env: hostile });
  expect(explicit.code).not.toBe(0);
  expect(explicit.stderr).toContain('proxy → login.microsoftonline.com:443, refused by the proxy');
  expect(explicit.stderr).toContain('build the credential with DefaultAzureCredential');
  expect(explicit.stderr).not.toContain('fake-client-secret-that-must-not-be-used');
});
