import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { openTape } from 'modeltape/replay';
import { startAzureStandIn } from '../support/azure-upstream.js';
import { runMain } from '../support/cli.js';
import { mutateOutcomes } from '../support/mutate-outcomes.js';
import { fakeOpenAiKey } from '../support/fake-keys.js';
import { tempDir } from '../support/temp-dir.js';

// modeltape mutate and modeltape report on an Azure OpenAI suite: a chat completion and a stream,
// recorded from the loopback Azure stand-in through a tape session, mutated under a script that
// uses the unmodified AzureOpenAI (configured from the environment mutate gives it). The
// content-filtered operator applies to that tape, and to no plain OpenAI tape.

const FAKE_AZURE_KEY = fakeOpenAiKey('AZUREFAKE'.repeat(4));

const APP = `import { AzureOpenAI } from 'openai';
export async function run() {
  const client = new AzureOpenAI({ apiVersion: '2024-10-21', deployment: 'gpt-4o-dev', maxRetries: 0 });
  const plain = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Say hello' }] });
  const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Count to three' }], stream: true });
  let text = '';
  let finish;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  return { hello: plain.choices[0].message.content, text, finish };
}
`;

// Checks both answers' text and the stream's finish.
const SUITE = `import assert from 'node:assert/strict';
import { run } from './app.mjs';
const got = await run();
assert.equal(got.hello, 'Hello from deployment gpt-4o-dev: Say hello');
assert.equal(got.text, 'One, two, three.');
assert.equal(got.finish, 'stop');
`;

const OPENAI_SUITE = `import assert from 'node:assert/strict';
import OpenAI from 'openai';
const answer = await new OpenAI({ maxRetries: 0 }).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Say hello' }] });
assert.equal(answer.choices[0].message.content, 'Hello from OpenAI.');
`;

describe('modeltape mutate and report on Azure OpenAI', () => {
  const dir = tempDir({ inProject: true, scope: 'file' });
  const tape = `${dir}/azure.jsonl`;
  const openaiTape = `${dir}/openai.jsonl`;
  writeFileSync(`${dir}/app.mjs`, APP);
  writeFileSync(`${dir}/suite.mjs`, SUITE);
  writeFileSync(`${dir}/openai-suite.mjs`, OPENAI_SUITE);

  beforeAll(async () => {
    const standIn = await startAzureStandIn();
    try {
      const session = await openTape(tape, { mode: 'record', allowRecordInCi: true, config: false, upstreams: { azure: standIn.url }, env: {} });
      vi.stubEnv('OPENAI_BASE_URL', undefined);
      vi.stubEnv('AZURE_OPENAI_ENDPOINT', session.baseUrls.azure);
      vi.stubEnv('AZURE_OPENAI_API_KEY', FAKE_AZURE_KEY);
      const app = (await import(pathToFileURL(`${dir}/app.mjs`).href)) as { run: () => Promise<Record<string, unknown>> };
      expect(await app.run()).toEqual({ hello: 'Hello from deployment gpt-4o-dev: Say hello', text: 'One, two, three.', finish: 'stop' });
      expect((await session.close()).recorded).toBe(2);
    } finally {
      vi.unstubAllEnvs();
      await standIn.close();
    }
    // A plain OpenAI tape, recorded from the FakeProvider as OpenAI's API.
    const fake = new FakeProvider().willSay('Hello from OpenAI.');
    const server = await fake.listen({ port: 0 });
    try {
      const session = await openTape(openaiTape, { mode: 'record', allowRecordInCi: true, config: false, upstreams: { openai: server.url }, env: {} });
      const client = new OpenAI({ apiKey: fakeOpenAiKey('OPENAIFAKE'), baseURL: session.baseUrls.openai, maxRetries: 0 });
      await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Say hello' }] });
      expect((await session.close()).recorded).toBe(1);
    } finally {
      await server.close();
    }
  }, 60_000);
  afterAll(() => vi.unstubAllEnvs());

  test('content-filtered mutants of the Azure answers (the completion filtered, the prompt refused) are killed; rate-limited is Azure’s 429', async () => {
    const { report, outcomes } = await mutateOutcomes(dir, tape, ['content-filtered', 'rate-limited', 'finish-length']);
    // Line 2: the chat completion; line 3: the stream.
    expect(outcomes).toEqual({
      '2 finish-length': 'survived',
      '2 rate-limited': 'killed',
      '2 content-filtered completion': 'killed',
      '2 content-filtered prompt': 'killed',
      '3 finish-length': 'killed',
      '3 rate-limited': 'killed',
      '3 content-filtered completion': 'killed',
      '3 content-filtered prompt': 'killed',
    });
    const after = (operator: string, variant = '') => report.mutants.find((mutant) => mutant.operator === operator && mutant.variant === variant)!.after;
    expect(after('rate-limited')).toContain('"code":"429"');
    expect(after('content-filtered', 'prompt')).toContain('"code":"content_filter"');
    expect(after('content-filtered', 'completion')).toContain('finish_reason content_filter');
  }, 180_000);

  test('a plain OpenAI tape admits no content-filtered mutant', async () => {
    const result = await runMain(['mutate', '--tape', openaiTape, '--operators', 'content-filtered', '--', process.execPath, `${dir}/openai-suite.mjs`], {
      cwd: dir,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('none of the 1 exchange the suite used admits the operators content-filtered');
  }, 60_000);

  test('report --json reads the Azure exchanges as OpenAI chat completions: coverage, finishes, tokens', async () => {
    const result = await runMain(['report', tape, '--json'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as {
      coverage: {
        endpoints: Array<{ name: string; count: number }>;
        behaviours: Array<{ name: string; count: number }>;
        finishReasons: Array<{ name: string }>;
      };
      totals: { tokens: { input: number; output: number; total: number }; costUsd: number; unpriced: string[] };
    };
    expect(report.coverage.endpoints).toEqual([expect.objectContaining({ name: 'openai-chat', count: 2 })]);
    const seen = Object.fromEntries(report.coverage.behaviours.map((behaviour) => [behaviour.name, behaviour.count]));
    expect(seen).toMatchObject({ streamed: 1, 'not-streamed': 1, 'finish-stop': 2 });
    expect(report.coverage.finishReasons.map((finish) => finish.name)).toEqual(['openai-chat stop']);
    // The plain answer's usage (21) and the stream's usage chunk (14), as the stand-in sends them.
    expect(report.totals.tokens.total).toBe(21 + 14);
    expect(report.totals.costUsd).toBeGreaterThan(0);
  });
});
