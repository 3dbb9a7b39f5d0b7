/**
 * Internal barrel: what other parts import (the public entry `modeltape/testkit` is index.ts).
 * testkit/ (`modeltape/testkit`): tests a team writes for its own tools, policy and agent on the
 * runtime: the crash harness at named points and its invariants, and policy conformance.
 */
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
  type InvalidCase,
  type FuzzCheckReport,
  type FuzzCheckTool,
} from './fuzz.js';
