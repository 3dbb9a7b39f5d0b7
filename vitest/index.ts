/**
 * `modeltape/vitest`: Vitest set up in one line. As a setup file (`setupFiles: ['modeltape/vitest']`
 * in vitest.config) it registers the replay matchers, typed: importing this entry anywhere in a
 * program adds them to Vitest's `Assertion`. `tapePerTest()` gives each test a tape of its own
 * (see docs/test-runners.md). The only file that imports `vitest`, an optional peer dependency.
 */
import { afterEach, beforeEach, expect } from 'vitest';
import { modeltapeMatchers, openTapePerTest, type ModeltapeMatchers, type TapePerTest, type TapePerTestOptions } from '../replay/internal.js';

export type { TapePerTest, TapePerTestOptions } from '../replay/internal.js';

expect.extend(modeltapeMatchers);

declare module 'vitest' {
  interface Assertion<T = any> extends ModeltapeMatchers<void> {}
  interface AsymmetricMatchersContaining extends ModeltapeMatchers<any> {}
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
  return openTapePerTest(
    {
      beforeEach: (open) => beforeEach(() => open()),
      // Vitest marks the test failed before its afterEach hooks run (a failing beforeEach too).
      afterEach: (close) => afterEach((context) => close(context.task.result?.state === 'pass')),
    },
    options,
  );
}
