// The barrel the CLI and the testkit import the tape report through.
export { FINISHES, answerFacts, type AnswerFacts, type Finish, type TokenCounts } from './answer-facts.js';
export { CONTENT_APIS, answerContent, type AnswerContent, type ContentToolCall } from './answer-content.js';
export { PRICES_AS_OF, PRICE_TABLE, costOf, priceOf, type FoundPrice, type ModelPrice, type PriceEntry, type PriceOverrides } from './prices.js';
export {
  STALE_POLICIES,
  addDate,
  ageLimitOf,
  tapeDatesOf,
  daysBetween,
  parseMaxAge,
  staleVerdict,
  staleness,
  type AgeLimit,
  type StalePolicy,
  type TapeDates,
} from './tape-age.js';
export {
  BEHAVIOURS,
  reportTapes,
  testLabel,
  usd,
  type Behaviour,
  type ReportOptions,
  type Seen,
  type TapeReport,
  type TapeSummary,
  type TokenTotals,
} from './tape-report.js';
export { formatTapeReport, renderTapeReportHtml } from './format-report.js';
export { type TapeTest } from './test-of-tape.js';
