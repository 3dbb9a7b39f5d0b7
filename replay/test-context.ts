import { basename, dirname, extname, join } from 'node:path';
import { ModeltapeError, displayPath } from '../core/internal.js';
import { ciRecordAdvice } from '../lookup/internal.js';
import { safeFileName, TEST_TAPES_FOLDER } from '../recordings/internal.js';

/** The running test, as Vitest's and Jest's `expect.getState()` tell it. */
export interface CurrentTest {
  /** e.g. `checkout > pays with a card` (Vitest) or `checkout pays with a card` (Jest). */
  name: string;
  /** The test file. */
  file: string;
}

/**
 * The test a session serves where the runner keeps no current test to read: a node:test test's
 * context (`t`, given to the test and to its `beforeEach`), or the same fields by hand.
 */
export interface TestContextLike {
  /** The test's own name (`t.name`). */
  name: string;
  /** Its name after those of its suites, joined by ` > ` (`t.fullName`, Node 20.16 and later). */
  fullName?: string;
  /** The test file (`t.filePath`, Node 22.6 and later; else the file node:test runs in this process). */
  filePath?: string;
}

/** The running Vitest or Jest test, or undefined outside one. */
export function currentTest(): CurrentTest | undefined {
  const state = expectState();
  if (!state?.currentTestName || !state.testPath || betweenVitestTests()) return undefined;
  return { name: state.currentTestName, file: state.testPath };
}

// Vitest leaves the last test's name in expect's state after it ends: in a later file's beforeAll
// under `isolate: false` it names a test of another file. Its worker's state says what runs now (a
// test, or the suite or file around one); where it is not found (Jest), the name is taken as is.
function betweenVitestTests(): boolean {
  const worker = (globalThis as { __vitest_worker__?: { current?: { type?: string } } }).__vitest_worker__;
  return worker !== undefined && 'current' in worker && worker.current?.type !== 'test';
}

/** The Vitest or Jest test file running (inside a test or around one: a `beforeAll`), or undefined. */
export function currentTestFile(): string | undefined {
  return expectState()?.testPath || undefined;
}

function expectState(): { currentTestName?: string; testPath?: string } | undefined {
  // Jest (and Vitest with globals) put `expect` on globalThis; Vitest always keeps its global
  // expect under Symbol.for('expect-global').
  type ExpectLike = { getState?: () => { currentTestName?: string; testPath?: string } };
  const holder = globalThis as unknown as Record<string | symbol, ExpectLike | undefined>;
  return (holder.expect ?? holder[Symbol.for('expect-global')])?.getState?.();
}

/**
 * The test file node:test runs in this process: `node --test` runs each file in a process of its
 * own (NODE_TEST_CONTEXT=child…) as its main module, once node:test is loaded. A process the test
 * started has the variable but not node:test, so it is none.
 */
export function nodeTestFile(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  if (!env.NODE_TEST_CONTEXT?.startsWith('child')) return undefined;
  const loaded = (process as unknown as { moduleLoadList?: readonly string[] }).moduleLoadList;
  if (!loaded?.includes('NativeModule internal/test_runner/harness')) return undefined;
  return process.argv[1];
}

/** A node:test context as the test it names: its full name, and its file. */
export function testOfContext(test: TestContextLike): CurrentTest | undefined {
  const file = test.filePath ?? process.argv[1];
  return file === undefined ? undefined : { name: test.fullName ?? test.name, file };
}

/** The test runner this process is a worker of, told by the variables each sets in its workers (the innermost first). */
export function currentRunner(env: Readonly<Record<string, string | undefined>> = process.env): 'vitest' | 'jest' | 'node:test' | undefined {
  // A node:test or Jest process started from a Vitest test inherits VITEST.
  if (env.NODE_TEST_CONTEXT) return 'node:test';
  if (env.JEST_WORKER_ID) return 'jest';
  if (env.VITEST) return 'vitest';
  return undefined;
}

/**
 * A tape path named after the running test, so each recording maps back to its test:
 * `<test dir>/__tapes__/<test file>/<test name>.jsonl` (or under `dir`). Works in Vitest and Jest
 * (it reads `expect.getState()`); with `node:test`, pass the test's context (`{ test: t }`) or a name.
 *
 * @example const session = await openTape(tapeForCurrentTest());
 */
export function tapeForCurrentTest(options: { dir?: string; name?: string; test?: TestContextLike } = {}): string {
  const test = options.test === undefined ? currentTest() : testOfContext(options.test);
  const name = options.name ?? test?.name;
  if (name === undefined) {
    throw new ModeltapeError(
      'no_current_test',
      'tapeForCurrentTest() found no running Vitest or Jest test (expect.getState() has no test name). Call it inside a test, pass a node:test context ({ test: t }), or pass { name }.',
    );
  }
  const base = options.dir ?? (test ? join(dirname(test.file), TEST_TAPES_FOLDER, basename(test.file, extname(test.file))) : TEST_TAPES_FOLDER);
  // Relative to the working directory when inside it: every message and summary names the tape so.
  return displayPath(join(base, `${safeFileName(name)}.jsonl`));
}

/** How to record from where a session was opened, for its errors to say. */
export interface TestCommandAdvice {
  /** Completes "Record it with …": the variable and the command, e.g. `MODELTAPE_MODE=auto npx vitest run test/chat.test.ts (with a real key set)`. */
  record: string;
  /** The environment says CI, which only replays (the advice then says to record elsewhere). */
  ci: boolean;
  /** The whole advice for a tape that does not exist yet. */
  recordTape: string;
}

/**
 * The command that records from inside a test: the runner (Vitest, Jest or node:test, told by
 * the variables each sets in its workers) and the test file, with `MODELTAPE_MODE=auto` in
 * front — or, under `modeltape run`, the run's own `--mode auto`, since sessions follow the run.
 */
export function testCommandAdvice(where: { underRun: boolean; ci: boolean; env?: Readonly<Record<string, string | undefined>> }): TestCommandAdvice {
  const env = where.env ?? process.env;
  // Which test opens the session is read now; the words only when a miss or a missing tape asks for them.
  const test = currentTest();
  const script = process.argv[1];
  const cwd = process.cwd();
  let record: string | undefined;
  const recordOf = (): string => {
    if (record !== undefined) return record;
    const file = test ? displayPath(test.file, cwd) : script !== undefined ? displayPath(script, cwd) : undefined;
    let command: string;
    // The innermost runner first: a node:test or Jest process started from a Vitest test inherits
    // VITEST. (The runner's variables stay as it set them for the life of its worker.)
    if (env.NODE_TEST_CONTEXT) command = `node --test${file ? ` ${file}` : ''}`;
    else if (env.JEST_WORKER_ID) command = `npx jest${file ? ` ${file}` : ''}`;
    else if (env.VITEST) command = `npx vitest run${file ? ` ${file}` : ''}`;
    else command = '<your test command>';
    record = where.underRun
      ? 'modeltape run --mode auto -- <the same command> (with a real key set; sessions inside a run follow its mode)'
      : `MODELTAPE_MODE=auto ${command} (with a real key set)`;
    return record;
  };
  return {
    get record() {
      return recordOf();
    },
    ci: where.ci,
    get recordTape() {
      return where.ci ? ciRecordAdvice(recordOf()) : `Record it with ${recordOf()}, then commit the tape.`;
    },
  };
}
