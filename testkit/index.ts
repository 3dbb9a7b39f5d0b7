/**
 * `modeltape/testkit`: proofs for code on the runtime: crash scenarios at named points, policy
 * batteries, rechecks, render equivalence and tool-argument fuzzing (see docs/testkit.md); and for
 * any suite that replays tapes, tape mutation (`mutateSuite`, see docs/mutation.md) and the tape
 * report (`reportTapes`, see docs/report.md).
 */
export { ModeltapeError, type ErrorCode } from '../core/internal.js';
export {
  runScenario,
  crashAt,
  CRASH_POINTS,
  Approve,
  Reject,
  Leave,
  ScenarioViolationError,
  type Scenario,
  type Crash,
  type CrashPoint,
  type OperatorAnswer,
  type ScenarioResult,
  type ScenarioCall,
  type ScenarioCrash,
  type ScenarioRender,
} from './run-scenario.js';
export {
  checkPolicy,
  checkPolicyBattery,
  never,
  Refused,
  PolicyDisagreementError,
  type PolicyCase,
  type PolicyCaseResult,
  type PolicyReport,
  type WantedOutcome,
  type RequestFuzz,
  type CheckPolicy,
  type CheckPolicyBattery,
  type Never,
  type PolicyBatteryCheck,
  type PolicyBatteryOptions,
  type PolicyBatteryReport,
  type NeverReport,
} from './check-policy.js';
export { recheck, recheckDiffers, recheckEvaluations, RecheckError, type RecheckedEvaluation } from './recheck.js';
export { rendered, sameRenders, RenderMismatchError, type RenderComparison } from './render-equivalence.js';
export {
  fuzz,
  FUZZ_KEYWORDS,
  FuzzUnsupportedError,
  FuzzCheckError,
  type FuzzOptions,
  type Fuzz,
  type FuzzSchema,
  type InvalidCase,
  type FuzzCheckReport,
  type FuzzCheckTool,
} from './fuzz.js';
export {
  mutateSuite,
  mutationsOf,
  SuiteFailsOnTapesError,
  MUTATION_OPERATORS,
  MUTANT_OUTCOMES,
  formatMutationReport,
  renderMutationHtml,
  type MutateSuiteOptions,
  type Mutation,
  type MutationOperator,
  type MutantOutcome,
  type MutantResult,
  type MutationReport,
} from '../mutation/internal.js';
export {
  reportTapes,
  formatTapeReport,
  renderTapeReportHtml,
  parseMaxAge,
  BEHAVIOURS,
  PRICE_TABLE,
  PRICES_AS_OF,
  STALE_POLICIES,
  type AgeLimit,
  type Behaviour,
  type ModelPrice,
  type PriceEntry,
  type PriceOverrides,
  type ReportOptions,
  type Seen,
  type StalePolicy,
  type TapeReport,
  type TapeSummary,
  type TapeTest,
  type TokenCounts,
  type TokenTotals,
} from '../tape-report/internal.js';
