/**
 * lookup/: the replay engine, internal. Finds the recorded answer for a request (by key, then
 * ordinal among repeats), keeps count of what was consumed, indexes a route for the nearest
 * recording, explains a miss with the first differing JSON paths, and prepares a recorded
 * response to be served. The proxy, the FakeProvider and `modeltape/replay` all decide through it.
 */
export {
  ReplayEngine,
  KeyRulesMismatchError,
  REPEAT_POLICIES,
  type KeyChange,
  type RepeatPolicy,
  type ReplayEntry,
  type LookupResult,
  type NearestRecording,
  type ReplayEngineOptions,
} from './replay-engine.js';
export { ReplayMissError, explainMiss, CLI_MISS_ADVICE, ciRecordAdvice, type MissAdvice } from './replay-miss.js';
export { prepareResponse, type PreparedResponse } from './recorded-response.js';
