import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { openTape, placeholderGoogleCredentials } from 'modeltape/replay';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runMain } from '../support/cli.js';
import { mutateOutcomes } from '../support/mutate-outcomes.js';
import { tempDir } from '../support/temp-dir.js';
import { startVertexStandIn, userGoogleCredentials } from '../support/vertex-upstream.js';

// modeltape mutate and modeltape report on a Vertex AI suite: a Gemini answer, a Gemini stream
// and a Claude answer, recorded from the loopback stand-in through a tape session, then mutated
// under a script that uses unmodified @google/genai and AnthropicVertex (their base URLs and
// placeholder credentials from the environment mutate gives each mutant's run).

const ACCESS_TOKEN = ['ya29', `a0FAKE${'FAKE'.repeat(10)}_fake-0004`].join('.');
const CLAUDE = 'claude-sonnet-4-5@20250929';

const APP = `import { GoogleGenAI } from '@google/genai';
import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
export async function run() {
  const ai = new GoogleGenAI({ vertexai: true, project: 'fake-project', location: 'us-central1' });
  const claude = new AnthropicVertex({ projectId: 'fake-project', region: 'us-east5', maxRetries: 0 });
  const gemini = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Say hello' });
  let streamed = '';
  for await (const chunk of await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'Count to three' })) streamed += chunk.text ?? '';
  const message = await claude.messages.create({ model: '${CLAUDE}', max_tokens: 64, messages: [{ role: 'user', content: 'Say hello' }] });
  return { gemini: gemini.text, finish: gemini.candidates[0].finishReason, streamed, claude: message.content[0].text };
}
`;

// Checks every text; not why any answer stopped.
const SUITE = `import assert from 'node:assert/strict';
import { run } from './app.mjs';
const got = await run();
assert.equal(got.gemini, 'Hello from gemini-2.5-flash in us-central1: Say hello');
assert.equal(got.streamed, 'One, two, three.');
assert.equal(got.claude, 'Hello from ${CLAUDE}: Say hello');
`;

describe('modeltape mutate and report on Vertex AI', () => {
  const dir = tempDir({ inProject: true, scope: 'file' });
  const tape = `${dir}/vertex.jsonl`;
  writeFileSync(`${dir}/app.mjs`, APP);
  writeFileSync(`${dir}/suite.mjs`, SUITE);
  const saved = { ...process.env };

  beforeAll(async () => {
    const standIn = await startVertexStandIn(ACCESS_TOKEN);
    try {
      const session = await openTape(tape, { mode: 'record', allowRecordInCi: true, config: false, upstreams: { vertex: standIn.url }, env: {} });
      // The app as the suite runs it, its variables pointed at the session (as mutate points them at its proxy).
      const credentials = `${dir}/user-credentials.json`;
      writeFileSync(credentials, JSON.stringify(userGoogleCredentials(standIn.url)));
      Object.assign(process.env, {
        GOOGLE_VERTEX_BASE_URL: session.baseUrls.vertex,
        ANTHROPIC_VERTEX_BASE_URL: `${session.baseUrls.vertex}/v1`,
        GOOGLE_APPLICATION_CREDENTIALS: credentials,
      });
      const app = (await import(pathToFileURL(`${dir}/app.mjs`).href)) as { run: () => Promise<Record<string, string>> };
      expect(await app.run()).toEqual({
        gemini: 'Hello from gemini-2.5-flash in us-central1: Say hello',
        finish: 'STOP',
        streamed: 'One, two, three.',
        claude: `Hello from ${CLAUDE}: Say hello`,
      });
      expect((await session.close()).recorded).toBe(3);
      expect(placeholderGoogleCredentials(session.baseUrls.url).type).toBe('external_account_authorized_user');
    } finally {
      process.env = saved;
      await standIn.close();
    }
  }, 60_000);
  afterAll(() => {
    process.env = saved;
  });

  test('mutants of the Gemini answer, its stream and the Claude answer are killed where the suite looks, and survive where it does not', async () => {
    const { outcomes } = await mutateOutcomes(dir, tape, ['text-emptied', 'finish-length', 'stream-truncated', 'rate-limited']);
    // Line 2: Gemini's generateContent; line 3: its stream; line 4: Claude's rawPredict.
    expect(outcomes).toEqual({
      '2 text-emptied': 'killed',
      '2 finish-length': 'survived',
      '2 rate-limited': 'killed',
      '3 text-emptied': 'killed',
      '3 finish-length': 'survived',
      '3 stream-truncated': 'killed',
      '3 rate-limited': 'killed',
      '4 text-emptied': 'killed',
      '4 finish-length': 'survived',
      '4 rate-limited': 'killed',
    });
  }, 180_000);

  test('report --json counts the Vertex exchanges as Gemini and Anthropic model turns, with their tokens and cost at Gemini’s and Claude’s prices by model name', async () => {
    const result = await runMain(['report', tape, '--json'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as {
      coverage: { endpoints: Array<{ name: string; count: number }>; models: Array<{ name: string; count: number }> };
      totals: { tokens: { input: number; output: number; total: number }; costUsd: number; unpriced: string[]; unmetered: number };
    };
    const counted = (rows: Array<{ name: string; count: number }>) => Object.fromEntries(rows.map((row) => [row.name, row.count]));
    expect(counted(report.coverage.endpoints)).toEqual({ 'gemini-generate': 2, 'anthropic-messages': 1 });
    expect(counted(report.coverage.models)).toEqual({ 'gemini-2.5-flash': 2, [CLAUDE]: 1 });
    // Gemini: 6 + 9 and 5 + 3 tokens; Claude: 12 + 9.
    expect(report.totals.tokens).toMatchObject({ input: 6 + 5 + 12, output: 9 + 3 + 9 });
    expect(report.totals.unpriced).toEqual([]);
    expect(report.totals.unmetered).toBe(0);
    const gemini = ((6 + 5) * 0.3 + (9 + 3) * 2.5) / 1e6;
    const claude = (12 * 3 + 9 * 15) / 1e6;
    expect(report.totals.costUsd).toBeCloseTo(gemini + claude, 10);
  });
});
