import { existsSync, readFileSync } from 'node:fs';
import OpenAI, { AzureOpenAI } from 'openai';
import { expect, test } from 'vitest';
import { startProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { closeAfterEach } from '../support/close-after-each.js';
import { fakeAnthropicKey, fakeGoogleKey, fakeOpenAiKey } from '../support/fake-keys.js';
import { startAzureStandIn } from '../support/azure-upstream.js';
import { startStandInUpstream } from '../support/stand-in-upstream.js';
import { startVertexStandIn } from '../support/vertex-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// Real-looking, obviously fake credentials: one for every place a secret travels.
const FAKE = {
  openaiKey: fakeOpenAiKey(`${'FAKE'.repeat(8)}1111`),
  anthropicKey: fakeAnthropicKey(`${'FAKE'.repeat(7)}-2222`),
  azureKey: 'FAKEazureKEYFAKEazureKEY3333',
  googleKey: fakeGoogleKey(`${'FAKE'.repeat(8)}444`),
  cookie: 'session=FAKEcookieFAKE5555',
  organization: 'org-FAKEorganization6666',
  project: 'proj_FAKEproject7777',
  responseCookie: '__cf_bm=FAKEresponseCookie8888; path=/',
  anthropicOrganization: 'FAKE-anthropic-org-9999',
  accessToken: 'FAKEaccessTOKEN0000',
  // A Google OAuth access token's shape (Vertex AI's bearer token), built so no file holds one.
  googleAccessToken: ['ya29', `a0FAKE${'FAKE'.repeat(6)}_fake-1111`].join('.'),
  otherGoogleAccessToken: ['ya29', `c.c0FAKE${'FAKE'.repeat(6)}-2222`].join('.'),
};

const dir = tempDir();
const started = closeAfterEach();

test('credentials in headers, query parameters and response headers are forwarded but never written', async () => {
  const standIn = started(
    await startStandInUpstream(() => ({
      headers: {
        'set-cookie': FAKE.responseCookie,
        'openai-organization': FAKE.organization,
        'anthropic-organization-id': FAKE.anthropicOrganization,
        'x-request-id': 'req_1',
      },
      body: '{"ok":true}',
    })),
  );
  const tape = `${dir}/secrets.jsonl`;
  const proxy = started(await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: standIn.url, gemini: standIn.url } }));
  const headers = {
    'content-type': 'application/json',
    authorization: `Bearer ${FAKE.openaiKey}`,
    'x-api-key': FAKE.anthropicKey,
    'api-key': FAKE.azureKey,
    'x-goog-api-key': FAKE.googleKey,
    cookie: FAKE.cookie,
    'openai-organization': FAKE.organization,
    'openai-project': FAKE.project,
  };
  const first = await fetch(`${proxy.baseUrls.openai}/chat/completions?api_key=${FAKE.azureKey}&access_token=${FAKE.accessToken}&limit=1`, {
    method: 'POST',
    headers,
    body: '{"model":"gpt-4o","messages":[]}',
  });
  expect(first.status).toBe(200);
  const second = await fetch(`${proxy.url}/gemini/v1beta/models/gemini-2.5-flash:generateContent?key=${FAKE.googleKey}`, {
    method: 'POST',
    headers,
    body: '{"contents":[]}',
  });
  expect(second.status).toBe(200);
  expect(await proxy.close()).toMatchObject({ recorded: 2, refused: 0 });

  // Everything reached the upstream…
  expect(standIn.received[0]!.headers).toMatchObject({ authorization: `Bearer ${FAKE.openaiKey}`, 'x-api-key': FAKE.anthropicKey, 'api-key': FAKE.azureKey });
  expect(standIn.received[1]!.url).toContain(`key=${FAKE.googleKey}`);
  // …and none of it reached the disk.
  const text = readFileSync(tape, 'utf8');
  for (const [name, value] of Object.entries(FAKE)) expect(text, name).not.toContain(value.split(';')[0]!.split('=').pop()!);
  const { exchanges } = loadTape(tape);
  expect(exchanges[0]!.exchange.request.query).toEqual([['limit', '1']]);
  expect(exchanges[1]!.exchange.request.query).toEqual([]);
  expect(Object.keys(exchanges[0]!.exchange.response.headers).sort()).toEqual(['content-type', 'date', 'x-request-id']);
});

test('a key-shaped string in a body refuses the write, says where it was, and still answers the client', async () => {
  const standIn = started(await startStandInUpstream());
  const tape = `${dir}/body-secret.jsonl`;
  const logged: string[] = [];
  const proxy = started(
    await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: standIn.url }, log: (line) => logged.push(line) }),
  );
  const client = new OpenAI({ apiKey: 'fake-key', baseURL: proxy.baseUrls.openai, maxRetries: 0 });
  const completion = await client.chat.completions.create({
    model: 'gpt-4.1-nano',
    messages: [{ role: 'user', content: `my key is ${FAKE.openaiKey}, keep it safe` }],
  });
  expect(completion.object).toBe('chat.completion');
  const summary = await proxy.close();
  expect(summary).toMatchObject({ recorded: 0, refused: 1 });
  expect(summary.problems[0]).toContain('Refused to write POST /v1/chat/completions (openai)');
  expect(summary.problems[0]).toContain(`at .request.body.json.messages[0].content: [openai-key ${FAKE.openaiKey.length} chars]`);
  expect(logged.join('\n')).not.toContain(FAKE.openaiKey);
  // Its only recording was refused: no header-only tape is left behind.
  expect(existsSync(tape)).toBe(false);
});

test('an Azure api-key and an Entra ID bearer token reach the resource and never the tape', async () => {
  const standIn = started(await startAzureStandIn());
  const tape = `${dir}/azure-secrets.jsonl`;
  const proxy = started(await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { azure: standIn.url }, log: () => {} }));
  const common = { endpoint: proxy.baseUrls.azure, apiVersion: '2024-10-21', deployment: 'gpt-4o-dev', maxRetries: 0 };
  await new AzureOpenAI({ ...common, apiKey: FAKE.azureKey }).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'With a key' }] });
  await new AzureOpenAI({ ...common, azureADTokenProvider: async () => FAKE.accessToken }).chat.completions.create({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'With a token' }],
  });
  expect((await proxy.close()).recorded).toBe(2);
  expect(standIn.received.map((request) => [request.headers['api-key'], request.headers.authorization])).toEqual([
    [FAKE.azureKey, undefined],
    [undefined, `Bearer ${FAKE.accessToken}`],
  ]);
  const text = readFileSync(tape, 'utf8');
  expect(loadTape(tape).exchanges).toHaveLength(2);
  expect(text).not.toContain(FAKE.azureKey);
  expect(text).not.toContain(FAKE.accessToken);
});

test('a Vertex AI access token reaches Google and never the tape; one a body carries refuses the write', async () => {
  const standIn = started(await startVertexStandIn(FAKE.googleAccessToken));
  const tape = `${dir}/vertex-secrets.jsonl`;
  const logged: string[] = [];
  const proxy = started(
    await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { vertex: standIn.url }, log: (line) => logged.push(line) }),
  );
  const path = `${proxy.baseUrls.vertex}/v1/projects/fake-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent`;
  const ask = (text: string) =>
    fetch(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${FAKE.googleAccessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text }] }] }),
    });
  expect((await ask('Say hello')).status).toBe(200);
  expect((await ask(`my token is ${FAKE.otherGoogleAccessToken}`)).status).toBe(200);
  const summary = await proxy.close();
  expect(summary).toMatchObject({ recorded: 1, refused: 1 });
  expect(standIn.calls.map((call) => call.token)).toEqual([FAKE.googleAccessToken, FAKE.googleAccessToken]);
  expect(summary.problems[0]).toContain(`at .request.body.json.contents[0].parts[0].text: [google-oauth-token ${FAKE.otherGoogleAccessToken.length} chars]`);
  for (const token of [FAKE.googleAccessToken, FAKE.otherGoogleAccessToken]) {
    expect(readFileSync(tape, 'utf8')).not.toContain(token);
    expect(logged.join('\n')).not.toContain(token);
  }
});
