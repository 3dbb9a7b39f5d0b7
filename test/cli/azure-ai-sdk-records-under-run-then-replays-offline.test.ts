import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, expect, test } from 'vitest';
import { FakeProvider, type FakeServer } from 'modeltape/fake-provider';
import { runMain } from '../support/cli.js';
import { fakeOpenAiKey } from '../support/fake-keys.js';
import { tempDir } from '../support/temp-dir.js';

// Vercel's ai with @ai-sdk/azure (3.0.128) under `modeltape run`. The provider reads
// AZURE_API_KEY and AZURE_RESOURCE_NAME and no base-URL variable (it builds
// https://NAME.openai.azure.com/openai/v1/… itself), so the code gives it a base URL from
// AZURE_OPENAI_ENDPOINT, which the run points at its proxy (the one line docs/azure.md shows).
// Recorded from the FakeProvider as the Azure resource, replayed with no key and no resource.

const dir = tempDir({ inProject: true });
const FAKE_AZURE_KEY = fakeOpenAiKey('AISDKAZUREFAKE'.repeat(2));

const APP = `import { createAzure } from '@ai-sdk/azure';
import { embed, generateText, streamText } from 'ai';
const endpoint = process.env.AZURE_OPENAI_ENDPOINT?.replace(/\\/+$/, '');
// Azure's v1 routes (the Responses API by default), and its deployment routes with an api-version.
const azure = createAzure({ baseURL: endpoint && \`\${endpoint}/openai/v1\` });
const byDeployment = createAzure({ baseURL: endpoint && \`\${endpoint}/openai\`, useDeploymentBasedUrls: true, apiVersion: '2024-10-21' });
const responses = await generateText({ model: azure('gpt-4o-dev'), prompt: process.env.PROMPT ?? 'Say hello' });
const chat = await generateText({ model: byDeployment.chat('gpt-4o-dev'), prompt: 'Say hello by deployment' });
const stream = streamText({ model: azure.chat('gpt-4o-dev'), prompt: 'Count to three' });
let streamed = '';
for await (const part of stream.textStream) streamed += part;
const { embedding } = await embed({ model: azure.embedding('text-embedding-3-small'), value: 'hello' });
console.log(JSON.stringify({ responses: responses.text, chat: chat.text, chatFinish: chat.finishReason, streamed, dimensions: embedding.length }));
`;

let server: FakeServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const outputOf = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;

test('@ai-sdk/azure code records under run from the resource (the Responses API, a deployment route, a stream, embeddings) and replays offline with no key', async () => {
  const fake = new FakeProvider().willSay('Hello from Responses.').willSay('Hello by deployment.').willSay('One, two, three.');
  server = await fake.listen({ port: 0 });
  writeFileSync(`${dir}/app.mjs`, APP);
  const tape = `${dir}/ai-sdk-azure.jsonl`;

  const recorded = await runMain(
    ['run', '--tape', tape, '--mode', 'record', '--upstream', `azure=${server.baseUrls.azure}`, '--', process.execPath, `${dir}/app.mjs`],
    { env: { AZURE_API_KEY: FAKE_AZURE_KEY } },
  );
  expect(recorded.code, recorded.stderr).toBe(0);
  const live = outputOf(recorded.stdout);
  expect(live).toEqual({ responses: 'Hello from Responses.', chat: 'Hello by deployment.', chatFinish: 'stop', streamed: 'One, two, three.', dimensions: 8 });
  // Each reached the resource on Azure's own route, with the key in api-key.
  expect(fake.calls().map((call) => `${call.method} ${call.path} ${call.status}`)).toEqual([
    'POST /azure/openai/v1/responses 200',
    'POST /azure/openai/deployments/gpt-4o-dev/chat/completions?api-version=2024-10-21 200',
    'POST /azure/openai/v1/chat/completions 200',
    'POST /azure/openai/v1/embeddings 200',
  ]);
  fake.assertConsumed();
  await server.close();
  server = undefined;
  const text = readFileSync(tape, 'utf8');
  expect(text).not.toContain(FAKE_AZURE_KEY);
  expect(text).toContain('"upstream":"azure"');

  // Replay: no key (the run gives AZURE_API_KEY a placeholder), the resource gone.
  const replayed = await runMain(['run', '--tape', tape, '--', process.execPath, `${dir}/app.mjs`], { env: { AZURE_API_KEY: undefined } });
  expect(replayed.code, replayed.stderr).toBe(0);
  expect(outputOf(replayed.stdout)).toEqual(live);
  expect(replayed.stderr).toContain('4 hits, 0 misses');
  expect(replayed.stderr).toContain('0 upstream connections');

  // A changed prompt misses, and the miss shows the nearest Azure recording.
  const missed = await runMain(['run', '--tape', tape, '--', process.execPath, `${dir}/app.mjs`], { env: { PROMPT: 'Say goodbye' } });
  expect(missed.code).not.toBe(0);
  expect(missed.stderr).toContain('Failed to replay POST /azure/openai/v1/responses');
  expect(missed.stderr).toContain('"Say goodbye"');
});
