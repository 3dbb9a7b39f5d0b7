/**
 * recheck/: sends what tapes recorded to an upstream again and sorts each fresh answer against its
 * recording (identical, equivalent, changed, regression), within a budget. Read by `modeltape recheck`.
 */
export { answerBehaviour, ResponseSchemas, type AnswerBehaviour, type StructuredOutput } from './answer-behaviour.js';
export { compareAnswers, VERDICTS, type Comparison, type Verdict } from './compare-answers.js';
export { recordedResponseOf, type FreshResponse } from './fresh-response.js';
export { selectExchanges, type SelectOptions, type Skipped, type TapeExchange } from './select-exchanges.js';
export {
  recheckExchanges,
  usdText,
  waitOf,
  type AnsweringModel,
  type CheckedExchange,
  type NotChecked,
  type PlannedExchange,
  type RecheckOptions,
  type RecheckReport,
} from './recheck-exchanges.js';
export { formatRecheckReport } from './format-recheck.js';
export { renderRecheckHtml } from './render-recheck-html.js';
export {
  ACCEPTABLE_VERDICTS,
  lineId,
  refreshTapes,
  refreshedExchange,
  type AcceptRules,
  type AcceptableVerdict,
  type FreshAnswer,
  type RefreshOptions,
  type RefreshedTape,
} from './refresh-tapes.js';
