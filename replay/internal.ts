/**
 * replay/ (internal barrel; the public entry `modeltape/replay` is index.ts): what the CLI needs
 * from the test-facing replay API besides its public names, and the runner-neutral tape per test
 * that `modeltape/vitest` and `modeltape/jest` wire to their runner's hooks.
 */
export * from './index.js';
export { unusedExchange } from './open-tape.js';
export { recordingNote, unusedTable } from './assertions.js';
export { testCommandAdvice, type TestCommandAdvice } from './test-context.js';
export { openTapePerTest, type EachTestHooks, type TapePerTest, type TapePerTestOptions } from './open-tape-per-test.js';
