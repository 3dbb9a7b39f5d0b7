import { readFileSync } from 'node:fs';
import { AzureOpenAI, RateLimitError, InternalServerError, APIError } from 'openai';
import { afterEach, expect, test } from 'vitest';
import { openTape, type TapeSession } from 'modeltape/replay';
import { startAzureStandIn } from '../support/azure-upstream.js';
import type { StandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// Chaos replay and misses on an Azure OpenAI tape answer as a resource would: its 429 in its own
// shape ({code, message} saying when to retry, as test/fixtures/azure/error-429.json), with
// retry-after-ms and retry-after; a miss and a 5xx in OpenAI's shape, which Azure passes through.

const dir = tempDir();
const apiVersion = '2024-10-21';
const sample = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/azure/${name}`, import.meta.url), 'utf8')) as Record<string, any>;

let standIn: StandInUpstream | undefined;
let session: TapeSession | undefined;
afterEach(async () => {
  await session?.close().catch(() => undefined);
  session = undefined;
  await standIn?.close();
  standIn = undefined;
});

const client = (endpoint: string, fetch?: typeof globalThis.fetch) =>
  new AzureOpenAI({ endpoint, apiKey: 'fake-azure-key', apiVersion, deployment: 'gpt-4o-dev', maxRetries: 0, ...(fetch === undefined ? {} : { fetch }) });
const ask = (azure: AzureOpenAI, content: string) => azure.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }] });
const failureOf = (call: Promise<unknown>) =>
  call.then(
    () => undefined,
    (error: unknown) => error as APIError,
  );

async function recorded(name: string): Promise<string> {
  standIn = await startAzureStandIn();
  const tape = `${dir}/${name}.jsonl`;
  session = await openTape(tape, { mode: 'record', allowRecordInCi: true, config: false, upstreams: { azure: standIn.url }, env: {} });
  const azure = client(session.baseUrls.azure);
  for (const content of ['one', 'two']) await ask(azure, content);
  await session.close();
  session = undefined;
  await standIn.close();
  standIn = undefined;
  return tape;
}

test('a rate-limited fault is the resource’s 429, over the proxy and in process; the retry is answered from the tape', async () => {
  const tape = await recorded('chaos');
  session = await openTape(tape, { mode: 'replay', config: false, env: {}, chaos: { seed: 7, rate: 1, kinds: ['rate-limited'], retryAfterMs: 1500 } });
  const ways: Array<[AzureOpenAI, string]> = [
    [client(session.baseUrls.azure), 'one'],
    [client('https://modeltape-fake-resource.openai.azure.com', session.fetch), 'two'],
  ];
  for (const [azure, content] of ways) {
    const error = await failureOf(ask(azure, content));
    expect(error).toBeInstanceOf(RateLimitError);
    expect(Object.keys(error!.error as object).sort()).toEqual(Object.keys(sample('error-429.json').error).sort());
    expect(error!.code).toBe('429');
    expect((error!.error as { message: string }).message).toMatch(/^Requests to the .* Please retry after 2 seconds\. .*\(modeltape chaos, seed 7\)$/);
    expect(error!.headers?.get('retry-after-ms')).toBe('1500');
    expect(error!.headers?.get('retry-after')).toBe('2');
    expect(error!.headers?.get('x-modeltape-chaos')).toBe('rate-limited');
    // The client's retry gets the recording.
    expect((await ask(azure, content)).choices[0]!.message.content).toBe(`Hello from deployment gpt-4o-dev: ${content}`);
  }
  const summary = await session.close();
  session = undefined;
  expect(summary).toMatchObject({ hits: 2, misses: 0, upstreamConnections: 0 });
  expect(summary.chaos?.faults.map((fault) => [fault.kind, fault.fired])).toEqual([
    ['rate-limited', true],
    ['rate-limited', true],
  ]);
});

test('a server-error fault and a miss are in OpenAI’s shape, as Azure passes them through', async () => {
  const tape = await recorded('miss');
  session = await openTape(tape, { mode: 'replay', config: false, env: {}, chaos: { seed: 3, rate: 1, kinds: ['server-error'] } });
  const azure = client(session.baseUrls.azure);
  const fault = await failureOf(ask(azure, 'one'));
  expect(fault).toBeInstanceOf(InternalServerError);
  expect(Object.keys(fault!.error as object).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(fault!.type).toBe('server_error');
  const miss = await failureOf(ask(azure, 'three'));
  expect(miss!.status).toBeGreaterThanOrEqual(400);
  expect(miss!.code).toBe('modeltape_replay_miss');
  expect(Object.keys(miss!.error as object).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(miss!.message).toContain('Failed to replay POST /azure/openai/deployments/gpt-4o-dev/chat/completions');
  expect(miss!.message).toContain('recorded "one" sent "three"');
});
