import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { loadTape } from 'modeltape/recordings';
import { safeFileName } from 'modeltape/replay';
import { closeAfterEach } from './close-after-each.js';
import { tempDir } from './temp-dir.js';
import { type Finished, userProject } from './test-runner-project.js';

/** One test's outcome, as the runner's JSON report gives it. */
export interface RunnerResult {
  fullName: string;
  status: string;
  failureMessages: string[];
}

/** What a runner's JSON report holds (Vitest's `--reporter=json` and Jest's `--json` agree on these). */
export interface RunnerReport {
  numPassedTests: number;
  numFailedTests: number;
  testResults: Array<{ assertionResults: RunnerResult[] }>;
}

/** A test runner with modeltape's entry for it set up, as a user's project has it. */
export interface TapePerTestRunner {
  /** The describe block's title. */
  title: string;
  /** The user's project: the runner's config and `checkout.test.*`, whose two tests are `answers where to ship` and `the follow-up` › `answers the next stop`. */
  project: Record<string, string>;
  /** How the runner joins a describe block's title and its test's into the name the tape is filed under. */
  followUpTitle: string;
  /** The command a miss names to record the test file again. */
  recordCommand: string;
  /** Runs the runner in `cwd` with `env`, reading its JSON report. */
  run(cwd: string, env?: Record<string, string>): Promise<Finished & { report: RunnerReport }>;
}

/**
 * A user's suite under a real runner: the setup file in the config, one line for a tape per test.
 * Recording goes to the FakeProvider the scenario starts; SHIP_PROMPT and ASK_ONCE change what the
 * replay sends, as an edited prompt or a removed call would. The same three tests for every runner.
 */
export function describeTapePerTest(runner: TapePerTestRunner): void {
  const tapes = {
    ship: join('__tapes__', 'checkout.test', `${safeFileName('answers where to ship')}.jsonl`),
    followUp: join('__tapes__', 'checkout.test', `${safeFileName(runner.followUpTitle)}.jsonl`),
  };
  const run = async (cwd: string, env: Record<string, string> = {}) => {
    const finished = await runner.run(cwd, env);
    const results = new Map(finished.report.testResults.flatMap((file) => file.assertionResults).map((result) => [result.fullName, result]));
    return { ...finished, results };
  };

  describe(runner.title, () => {
    const dir = tempDir({ inProject: true });
    const started = closeAfterEach();

    // Records both tests' tapes in auto mode, from a fake that answers in the order they ask.
    const record = async () => {
      userProject(dir, runner.project);
      const fake = new FakeProvider().willSay('Ship to Paris.').willSay('Ship to Paris.').willSay('Then Lyon.');
      const upstream = started(await fake.listen({ port: 0 }));
      const recorded = await run(dir, { MODELTAPE_MODE: 'auto', FAKE_OPENAI_URL: upstream.url, OPENAI_API_KEY: 'fake-key' });
      await upstream.close();
      return { recorded, fake };
    };

    test('each test records its own tape in auto mode, then replays it strictly with the provider gone', { timeout: 120_000 }, async () => {
      const { recorded, fake } = await record();
      expect({ code: recorded.code, passed: recorded.report.numPassedTests }, recorded.stderr).toEqual({ code: 0, passed: 2 });
      expect(fake.asked()).toHaveLength(3);
      expect(loadTape(join(dir, tapes.ship)).exchanges).toHaveLength(1);
      expect(loadTape(join(dir, tapes.followUp)).exchanges).toHaveLength(2);
      // The strict check ran after each test, and passed as recording does, saying so.
      expect(recorded.stderr).toContain(`${tapes.ship} (mode auto): recorded 1 exchange, replayed 0.`);
      expect(recorded.stderr).toContain(`${tapes.followUp} (mode auto): recorded 2 exchanges, replayed 0.`);

      const bytes = Object.values(tapes).map((tape) => readFileSync(join(dir, tape)));
      const replay = await run(dir);
      expect({ code: replay.code, passed: replay.report.numPassedTests }, replay.stderr).toEqual({ code: 0, passed: 2 });
      expect(Object.values(tapes).map((tape) => readFileSync(join(dir, tape)))).toEqual(bytes);
      expect(replay.stderr).not.toContain('(mode auto)');
    });

    test('a test that failed shows its own error alone; one that passed is still held to the strict check', { timeout: 120_000 }, async () => {
      await record();
      const replay = await run(dir, { SHIP_PROMPT: 'Where to now?', ASK_ONCE: '1' });
      expect(replay.code).toBe(1);
      expect(replay.results.size).toBe(2);

      // The prompt changed: the miss fails the test, naming the command that records there, and the
      // strict check (which would list the same miss again) is skipped.
      const ship = replay.results.get('answers where to ship')!;
      expect(ship.status).toBe('failed');
      expect(ship.failureMessages).toHaveLength(1);
      expect(ship.failureMessages[0]).toContain('Failed to replay POST /openai/v1/chat/completions: no recorded exchange matches.');
      expect(ship.failureMessages[0]).toContain('at .messages[0].content: recorded "Where to?" sent "Where to now?"');
      expect(ship.failureMessages[0]).toContain(`Record it with ${runner.recordCommand} (with a real key set)`);
      expect(ship.failureMessages[0]).not.toContain('did not replay strictly');

      // A call was removed: the test's own assertions pass, and the strict check fails it.
      const followUp = replay.results.get('the follow-up answers the next stop')!;
      expect(followUp.status).toBe('failed');
      expect(followUp.failureMessages).toHaveLength(1);
      expect(followUp.failureMessages[0]).toContain(`Tape ${tapes.followUp} did not replay strictly:`); // named relative to the runner's working directory
      expect(followUp.failureMessages[0]).toContain('1 recorded exchange was never used');
    });

    test('a test whose tape was never recorded fails once, naming the command that records it', { timeout: 120_000 }, async () => {
      userProject(dir, runner.project);
      const replay = await run(dir);
      expect(replay.code).toBe(1);
      expect(replay.report.numFailedTests).toBe(2);
      for (const result of replay.results.values()) {
        expect(result.failureMessages).toHaveLength(1);
        expect(result.failureMessages[0]).toContain(`Record it with ${runner.recordCommand} (with a real key set), then commit the tape.`);
      }
    });
  });
}
