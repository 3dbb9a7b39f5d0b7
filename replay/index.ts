/**
 * `modeltape/replay`: replay for tests. Open a tape in a test (`openTape`), hand its `fetch` or
 * base URLs to the official SDKs (or `interceptProviders` for clients you cannot configure), and
 * prove what replay promises with the assertions and matchers (see docs/replay.md).
 */
export { ModeltapeError, diffJson, formatDifferences, type Difference, type DiffOptions, type FormatOptions, type ErrorCode } from '../core/internal.js';
export {
  ReplayMissError,
  KeyRulesMismatchError,
  REPEAT_POLICIES,
  type RepeatPolicy,
  type NearestRecording,
  type KeyChange,
  type MissAdvice,
  type ReplayEngine,
  type ReplayEngineOptions,
  type ReplayEntry,
  type LookupResult,
} from '../lookup/internal.js';
export { ESCAPE_ROUTES, type EscapeRoute, type SessionReport, type ReportedTest } from '../guard/internal.js';
export {
  REPLAY_PLACEHOLDER_KEY,
  placeholderGoogleCredentials,
  type PlaceholderGoogleCredentials,
  MISS_POLICIES,
  MISSING_TAPE_POLICIES,
  type MissPolicy,
  type MissingTapePolicy,
} from '../proxy/internal.js';
export {
  buildDriftReport,
  formatDriftReport,
  renderDriftHtml,
  type DriftReport,
  type DriftItem,
  type DriftEndpoint,
  type DriftRequest,
} from '../drift-report/internal.js';
export { openTape, EscapeError, type TapeSession, type OpenTapeOptions, type SessionSummary, type UnusedExchange } from './open-tape.js';
export { interceptProviders, type ProviderInterception, type InterceptOptions } from './intercept-providers.js';
export { EscapeGuard, type Escape, type OutsideConnection } from './escape-guard.js';
export {
  ReplayAssertionError,
  assertNeverCalledUpstream,
  assertAllConsumed,
  assertNoDrift,
  assertReplayedStrictly,
  assertSurvivedChaos,
  assertRenderedExactly,
  replayProblems,
  type ReplayEvidence,
} from './assertions.js';
export { modeltapeMatchers, type ModeltapeMatchers, type MatcherResult } from './matchers.js';
export { assertRenderedSnapshot, type RenderedSnapshotOptions, type RenderedSnapshotResult } from './rendered-snapshot.js';
export { tapeForCurrentTest, currentTest, type CurrentTest, type TestContextLike } from './test-context.js';
export { safeFileName } from '../recordings/internal.js';
