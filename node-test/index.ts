/**
 * `modeltape/node-test`: a tape for each test of Node's own test runner. node:test keeps no
 * current test to read, so `tapePerTest()` registers node:test's `beforeEach` and `afterEach`,
 * which are handed the test's context: its name names the tape, and its session knows which test
 * it serves (for `modeltape mutate --selective`). node:test has no `expect` to extend: assert with
 * the functions of `modeltape/replay` (`assertReplayedStrictly(tape.session)`). See
 * docs/test-runners.md.
 */
import { afterEach, beforeEach } from 'node:test';
import { openTapePerTest, type TapePerTest, type TapePerTestOptions } from '../replay/internal.js';

export type { TapePerTest, TapePerTestOptions } from '../replay/internal.js';

/**
 * A tape for each test of the file or `describe` block it is called in:
 * `tapeForCurrentTest({ test: t })` opened before the test (with `options`, as `openTape` takes
 * them), asserted to have replayed strictly after it passed, and closed after it either way. A test
 * that failed is not checked again: its own error is the one to read. Tests in a file run one at
 * a time (node:test's default); tests run concurrently cannot share it.
 *
 * @example
 * ```ts no-run
 * import { test } from 'node:test';
 * import { tapePerTest } from 'modeltape/node-test';
 * const tape = tapePerTest();
 * test('checkout answers', async () => {
 *   const client = new OpenAI({ apiKey: process.env.OPENAI_API_KEY ?? REPLAY_PLACEHOLDER_KEY, fetch: tape.fetch });
 *   assert.match(await runCheckout(client), /Paris/);
 * }); // then: replayed strictly, closed
 * ```
 */
export function tapePerTest(options: TapePerTestOptions = {}): TapePerTest {
  return openTapePerTest(
    {
      beforeEach: (open) => beforeEach((context) => open(context)),
      // `passed` is false once the test, or a beforeEach of it, failed.
      afterEach: (close) => afterEach((context) => close((context as { passed?: boolean }).passed !== false)),
    },
    options,
  );
}
