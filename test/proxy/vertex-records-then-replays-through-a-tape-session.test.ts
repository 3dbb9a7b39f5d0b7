import { readFileSync } from 'node:fs';
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
import { GoogleGenAI } from '@google/genai';
import { GoogleAuth } from 'google-auth-library';
import { expect, test } from 'vitest';
import { loadTape } from 'modeltape/recordings';
import { openTape, placeholderGoogleCredentials } from 'modeltape/replay';
import { reportTapes } from 'modeltape/testkit';
import { closeAfterEach } from '../support/close-after-each.js';
import { tempDir } from '../support/temp-dir.js';
import { startVertexStandIn, userGoogleCredentials } from '../support/vertex-upstream.js';

const dir = tempDir();
const started = closeAfterEach();
const ACCESS_TOKEN = ['ya29', `a0FAKE${'FAKE'.repeat(10)}_fake-0003`].join('.');
const SCOPES = 'https://www.googleapis.com/auth/cloud-platform';
const CLAUDE = 'claude-sonnet-4-5@20250929';

// What each client is given in a test: a base URL (or, for @google/genai, a fetch) and credentials.
function clients(options: { baseUrl: string; credentials: object; fetch?: typeof globalThis.fetch }) {
  const gemini = new GoogleGenAI({
    vertexai: true,
    project: 'fake-project',
    location: 'europe-west4',
    httpOptions: options.fetch === undefined ? { baseUrl: options.baseUrl } : { fetch: options.fetch },
    googleAuthOptions: { credentials: options.credentials },
  });
  const claude = new AnthropicVertex({
    projectId: 'fake-project',
    region: 'us-east5',
    baseURL: `${options.baseUrl}/v1`,
    googleAuth: new GoogleAuth({ credentials: options.credentials, scopes: SCOPES }),
    maxRetries: 0,
  });
  return { gemini, claude };
}

async function ask({ gemini, claude }: ReturnType<typeof clients>, prompt: string) {
  const answer = await gemini.models.generateContent({ model: 'gemini-2.5-flash', contents: prompt });
  const chunks: string[] = [];
  for await (const chunk of await gemini.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'Count to three' })) chunks.push(chunk.text ?? '');
  const message = await claude.messages.create({ model: CLAUDE, max_tokens: 64, messages: [{ role: 'user', content: prompt }] });
  return { gemini: answer.text, chunks, claude: message.content };
}

test('@google/genai and AnthropicVertex record through a tape session, then replay with placeholderGoogleCredentials and no Google account', async () => {
  const standIn = started(await startVertexStandIn(ACCESS_TOKEN));
  const tape = `${dir}/vertex-session.jsonl`;
  const recording = started(await openTape(tape, { mode: 'record', allowRecordInCi: true, config: false, upstreams: { vertex: standIn.url }, env: {} }));
  expect(recording.baseUrls.vertex).toBe(`${recording.proxy.url}/vertex`);
  const live = await ask(clients({ baseUrl: recording.baseUrls.vertex, credentials: userGoogleCredentials(standIn.url) }), 'Say hello');
  expect((await recording.close()).recorded).toBe(3);
  expect(standIn.calls.map((call) => [call.location, call.publisher, call.method, call.token === ACCESS_TOKEN])).toEqual([
    ['europe-west4', 'google', 'generateContent', true],
    ['europe-west4', 'google', 'streamGenerateContent', true],
    ['us-east5', 'anthropic', 'rawPredict', true],
  ]);
  expect(live).toEqual({
    gemini: 'Hello from gemini-2.5-flash in europe-west4: Say hello',
    chunks: ['One', ', two', ', three.'],
    claude: [{ type: 'text', text: `Hello from ${CLAUDE}: Say hello` }],
  });
  await standIn.close();
  const text = readFileSync(tape, 'utf8');
  for (const secret of [ACCESS_TOKEN, 'ya29.', new URL(standIn.url).host]) expect(text).not.toContain(secret);
  expect(loadTape(tape).exchanges.every(({ exchange }) => exchange.upstream === 'vertex')).toBe(true);

  // Replay, the clients given the session's base URL and the placeholder credentials, whose
  // token the session's proxy hands out offline.
  const session = started(await openTape(tape, { mode: 'replay', config: false, env: {} }));
  const credentials = placeholderGoogleCredentials(session.baseUrls.url);
  expect(credentials.token_url).toBe(`${session.proxy.url}/_modeltape/google-token`);
  expect(await ask(clients({ baseUrl: session.baseUrls.vertex, credentials }), 'Say hello')).toEqual(live);
  // @google/genai given session.fetch instead, building its location's own host: answered in process.
  const byFetchSession = started(await openTape(tape, { mode: 'replay', config: false, env: {} }));
  const byFetch = clients({
    baseUrl: byFetchSession.baseUrls.vertex,
    credentials: placeholderGoogleCredentials(byFetchSession.baseUrls.url),
    fetch: byFetchSession.fetch,
  });
  expect((await byFetch.gemini.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Say hello' })).text).toBe(live.gemini);
  expect(await byFetchSession.close()).toMatchObject({ hits: 1, misses: 0, escapes: [] });

  // A changed prompt misses, each client reading the miss in its own shape.
  const missed = await ask(clients({ baseUrl: session.baseUrls.vertex, credentials }), 'Say goodbye').then(
    () => 'answered',
    (error: Error) => error.message,
  );
  expect(missed).toContain(
    'Failed to replay POST /vertex/v1beta1/projects/fake-project/locations/europe-west4/publishers/google/models/gemini-2.5-flash:generateContent',
  );
  expect(missed).toContain('recorded \\"Say hello\\" sent \\"Say goodbye\\"');
  const claudeMissed = await clients({ baseUrl: session.baseUrls.vertex, credentials })
    .claude.messages.create({ model: CLAUDE, max_tokens: 64, messages: [{ role: 'user', content: 'Say goodbye' }] })
    .then(
      () => 'answered',
      (error: Error & { error?: { type?: string } }) => `${error.error?.type}: ${error.message}`,
    );
  expect(claudeMissed).toContain('error: 400');
  expect(claudeMissed).toContain('at .messages[0].content: recorded "Say hello" sent "Say goodbye"');
  const summary = await session.close();
  expect(summary).toMatchObject({ hits: 3, misses: 2, upstreamConnections: 0, escapes: [] });

  // The report reads Vertex's answers as Gemini's and Anthropic's: tokens, models from the path.
  const report = reportTapes([tape]);
  expect(report.coverage.endpoints.map((endpoint) => [endpoint.name, endpoint.count]).sort()).toEqual([
    ['anthropic-messages', 1],
    ['gemini-generate', 2],
  ]);
  expect(report.totals.tokens.total).toBe(15 + 8 + 21);
});
