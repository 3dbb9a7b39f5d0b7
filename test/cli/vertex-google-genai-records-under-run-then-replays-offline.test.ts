import { readFileSync, writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { loadTape } from 'modeltape/recordings';
import { closeAfterEach } from '../support/close-after-each.js';
import { runMain } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';
import { VERTEX_RESOURCE_EXHAUSTED, startVertexStandIn, userGoogleCredentials } from '../support/vertex-upstream.js';

const dir = tempDir({ inProject: true });
const started = closeAfterEach();
// A Google OAuth access token's shape, built at runtime so no file holds one.
const ACCESS_TOKEN = ['ya29', `a0FAKE${'FAKE'.repeat(10)}_fake-0000`].join('.');

// Unmodified application code, as Google's docs write it: @google/genai on Vertex AI, its
// project and location given, its credentials (Application Default Credentials) and, under
// modeltape run, its endpoint (GOOGLE_VERTEX_BASE_URL) from the environment.
const APP = `import { GoogleGenAI } from '@google/genai';
const ai = new GoogleGenAI({ vertexai: true, project: process.env.PROJECT ?? 'fake-project', location: 'us-central1' });
const model = 'gemini-2.5-flash';
const out = {};
const answer = await ai.models.generateContent({ model, contents: process.env.PROMPT ?? 'Say hello' });
out.text = answer.text;
out.usage = answer.usageMetadata;
out.responseId = answer.responseId;
out.chunks = [];
for await (const chunk of await ai.models.generateContentStream({ model, contents: 'Count to three' })) out.chunks.push(chunk.text);
out.tokens = (await ai.models.countTokens({ model, contents: 'Count me' })).totalTokens;
try {
  await ai.models.generateContent({ model, contents: 'Busy: one more' });
  out.busy = 'answered';
} catch (error) {
  out.busy = { status: error.status, message: error.message };
}
const global = new GoogleGenAI({ vertexai: true, project: process.env.PROJECT ?? 'fake-project', location: 'global' });
out.global = (await global.models.generateContent({ model, contents: 'Say hello globally' })).text;
console.log(JSON.stringify(out));
`;

const outputOf = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, any>;

async function recordTape(): Promise<{ tape: string; app: string; live: Record<string, any>; standIn: Awaited<ReturnType<typeof startVertexStandIn>> }> {
  const standIn = started(await startVertexStandIn(ACCESS_TOKEN));
  const app = `${dir}/app.mjs`;
  writeFileSync(app, APP);
  const credentials = `${dir}/user-credentials.json`;
  writeFileSync(credentials, JSON.stringify(userGoogleCredentials(standIn.url)));
  const tape = `${dir}/vertex.jsonl`;
  const recorded = await runMain(['run', '--tape', tape, '--mode', 'record', '--upstream', `vertex=${standIn.url}`, '--', process.execPath, app], {
    env: { GOOGLE_APPLICATION_CREDENTIALS: credentials },
  });
  expect(recorded.code, recorded.stderr).toBe(0);
  return { tape, app, live: outputOf(recorded.stdout), standIn };
}

test('unmodified @google/genai code on Vertex AI records under modeltape run with its OAuth token and replays offline with no Google credentials', async () => {
  const { tape, app, live, standIn } = await recordTape();

  // Every call reached Vertex's own paths (v1beta1, as @google/genai sends them), with the user's access token.
  expect(standIn.received.filter((request) => request.url !== '/token').map((request) => request.url)).toEqual([
    '/v1beta1/projects/fake-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent',
    '/v1beta1/projects/fake-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    '/v1beta1/projects/fake-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:countTokens',
    '/v1beta1/projects/fake-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent',
    '/v1beta1/projects/fake-project/locations/global/publishers/google/models/gemini-2.5-flash:generateContent',
  ]);
  expect(standIn.calls.map((call) => call.token)).toEqual(Array(5).fill(ACCESS_TOKEN));
  expect(standIn.tokenRequests).toBeGreaterThan(0);
  expect(live.text).toBe('Hello from gemini-2.5-flash in us-central1: Say hello');
  expect(live.usage).toMatchObject({ totalTokenCount: 15, trafficType: 'ON_DEMAND' });
  expect(live.chunks.join('')).toBe('One, two, three.');
  expect(live.tokens).toBe(6);
  expect(live.busy.status).toBe(429);
  expect(live.busy.message).toContain(VERTEX_RESOURCE_EXHAUSTED.error.message);
  expect(live.global).toBe('Hello from gemini-2.5-flash in global: Say hello globally');
  await standIn.close();

  // The tape names the upstream `vertex` and Vertex's paths; never the token, never the stand-in.
  const text = readFileSync(tape, 'utf8');
  for (const secret of [ACCESS_TOKEN, 'ya29.', 'fake-refresh-token', 'fake-client-secret', new URL(standIn.url).host]) expect(text).not.toContain(secret);
  expect(
    loadTape(tape).exchanges.map(({ exchange }) => [exchange.upstream, exchange.request.path.replace(/^.*\/models\//, ''), exchange.response.status]),
  ).toEqual([
    ['vertex', 'gemini-2.5-flash:generateContent', 200],
    ['vertex', 'gemini-2.5-flash:streamGenerateContent', 200],
    ['vertex', 'gemini-2.5-flash:countTokens', 200],
    ['vertex', 'gemini-2.5-flash:generateContent', 429],
    ['vertex', 'gemini-2.5-flash:generateContent', 200],
  ]);

  // Replay: the stand-in is gone, and the user's credentials name a token endpoint that is gone
  // too; the run's placeholder credentials win, and their token comes from the proxy.
  const replayed = await runMain(['run', '--tape', tape, '--', process.execPath, app], {
    env: { GOOGLE_APPLICATION_CREDENTIALS: `${dir}/user-credentials.json`, GCE_METADATA_HOST: '169.254.169.254' },
  });
  expect(replayed.code, replayed.stderr).toBe(0);
  expect(outputOf(replayed.stdout)).toEqual(live);
  expect(replayed.stderr).toContain('5 hits, 0 misses');
  expect(replayed.stderr).toContain('0 upstream connections');
});

test('a changed prompt under replay misses and shows the Vertex recording it differs from, in Google’s error shape', async () => {
  const { tape, app, standIn } = await recordTape();
  await standIn.close();
  const missed = await runMain(['run', '--tape', tape, '--', process.execPath, app], { env: { PROMPT: 'Say goodbye' } });
  expect(missed.code).not.toBe(0);
  expect(missed.stderr).toContain(
    'Failed to replay POST /vertex/v1beta1/projects/fake-project/locations/us-central1/publishers/google/models/gemini-2.5-flash:generateContent',
  );
  expect(missed.stderr).toContain('at .contents[0].parts[0].text: recorded "Say hello" sent "Say goodbye"');
  expect(missed.stderr).toContain('0 upstream connections');
  // What the client threw: Google's RPC error body, modeltape's type as its status.
  expect(missed.stderr).toContain('"status":"MODELTAPE_REPLAY_MISS"');
});

test('a teammate’s other project replays a tape recorded on yours under the project normalizer the docs give', async () => {
  const { tape, app, standIn } = await recordTape();
  await standIn.close();
  // Without the rule, another project is another request.
  const unkeyed = await runMain(['run', '--tape', tape, '--', process.execPath, app], { env: { PROJECT: 'teammates-project' } });
  expect(unkeyed.code).not.toBe(0);
  expect(unkeyed.stderr).toContain('/projects/teammates-project/');

  const config = `${dir}/modeltape.config.json`;
  writeFileSync(config, JSON.stringify({ normalizers: [{ pattern: '/projects/[^/]+/', in: 'path', placeholder: '/projects/<project>/' }] }));
  const rekeyed = await runMain(['rekey', '--config', config, tape]);
  expect(rekeyed.code, rekeyed.stderr).toBe(0);
  const replayed = await runMain(['run', '--tape', tape, '--config', config, '--', process.execPath, app], { env: { PROJECT: 'teammates-project' } });
  expect(replayed.code, replayed.stderr).toBe(0);
  expect(outputOf(replayed.stdout).text).toBe('Hello from gemini-2.5-flash in us-central1: Say hello');
  expect(replayed.stderr).toContain('5 hits, 0 misses');
});
