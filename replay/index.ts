/**
 * replay/: answers requests from a tape, strictly, and explains every miss with the nearest
 * recording and the first differing JSON paths.
 */
export { ReplayEngine, KeyRulesMismatchError, REPEAT_POLICIES, type KeyChange, type RepeatPolicy, type ReplayEntry, type LookupResult, type NearestRecording, type ReplayEngineOptions } from './replay-engine.js';
export { ReplayMissError, explainMiss, CLI_MISS_ADVICE, type MissAdvice } from './replay-miss.js';
export { diffJson, formatDifferences, formatDifference, describeStringChange, abbreviate, type Difference, type DiffOptions, type FormatOptions } from './json-diff.js';
export { providerErrorBody, providerPath, guessProviderFlavor, type ProviderFlavor } from './provider-error-body.js';
export { prepareResponse, type PreparedResponse } from './recorded-response.js';
