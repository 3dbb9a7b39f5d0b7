import { readFileSync, writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { loadTape } from 'modeltape/recordings';
import { closeAfterEach } from '../support/close-after-each.js';
import { runMain } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';
import { startVertexStandIn, userGoogleCredentials } from '../support/vertex-upstream.js';

const dir = tempDir({ inProject: true });
const started = closeAfterEach();
const ACCESS_TOKEN = ['ya29', `a0FAKE${'FAKE'.repeat(10)}_fake-0002`].join('.');

// Application code as the AI SDK's docs write it, but for one thing: @ai-sdk/google-vertex
// (3.0.187) reads no base-URL variable, so each provider is given `baseURL` from the variable
// modeltape run sets for @google/genai (GOOGLE_VERTEX_BASE_URL), with the path the provider
// would build itself; without the variable it builds its own (docs/vertex.md). Project and
// location come from GOOGLE_VERTEX_PROJECT and GOOGLE_VERTEX_LOCATION, the credentials from
// Application Default Credentials. `vertex` calls Gemini's generateContent and
// streamGenerateContent; `vertexAnthropic` Claude's rawPredict and streamRawPredict.
const APP = `import { createVertex } from '@ai-sdk/google-vertex';
import { createVertexAnthropic } from '@ai-sdk/google-vertex/anthropic';
import { generateText, streamText } from 'ai';
const { GOOGLE_VERTEX_BASE_URL: base, GOOGLE_VERTEX_PROJECT: project, GOOGLE_VERTEX_LOCATION: location } = process.env;
const under = (path) => (base ? { baseURL: \`\${base}\${path}\` } : {});
const vertex = createVertex(under(\`/v1beta1/projects/\${project}/locations/\${location}/publishers/google\`));
const vertexAnthropic = createVertexAnthropic(under(\`/v1/projects/\${project}/locations/\${location}/publishers/anthropic/models\`));
const out = {};
for (const [name, model] of [['gemini', vertex('gemini-2.5-flash')], ['claude', vertexAnthropic('claude-sonnet-4-5@20250929')]]) {
  out[name] = (await generateText({ model, prompt: process.env.PROMPT ?? 'Say hello', maxRetries: 0 })).text;
  const result = streamText({ model, prompt: 'Count to three', maxRetries: 0, onError: ({ error }) => { throw error; } });
  out[name + 'Streamed'] = '';
  for await (const delta of result.textStream) out[name + 'Streamed'] += delta;
}
console.log(JSON.stringify(out));
`;

const outputOf = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
const WHERE = { GOOGLE_VERTEX_PROJECT: 'fake-project', GOOGLE_VERTEX_LOCATION: 'us-east5' };

test('@ai-sdk/google-vertex’s Gemini and Anthropic providers, given the run’s base URL, record under modeltape run and replay offline with no Google credentials', async () => {
  const standIn = started(await startVertexStandIn(ACCESS_TOKEN));
  const app = `${dir}/app.mjs`;
  writeFileSync(app, APP);
  const credentials = `${dir}/user-credentials.json`;
  writeFileSync(credentials, JSON.stringify(userGoogleCredentials(standIn.url)));
  const tape = `${dir}/vertex-ai-sdk.jsonl`;

  const recorded = await runMain(['run', '--tape', tape, '--mode', 'record', '--upstream', `vertex=${standIn.url}`, '--', process.execPath, app], {
    env: { ...WHERE, GOOGLE_APPLICATION_CREDENTIALS: credentials },
  });
  expect(recorded.code, recorded.stderr).toBe(0);
  const live = outputOf(recorded.stdout);
  expect(standIn.calls.map((call) => [call.version, call.publisher, call.method, call.token === ACCESS_TOKEN])).toEqual([
    ['v1beta1', 'google', 'generateContent', true],
    ['v1beta1', 'google', 'streamGenerateContent', true],
    ['v1', 'anthropic', 'rawPredict', true],
    ['v1', 'anthropic', 'streamRawPredict', true],
  ]);
  expect(live).toEqual({
    gemini: 'Hello from gemini-2.5-flash in us-east5: Say hello',
    geminiStreamed: 'One, two, three.',
    claude: 'Hello from claude-sonnet-4-5@20250929: Say hello',
    claudeStreamed: 'Hello there!',
  });
  await standIn.close();

  const text = readFileSync(tape, 'utf8');
  for (const secret of [ACCESS_TOKEN, 'ya29.', new URL(standIn.url).host]) expect(text).not.toContain(secret);
  expect(loadTape(tape).exchanges.map(({ exchange }) => exchange.upstream)).toEqual(['vertex', 'vertex', 'vertex', 'vertex']);

  const replayed = await runMain(['run', '--tape', tape, '--', process.execPath, app], { env: WHERE });
  expect(replayed.code, replayed.stderr).toBe(0);
  expect(outputOf(replayed.stdout)).toEqual(live);
  expect(replayed.stderr).toContain('4 hits, 0 misses');
  expect(replayed.stderr).toContain('0 upstream connections');

  const missed = await runMain(['run', '--tape', tape, '--', process.execPath, app], { env: { ...WHERE, PROMPT: 'Say goodbye' } });
  expect(missed.code).not.toBe(0);
  expect(missed.stderr).toContain(
    'Failed to replay POST /vertex/v1beta1/projects/fake-project/locations/us-east5/publishers/google/models/gemini-2.5-flash:generateContent',
  );
  expect(missed.stderr).toContain('recorded "Say hello" sent "Say goodbye"');
});
