import { ModeltapeError } from '../core/internal.js';
import { assertReplayedStrictly } from './assertions.js';
import { openTape, type OpenTapeOptions, type TapeSession } from './open-tape.js';
import { tapeForCurrentTest, type TestContextLike } from './test-context.js';

/** Options of `tapePerTest()` (`modeltape/vitest`, `modeltape/jest`): every {@link OpenTapeOptions}, and where the tapes go. */
export interface TapePerTestOptions extends OpenTapeOptions {
  /**
   * The folder of the tapes, one per test named after it (see `tapeForCurrentTest`).
   * @default `<test dir>/__tapes__/<test file name without its extension>`
   */
  dir?: string;
  /**
   * After each test that passed, assert that its tape replayed strictly (`assertReplayedStrictly`:
   * no miss, nothing upstream, every recording used; while recording it passes and says what was
   * recorded). `false` only opens and closes the tapes.
   * @default true
   */
  strict?: boolean;
}

/**
 * The tape of the test that is running, opened before it and closed after it. Read it inside the
 * test (or in a `beforeEach` registered after `tapePerTest()`); outside one it throws
 * `no_current_test`.
 */
export interface TapePerTest {
  /**
   * The running test's `session.fetch`, for the SDKs' `fetch` option. The same function for every
   * test, so a client built once in the file reaches each test's own tape.
   */
  readonly fetch: TapeSession['fetch'];
  /** The running test's `session.baseUrls`: a new port for each test, so read them inside it. */
  readonly baseUrls: TapeSession['baseUrls'];
  /** The running test's session: its summary, its unused recordings, the matchers' subject. */
  readonly session: TapeSession;
}

/** What `tapePerTest` needs of a test runner: code run around each test. */
export interface EachTestHooks {
  /** `test`: the test about to run, for a runner that keeps no current test to read (node:test's context). */
  beforeEach(open: (test?: TestContextLike) => Promise<void>): void;
  /** `passed`: whether the test, and the hooks run before it, passed. */
  afterEach(close: (passed: boolean) => Promise<void>): void;
}

/**
 * Registers, in the runner's scope where it is called (a file or a describe block), a tape opened
 * before each test (`openTape(tapeForCurrentTest({ dir }), options)`) and closed after it. After a
 * test that passed, the tape is asserted to have replayed strictly; after one that failed the
 * check is skipped, since the test's own error says what went wrong and a second one about the
 * same requests would only bury it. The tape is closed either way, and an escape found on closing
 * (`EscapeError`) is always reported: a request that tried to leave the machine is never hidden.
 */
export function openTapePerTest(hooks: EachTestHooks, options: TapePerTestOptions = {}): TapePerTest {
  const { dir, strict = true, ...openOptions } = options;
  let current: TapeSession | undefined;
  const session = (what: string): TapeSession => {
    if (current !== undefined) return current;
    throw new ModeltapeError(
      'no_current_test',
      `tapePerTest() has no tape open for ${what}: it opens one before each test and closes it after, so use it inside a test (or a beforeEach registered after tapePerTest()). Tests run concurrently get no beforeEach: give each its own openTape(tapeForCurrentTest()).`,
    );
  };

  hooks.beforeEach(async (test) => {
    if (current !== undefined) {
      throw new ModeltapeError(
        'concurrent_tape_per_test',
        `tapePerTest() was asked for a tape while ${current.file} is still open: tests running at once (test.concurrent) cannot share one. Give each its own openTape(tapeForCurrentTest()).`,
      );
    }
    const forTest = test === undefined ? {} : { test };
    current = await openTape(tapeForCurrentTest({ ...(dir === undefined ? {} : { dir }), ...forTest }), { ...openOptions, ...forTest });
  });
  hooks.afterEach(async (passed) => {
    const closing = current;
    current = undefined;
    // The tape never opened (a beforeEach failed, or it is missing): that error is the test's.
    if (closing === undefined) return;
    let strictError: unknown;
    if (passed && strict) {
      try {
        assertReplayedStrictly(closing);
      } catch (error) {
        strictError = error;
      }
    }
    // Closed whatever happened, so the tape is flushed and the guard stopped before the next test.
    let closeError: unknown;
    try {
      await closing.close();
    } catch (error) {
      closeError = error;
    }
    // The strict check lists escapes too: one error, the fuller one.
    if (strictError !== undefined) throw strictError;
    if (closeError !== undefined) throw closeError;
  });

  return {
    fetch: (input, init) => {
      try {
        return session('fetch').fetch(input, init);
      } catch (error) {
        return Promise.reject(error);
      }
    },
    get baseUrls() {
      return session('baseUrls').baseUrls;
    },
    get session() {
      return session('session');
    },
  };
}
