/**
 * `modeltape/replay`: replay for tests. Open a tape in a test (`openTape`), hand its `fetch` or
 * base URL to the official SDKs (or `interceptProviders` for clients you cannot configure), and
 * prove what replay promises with the assertions and matchers. It also carries the replay engine
 * itself (strict lookup, the structural diff, miss explanations), from `replay/`.
 */
export * from '../replay/index.js';
export { openTape, EscapeError, unusedExchange, type TapeSession, type OpenTapeOptions, type SessionSummary, type UnusedExchange } from './open-tape.js';
export { interceptProviders, type ProviderInterception, type InterceptOptions } from './intercept-providers.js';
export { EscapeGuard, type Escape, type OutsideConnection } from './escape-guard.js';
export { REPLAY_PLACEHOLDER_KEY } from '../proxy/index.js';
export {
  ReplayAssertionError,
  assertNeverCalledUpstream,
  assertAllConsumed,
  assertNoDrift,
  assertReplayedStrictly,
  assertRenderedExactly,
  replayProblems,
  recordingNote,
  unusedTable,
  type ReplayEvidence,
} from './assertions.js';
export { modeltapeMatchers, type ModeltapeMatchers } from './matchers.js';
export { assertRenderedSnapshot, type RenderedSnapshotOptions, type RenderedSnapshotResult } from './rendered-snapshot.js';
export { tapeForCurrentTest, currentTest, safeFileName, testCommandAdvice, type CurrentTest, type TestCommandAdvice } from './test-context.js';
export { buildDriftReport, formatDriftReport, type DriftReport, type DriftItem, type DriftEndpoint, type DriftRequest } from './drift-report.js';
export { renderDriftHtml } from './drift-html.js';
