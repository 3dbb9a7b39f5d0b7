import { readFileSync } from 'node:fs';
import { AzureOpenAI } from 'openai';
import { afterEach, expect, test } from 'vitest';
import { loadTape } from 'modeltape/recordings';
import { openTape, type TapeSession } from 'modeltape/replay';
import { reportTapes } from 'modeltape/testkit';
import { startAzureStandIn } from '../support/azure-upstream.js';
import { fakeOpenAiKey } from '../support/fake-keys.js';
import type { StandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

const dir = tempDir();
const FAKE_AZURE_KEY = fakeOpenAiKey('AZUREFAKE'.repeat(4));
const apiVersion = '2024-10-21';
// A resource name whose lookup never happens: in replay session.fetch answers in process.
const NEVER_LOOKED_UP = 'https://modeltape-fake-resource.openai.azure.com';

let standIn: StandInUpstream | undefined;
let session: TapeSession | undefined;
afterEach(async () => {
  await session?.close().catch(() => undefined);
  session = undefined;
  await standIn?.close();
  standIn = undefined;
});

async function ask(client: AzureOpenAI, content: string) {
  const plain = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }] });
  const stream = await client.chat.completions.create({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'Count to three' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  const chunks: unknown[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return { plain, chunks };
}

test('AzureOpenAI given session.baseUrls.azure as its endpoint records, then replays in process from a resource host never looked up', async () => {
  standIn = await startAzureStandIn();
  const port = new URL(standIn.url).port;
  const tape = `${dir}/azure-session.jsonl`;
  session = await openTape(tape, { mode: 'record', allowRecordInCi: true, config: false, upstreams: { azure: standIn.url }, env: {} });
  expect(session.baseUrls.azure).toBe(`${session.proxy.url}/azure`);
  const client = new AzureOpenAI({ endpoint: session.baseUrls.azure, apiKey: FAKE_AZURE_KEY, apiVersion, deployment: 'gpt-4o-dev', maxRetries: 0 });
  const live = await ask(client, 'Say hello');
  expect((await session.close()).recorded).toBe(2);
  session = undefined;
  expect(standIn.received.map((request) => request.url)).toEqual(Array(2).fill('/openai/deployments/gpt-4o-dev/chat/completions?api-version=2024-10-21'));
  expect(standIn.received.map((request) => request.headers['api-key'])).toEqual([FAKE_AZURE_KEY, FAKE_AZURE_KEY]);
  await standIn.close();
  standIn = undefined;
  const text = readFileSync(tape, 'utf8');
  expect(text).not.toContain('AZUREFAKE');
  expect(text).not.toContain(`:${port}`);

  session = await openTape(tape, { mode: 'replay', config: false, env: {} });
  const replayed = await ask(
    new AzureOpenAI({ endpoint: NEVER_LOOKED_UP, apiKey: 'fake-other-key', apiVersion, deployment: 'gpt-4o-dev', fetch: session.fetch, maxRetries: 0 }),
    'Say hello',
  );
  expect(replayed).toEqual(live);
  expect(replayed.plain.choices[0]!.message.content).toBe('Hello from deployment gpt-4o-dev: Say hello');

  // A changed prompt is a miss that shows the nearest recording and how it differs.
  const miss = await new AzureOpenAI({
    endpoint: session.baseUrls.azure,
    apiKey: 'fake-other-key',
    apiVersion,
    deployment: 'gpt-4o-dev',
    maxRetries: 0,
  }).chat.completions
    .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Say goodbye' }] })
    .then(
      () => 'answered',
      (error: Error) => error.message,
    );
  expect(miss).toContain('Failed to replay POST /azure/openai/deployments/gpt-4o-dev/chat/completions');
  expect(miss).toContain('at .messages[0].content: recorded "Say hello" sent "Say goodbye"');
  // api-version is keyed: another version is another request, and the miss names it.
  const otherVersion = await new AzureOpenAI({
    endpoint: NEVER_LOOKED_UP,
    apiKey: 'fake-other-key',
    apiVersion: '2025-01-01-preview',
    deployment: 'gpt-4o-dev',
    fetch: session.fetch,
    maxRetries: 0,
  }).chat.completions
    .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Say hello' }] })
    .then(
      () => 'answered',
      (error: Error) => error.message,
    );
  expect(otherVersion).toMatch(/query api-version.*2024-10-21.*2025-01-01-preview/);
  const summary = await session.close();
  session = undefined;
  expect(summary).toMatchObject({ hits: 2, misses: 2, upstreamConnections: 0, escapes: [] });

  // The report reads Azure's answers as OpenAI chat completions: tokens, finish reasons.
  const report = reportTapes([tape]);
  expect(report.totals.tokens.total).toBe(21 + 14);
  expect(report.coverage.endpoints).toMatchObject([{ name: 'openai-chat', count: 2 }]);
});

test('a deployment key rule lets a tape recorded under one deployment replay under another', async () => {
  standIn = await startAzureStandIn();
  const tape = `${dir}/azure-deployments.jsonl`;
  // What docs/azure-tapes.md tells a team to put in modeltape.config.json.
  const normalizers = [{ pattern: '/deployments/[^/]+/', in: 'path' as const, placeholder: '/deployments/<deployment>/' }];
  const client = (endpoint: string, deployment: string, fetch?: typeof globalThis.fetch) =>
    new AzureOpenAI({ endpoint, apiKey: FAKE_AZURE_KEY, apiVersion, deployment, maxRetries: 0, ...(fetch === undefined ? {} : { fetch }) });

  session = await openTape(tape, { mode: 'record', allowRecordInCi: true, config: false, upstreams: { azure: standIn.url }, normalizers, env: {} });
  const live = await ask(client(session.baseUrls.azure, 'gpt-4o-dev'), 'Say hello');
  await session.close();
  session = undefined;
  expect(standIn.received.map((request) => request.url.split('?')[0])).toEqual(Array(2).fill('/openai/deployments/gpt-4o-dev/chat/completions'));

  session = await openTape(tape, { mode: 'replay', config: false, normalizers, env: {} });
  const onCi = await ask(client(NEVER_LOOKED_UP, 'gpt-4o-ci', session.fetch), 'Say hello');
  expect(onCi).toEqual(live);
  expect(await session.close()).toMatchObject({ hits: 2, misses: 0, upstreamConnections: 0 });

  // The tape's header holds the rule, so a replay that is given no rules (CI without the config
  // file) keys as the tape was keyed; with other rules, the other deployment is another request.
  expect(loadTape(tape).header.keyRules.normalizers).toEqual(normalizers);
  session = await openTape(tape, { mode: 'replay', config: false, env: {} });
  expect(await ask(client(NEVER_LOOKED_UP, 'gpt-4o-ci', session.fetch), 'Say hello')).toEqual(live);
  await session.close();
  session = undefined;
  const withoutRule = await openTape(tape, { mode: 'replay', config: false, normalizers: [], env: {} }).then(
    () => 'opened',
    (error: Error) => error.message,
  );
  expect(withoutRule).toContain('modeltape rekey');
});
