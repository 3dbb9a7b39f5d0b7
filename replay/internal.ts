/**
 * replay/ (internal barrel; the public entry `modeltape/replay` is index.ts): what the CLI needs
 * from the test-facing replay API besides its public names.
 */
export * from './index.js';
export { unusedExchange } from './open-tape.js';
export { recordingNote, unusedTable } from './assertions.js';
export { testCommandAdvice, type TestCommandAdvice } from './test-context.js';
