/**
 * replay/ (internal barrel; the public entry `modeltape/replay` is index.ts): what the CLI needs
 * from the test-facing replay API besides its public names.
 */
export { openTape, EscapeError, unusedExchange, type TapeSession, type OpenTapeOptions, type SessionSummary, type UnusedExchange } from './open-tape.js';
export { EscapeGuard, type Escape, type OutsideConnection } from './escape-guard.js';
export { recordingNote, unusedTable, type ReplayEvidence } from './assertions.js';
export { tapeForCurrentTest, currentTest, safeFileName, testCommandAdvice, type CurrentTest, type TestCommandAdvice } from './test-context.js';
