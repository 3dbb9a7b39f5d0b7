import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { loadTape } from 'modeltape/recordings';
import { safeFileName } from 'modeltape/replay';
import { closeAfterEach } from '../support/close-after-each.js';
import { tempDir } from '../support/temp-dir.js';
import { binOf, runNode, userProject } from '../support/test-runner-project.js';

// A user's suite under Jest: the setup file in the config, one line for a tape per test, and the
// test file an ES module (modeltape is one), which Jest runs with Node's --experimental-vm-modules.
// Recording goes to the FakeProvider the test starts; SHIP_PROMPT and ASK_ONCE change what the
// replay sends, as an edited prompt or a removed call would.
const PROJECT = {
  'jest.config.json': `{ "testEnvironment": "node", "setupFilesAfterEnv": ["modeltape/jest"], "transform": {} }\n`,
  'checkout.test.js': `import OpenAI from 'openai';
import { REPLAY_PLACEHOLDER_KEY } from 'modeltape/replay';
import { tapePerTest } from 'modeltape/jest';

const tape = tapePerTest(process.env.FAKE_OPENAI_URL ? { upstreams: { openai: process.env.FAKE_OPENAI_URL } } : {});
const client = new OpenAI({ apiKey: process.env.OPENAI_API_KEY ?? REPLAY_PLACEHOLDER_KEY, fetch: tape.fetch, maxRetries: 0 });
const ask = async (content) => (await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }] })).choices[0].message.content;

test('answers where to ship', async () => {
  expect(await ask(process.env.SHIP_PROMPT ?? 'Where to?')).toBe('Ship to Paris.');
});

describe('the follow-up', () => {
  test('answers the next stop', async () => {
    expect(await ask('Where to?')).toBe('Ship to Paris.');
    if (process.env.ASK_ONCE !== '1') expect(await ask('And then?')).toBe('Then Lyon.');
    expect(tape.session).toHaveNoDrift();
  });
});
`,
};

const TAPES = {
  ship: join('__tapes__', 'checkout.test', `${safeFileName('answers where to ship')}.jsonl`),
  followUp: join('__tapes__', 'checkout.test', `${safeFileName('the follow-up answers the next stop')}.jsonl`),
};

interface JestReport {
  numPassedTests: number;
  numFailedTests: number;
  testResults: Array<{ assertionResults: Array<{ fullName: string; status: string; failureMessages: string[] }> }>;
}

async function jest(cwd: string, env: Record<string, string> = {}) {
  const run = await runNode(['--experimental-vm-modules', '--no-warnings', binOf('jest'), '--json'], { cwd, env });
  const report = JSON.parse(run.stdout) as JestReport;
  const results = new Map(report.testResults.flatMap((file) => file.assertionResults).map((result) => [result.fullName, result]));
  return { ...run, report, results };
}

describe('modeltape/jest in a real Jest run', () => {
  const dir = tempDir({ inProject: true });
  const started = closeAfterEach();

  // Records both tests' tapes in auto mode, from a fake that answers in the order they ask.
  const record = async () => {
    userProject(dir, PROJECT);
    const fake = new FakeProvider().willSay('Ship to Paris.').willSay('Ship to Paris.').willSay('Then Lyon.');
    const upstream = started(await fake.listen({ port: 0 }));
    const run = await jest(dir, { MODELTAPE_MODE: 'auto', FAKE_OPENAI_URL: upstream.url, OPENAI_API_KEY: 'fake-key' });
    await upstream.close();
    return { run, fake };
  };

  test('each test records its own tape in auto mode, then replays it strictly with the provider gone', { timeout: 120_000 }, async () => {
    const { run, fake } = await record();
    expect({ code: run.code, passed: run.report.numPassedTests }, run.stderr).toEqual({ code: 0, passed: 2 });
    expect(fake.asked()).toHaveLength(3);
    expect(loadTape(join(dir, TAPES.ship)).exchanges).toHaveLength(1);
    expect(loadTape(join(dir, TAPES.followUp)).exchanges).toHaveLength(2);
    // The strict check ran after each test, and passed as recording does, saying so.
    expect(run.stderr).toContain(`${TAPES.ship} (mode auto): recorded 1 exchange, replayed 0.`);
    expect(run.stderr).toContain(`${TAPES.followUp} (mode auto): recorded 2 exchanges, replayed 0.`);

    const tapes = Object.values(TAPES).map((tape) => readFileSync(join(dir, tape)));
    const replay = await jest(dir);
    expect({ code: replay.code, passed: replay.report.numPassedTests }, replay.stderr).toEqual({ code: 0, passed: 2 });
    expect(Object.values(TAPES).map((tape) => readFileSync(join(dir, tape)))).toEqual(tapes);
    expect(replay.stderr).not.toContain('(mode auto)');
  });

  test('a test that failed shows its own error alone; one that passed is still held to the strict check', { timeout: 120_000 }, async () => {
    await record();
    const replay = await jest(dir, { SHIP_PROMPT: 'Where to now?', ASK_ONCE: '1' });
    expect(replay.code).toBe(1);
    expect(replay.results.size).toBe(2);

    // The prompt changed: the miss fails the test, naming the command that records there, and the
    // strict check (which would list the same miss again) is skipped.
    const ship = replay.results.get('answers where to ship')!;
    expect(ship.status).toBe('failed');
    expect(ship.failureMessages).toHaveLength(1);
    expect(ship.failureMessages[0]).toContain('Failed to replay POST /openai/v1/chat/completions: no recorded exchange matches.');
    expect(ship.failureMessages[0]).toContain('at .messages[0].content: recorded "Where to?" sent "Where to now?"');
    expect(ship.failureMessages[0]).toContain('Record it with MODELTAPE_MODE=auto npx jest checkout.test.js (with a real key set)');
    expect(ship.failureMessages[0]).not.toContain('did not replay strictly');

    // A call was removed: the test's own assertions pass, and the strict check fails it.
    const followUp = replay.results.get('the follow-up answers the next stop')!;
    expect(followUp.status).toBe('failed');
    expect(followUp.failureMessages).toHaveLength(1);
    expect(followUp.failureMessages[0]).toContain(`Tape ${TAPES.followUp} did not replay strictly:`); // named relative to the runner's working directory
    expect(followUp.failureMessages[0]).toContain('1 recorded exchange was never used');
  });

  test('a test whose tape was never recorded fails once, naming the command that records it', { timeout: 120_000 }, async () => {
    userProject(dir, PROJECT);
    const replay = await jest(dir);
    expect(replay.code).toBe(1);
    expect(replay.report.numFailedTests).toBe(2);
    for (const result of replay.results.values()) {
      expect(result.failureMessages).toHaveLength(1);
      expect(result.failureMessages[0]).toContain('Record it with MODELTAPE_MODE=auto npx jest checkout.test.js (with a real key set), then commit the tape.');
    }
  });
});
