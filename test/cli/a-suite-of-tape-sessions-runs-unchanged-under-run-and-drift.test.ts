import { relative } from 'node:path';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { recordTape } from '../support/record-tape.js';
import { runMain } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

// A node:test file written the in-process way: its own tape, its client given the session's
// fetch and no base URL, so under `modeltape run` the client reads OPENAI_BASE_URL (the run's
// proxy) while its requests are the session's.
const SUITE = `import { test } from 'node:test';
import assert from 'node:assert';
import OpenAI from 'openai';
import { openTape, assertReplayedStrictly, REPLAY_PLACEHOLDER_KEY } from 'modeltape/replay';
test('asks the model', async () => {
  const session = await openTape(process.env.SUITE_TAPE, { config: false });
  try {
    const client = new OpenAI({ apiKey: process.env.OPENAI_API_KEY ?? REPLAY_PLACEHOLDER_KEY, fetch: session.fetch, maxRetries: 0 });
    const answer = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: process.env.SUITE_PROMPT ?? 'Ship to Paris' }] });
    assert.ok(answer.choices[0].message.content);
    assertReplayedStrictly(session);
  } finally {
    await session.close();
  }
});
`;

function runNode(
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number; timedOut: boolean }> {
  return new Promise((resolve) => {
    const started = performance.now();
    // As a developer's shell would be: no CI (the advice under CI says CI only replays).
    const child = spawn(process.execPath, args, { env: { ...process.env, CI: '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - started, timedOut });
    });
  });
}

describe('a suite of openTape sessions', () => {
  const dir = tempDir({ inProject: true });

  const setUp = async () => {
    const tape = `${dir}/suite.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      await new OpenAI({ apiKey: 'k', baseURL: openai, maxRetries: 0 }).chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'Ship to Paris' }],
      });
    });
    const suite = `${dir}/suite.test.mjs`;
    writeFileSync(suite, SUITE);
    return { tape, suite };
  };

  test('runs unchanged under modeltape run: its clients replay from their own tape, and the run counts that traffic', async () => {
    const { tape, suite } = await setUp();
    const result = await runMain(['run', '--', process.execPath, '--test', '--test-reporter=tap', suite], { env: { SUITE_TAPE: tape } });
    expect(result.stdout).toMatch(/# pass 1/);
    expect(result.stderr).toContain('1 tape session opened inside the command (openTape): 1 request');
    // Named relative to the working directory, as every path in a summary is.
    expect(result.stderr).toContain(`replay ${relative(process.cwd(), tape)}: 1 hit, 0 misses, 0 recorded`);
    expect(result.stderr).toContain('offline: guard. 1 request reached the tapes (1 answered), and no guarded process reached a provider.');
    expect(result.stderr).not.toContain('no request reached a tape');
    expect(result.code).toBe(0);
  });

  test('under modeltape drift, the drift inside the sessions is reported, with the tape it drifted from', async () => {
    const { tape, suite } = await setUp();
    const result = await runMain(['drift', '--json', '--', process.execPath, '--test', '--test-reporter=tap', suite], {
      env: { SUITE_TAPE: tape, SUITE_PROMPT: 'Ship to Lyon' },
    });
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as {
      totals: { requests: number; drifted: number };
      drifts: Array<{ tape?: string; differences: Array<{ path: string }> }>;
    };
    expect(report.totals).toMatchObject({ requests: 1, drifted: 1 });
    expect(report.drifts).toHaveLength(1);
    expect(report.drifts[0]!.tape).toBe(tape);
    expect(report.drifts[0]!.differences.map((difference) => difference.path)).toEqual(['.messages[0].content']);
  });

  test('a missing tape inside a node:test file says the command that records it there', async () => {
    const { suite } = await setUp();
    const result = await runNode(['--test', '--test-reporter=tap', suite], { SUITE_TAPE: `${dir}/never-recorded.jsonl` }, 20_000);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      `Tape ${dir}/never-recorded.jsonl does not exist. Record it with MODELTAPE_MODE=auto node --test ${suite.slice(suite.indexOf('test-output'))} (with a real key set), then commit the tape.`,
    );
  });

  test('a node:test file whose test fails before close() does not hang the runner', async () => {
    const { tape } = await setUp();
    const failing = `${dir}/fails-early.test.mjs`;
    writeFileSync(
      failing,
      `import { test } from 'node:test';
import OpenAI from 'openai';
import { openTape } from 'modeltape/replay';
test('fails before close', async () => {
  const session = await openTape(${JSON.stringify(tape)}, { config: false });
  await new OpenAI({ apiKey: 'k', baseURL: session.baseUrls.openai, maxRetries: 0 }).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Ship to Paris' }] });
  throw new Error('the test failed before session.close()');
});
`,
    );
    const result = await runNode(['--test', '--test-reporter=tap', failing], {}, 25_000);
    expect(result.timedOut).toBe(false);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('the test failed before session.close()');
  });
});
