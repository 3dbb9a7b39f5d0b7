import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { openTape } from 'modeltape/replay';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startBedrockUpstream } from '../support/bedrock-upstream.js';
import { runMain } from '../support/cli.js';
import { mutateOutcomes } from '../support/mutate-outcomes.js';
import { tempDir } from '../support/temp-dir.js';

// modeltape mutate and modeltape report on a Bedrock suite: a Converse tool use and a
// ConverseStream, recorded from the loopback stand-in through a tape session, then mutated under
// a script that uses the real BedrockRuntimeClient (its endpoint the proxy's /bedrock, which
// mutate sets in AWS_ENDPOINT_URL_BEDROCK_RUNTIME with placeholder credentials).

// Built at runtime so no file holds an access-key-shaped literal.
const ACCESS_KEY_ID = ['AKIA', 'FAKE'.repeat(4)].join('');
const SECRET = `fake-secret-${'S'.repeat(28)}`;
const MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0';

const APP = `import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
const schema = { json: { type: 'object', properties: { city: { type: 'string' } } } };
export async function run() {
  const client = new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint: process.env.AWS_ENDPOINT_URL_BEDROCK_RUNTIME,
    requestHandler: new NodeHttpHandler(),
    maxAttempts: 1,
  });
  try {
    const asked = await client.send(new ConverseCommand({
      modelId: '${MODEL}',
      messages: [{ role: 'user', content: [{ text: 'Use a tool: the weather in Paris' }] }],
      toolConfig: { tools: [{ toolSpec: { name: 'get_weather', inputSchema: schema } }, { toolSpec: { name: 'get_time', inputSchema: schema } }] },
    }));
    const toolUse = asked.output.message.content.find((block) => block.toolUse !== undefined)?.toolUse;
    const streamed = await client.send(new ConverseStreamCommand({ modelId: '${MODEL}', messages: [{ role: 'user', content: [{ text: 'Count the r in strawberry' }] }] }));
    let text = '';
    for await (const event of streamed.stream) text += event.contentBlockDelta?.delta?.text ?? '';
    return { tool: toolUse && { name: toolUse.name, input: toolUse.input }, stop: asked.stopReason, text };
  } finally {
    client.destroy();
  }
}
`;

// Checks the tool call and the streamed count; not why either answer stopped.
const SUITE = `import assert from 'node:assert/strict';
import { run } from './app.mjs';
const got = await run();
assert.deepEqual(got.tool, { name: 'get_weather', input: { city: 'Paris' } });
assert.match(got.text, /There are \\*\\*3\\*\\* /);
`;

describe('modeltape mutate and report on Bedrock', () => {
  const dir = tempDir({ inProject: true, scope: 'file' });
  const tape = `${dir}/bedrock.jsonl`;
  writeFileSync(`${dir}/app.mjs`, APP);
  writeFileSync(`${dir}/suite.mjs`, SUITE);

  beforeAll(async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', ACCESS_KEY_ID);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', SECRET);
    vi.stubEnv('AWS_SESSION_TOKEN', undefined);
    vi.stubEnv('AWS_PROFILE', undefined);
    vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
    const standIn = await startBedrockUpstream({ accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET });
    try {
      const session = await openTape(tape, { mode: 'record', allowRecordInCi: true, config: false, upstreams: { bedrock: standIn.url }, env: {} });
      vi.stubEnv('AWS_ENDPOINT_URL_BEDROCK_RUNTIME', session.baseUrls.bedrock);
      const app = (await import(pathToFileURL(`${dir}/app.mjs`).href)) as { run: () => Promise<{ tool: unknown; text: string }> };
      const live = await app.run();
      expect(live.tool).toEqual({ name: 'get_weather', input: { city: 'Paris' } });
      expect(live.text).toMatch(/There are \*\*3\*\* /);
      expect((await session.close()).recorded).toBe(2);
      expect(standIn.requests.filter((request) => request.rejectedWith !== undefined)).toEqual([]);
    } finally {
      await standIn.close();
    }
  }, 60_000);
  afterAll(() => vi.unstubAllEnvs());

  test('mutants of the Converse tool use and the ConverseStream are killed where the suite looks, and survive where it does not', async () => {
    const { report, outcomes } = await mutateOutcomes(dir, tape, [
      'tool-argument-changed',
      'tool-call-dropped',
      'tool-renamed',
      'finish-length',
      'number-changed',
      'text-emptied',
      'stream-truncated',
      'stream-error',
      'rate-limited',
    ]);
    // Line 2: Converse with a tool use; line 3: the ConverseStream.
    expect(outcomes).toEqual({
      '2 tool-argument-changed call 1': 'killed',
      '2 tool-call-dropped call 1': 'killed',
      '2 tool-renamed call 1': 'killed',
      '2 finish-length': 'survived',
      '2 rate-limited': 'killed',
      '3 text-emptied': 'killed',
      '3 number-changed': 'killed',
      '3 finish-length': 'survived',
      '3 stream-truncated': 'survived',
      '3 rate-limited': 'killed',
      '3 stream-error': 'killed',
    });
    const streamError = report.mutants.find((mutant) => mutant.operator === 'stream-error')!;
    expect(streamError.after).toContain('exception modelStreamErrorException');
    // 8 of 11 detected, rounded to one place.
    expect(report.score).toBe(72.7);
  }, 180_000);

  test('report --json counts the Bedrock exchanges as model turns, their tool use, finishes, tokens and cost at the Bedrock price', async () => {
    const result = await runMain(['report', tape, '--json'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as {
      coverage: {
        endpoints: Array<{ name: string; count: number }>;
        models: Array<{ name: string; count: number }>;
        behaviours: Array<{ name: string; count: number }>;
        finishReasons: Array<{ name: string }>;
      };
      totals: { tokens: { input: number; output: number; total: number }; costUsd: number; unpriced: string[]; unmetered: number };
    };
    expect(report.coverage.endpoints).toEqual([expect.objectContaining({ name: 'bedrock-converse', count: 2 })]);
    expect(report.coverage.models).toEqual([expect.objectContaining({ name: MODEL, count: 2 })]);
    const seen = Object.fromEntries(report.coverage.behaviours.map((behaviour) => [behaviour.name, behaviour.count]));
    expect(seen).toMatchObject({
      streamed: 1,
      'not-streamed': 1,
      'tool-call': 1,
      'finish-tool-calls': 1,
      'finish-stop': 1,
      'stream-error': 0,
      'status-429': 0,
    });
    expect(report.coverage.finishReasons.map((finish) => finish.name).sort()).toEqual(['bedrock-converse end_turn', 'bedrock-converse tool_use']);
    const { tokens, costUsd, unpriced, unmetered } = report.totals;
    expect(tokens.input).toBeGreaterThan(0);
    expect(tokens.output).toBeGreaterThan(0);
    expect(unpriced).toEqual([]);
    expect(unmetered).toBe(0);
    // Claude 3.5 Haiku on Bedrock: $0.80 in, $4 out per million tokens.
    expect(costUsd).toBeCloseTo((tokens.input * 0.8 + tokens.output * 4) / 1e6, 12);
  });
});
