/**
 * `modeltape/jest`: Jest set up in one line. As a setup file (`setupFilesAfterEnv: ['modeltape/jest']`
 * in the Jest config) it registers the replay matchers, typed: importing this entry anywhere in a
 * program adds them to the `Matchers` of `expect` (what `@jest/globals` uses) and of `@types/jest`'s
 * global `jest` namespace. `tapePerTest()` gives each test a tape of its own (see
 * docs/test-runners.md). It reaches Jest through the globals Jest gives every file it runs
 * (`expect`, `beforeEach`, `afterEach`), so it imports no Jest package: `jest` is an optional peer
 * dependency, and outside Jest this entry registers nothing.
 */
import { ModeltapeError, modeltapeMatchers, openTapePerTest, type ModeltapeMatchers, type TapePerTest, type TapePerTestOptions } from '../replay/internal.js';

// A module is augmented only once it is in the program: this brings `expect` in (and is erased from
// the output). A user's program has it through @jest/globals or @types/jest.
import type {} from 'expect';

export type { TapePerTest, TapePerTestOptions } from '../replay/internal.js';

jestGlobals()?.expect.extend(modeltapeMatchers);

declare module 'expect' {
  interface Matchers<R extends void | Promise<void>, T = unknown> extends ModeltapeMatchers<R> {}
  interface AsymmetricMatchers extends ModeltapeMatchers<void> {}
}

declare global {
  namespace jest {
    interface Matchers<R, T = {}> extends ModeltapeMatchers<R> {}
    interface Expect extends ModeltapeMatchers<any> {}
  }
}

/**
 * A tape for each test of the file or describe block it is called in: `tapeForCurrentTest()`
 * opened before the test (with `options`, as `openTape` takes them), asserted to have replayed
 * strictly after it passed, and closed after it either way. A test that failed is not checked
 * again: its own error is the one to read.
 *
 * @example
 * ```ts no-run
 * const tape = tapePerTest();
 * test('checkout answers', async () => {
 *   const client = new OpenAI({ apiKey: process.env.OPENAI_API_KEY ?? REPLAY_PLACEHOLDER_KEY, fetch: tape.fetch });
 *   expect(await runCheckout(client)).toContain('Paris');
 * }); // then: replayed strictly, closed
 * ```
 */
export function tapePerTest(options: TapePerTestOptions = {}): TapePerTest {
  const jest = jestGlobals();
  if (jest === undefined) {
    throw new ModeltapeError(
      'no_current_test',
      'tapePerTest() from modeltape/jest found no Jest here (no global expect, beforeEach and afterEach): call it in a test file Jest runs, with its globals injected (the default). Under Vitest, import it from modeltape/vitest.',
    );
  }
  return openTapePerTest(
    {
      beforeEach: (open) => jest.beforeEach(() => open()),
      afterEach: (close) => jest.afterEach(() => close(!runningTestFailed())),
    },
    options,
  );
}

/** The globals Jest gives each file it runs, as far as this entry uses them. */
interface JestGlobals {
  expect: { extend(matchers: typeof modeltapeMatchers): void };
  beforeEach(hook: () => Promise<void>): void;
  afterEach(hook: () => Promise<void>): void;
}

function jestGlobals(): JestGlobals | undefined {
  const globals = globalThis as unknown as Partial<JestGlobals>;
  if (typeof globals.expect?.extend !== 'function' || typeof globals.beforeEach !== 'function' || typeof globals.afterEach !== 'function') return undefined;
  return globals as JestGlobals;
}

// Jest hands an afterEach hook nothing about the test. jest-circus keeps the running test, with the
// errors it has met so far (its own and its beforeEach hooks'), in its state on the global, under
// a symbol of its own module; found by the symbol's description. Where it is not found (another
// test runner, a Jest that changed it) the test counts as passed, so the strict check still runs.
function runningTestFailed(): boolean {
  const holder = globalThis as unknown as Record<symbol, { currentlyRunningTest?: { errors?: unknown[] } | null } | undefined>;
  const key = Object.getOwnPropertySymbols(globalThis).find((symbol) => symbol.description === 'JEST_STATE_SYMBOL');
  const errors = key === undefined ? undefined : holder[key]?.currentlyRunningTest?.errors;
  return Array.isArray(errors) && errors.length > 0;
}
