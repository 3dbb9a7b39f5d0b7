// A mutation: one recorded answer changed in one way, on its recorded bytes, so that a suite that
// replays the tape can be asked whether it notices. The operators that make them live in
// operators/, one file per wire API; `mutationsOf` (operators/index.ts) lists every mutation an
// exchange admits.
import type { RecordedResponse } from '../recordings/internal.js';

/**
 * The ways an answer is changed. Each is written per wire API (OpenAI chat and Responses,
 * Anthropic Messages, Gemini, Ollama) on the recorded JSON body or stream frames, so ids, usage
 * and the stream's grammar stay those of a real answer.
 */
export const MUTATION_OPERATORS = [
  /** The answer text says the opposite: a negation inserted or removed ("is" → "is not"). */
  'text-negated',
  /** The answer text is empty (the content string "", every text delta ""). */
  'text-emptied',
  /** A number in the answer text is another number (42 → 43). */
  'number-changed',
  /** One argument of one tool call has another value (a string changed, a number moved, a boolean flipped). */
  'tool-argument-changed',
  /** One tool call is gone (the finish reason stays a tool call's when others remain). */
  'tool-call-dropped',
  /** One tool call names another tool (one the request offered, when it offered another). */
  'tool-renamed',
  /** Parallel tool calls come in the reverse order. */
  'tool-calls-reordered',
  /** The answer stops for its length (`length`, `max_tokens`, `MAX_TOKENS`, `incomplete`). */
  'finish-length',
  /** The answer was filtered (`content_filter`, `SAFETY`, Anthropic's `refusal` stop reason). */
  'finish-content-filter',
  /** The model refused: OpenAI's `refusal` in place of the content, the others' refusal stop reason. */
  'refusal',
  /** A streamed answer loses its last event(s): it ends before its finish / [DONE] / message_stop. */
  'stream-truncated',
  /** Structured output (a JSON answer) lacks one of its fields. */
  'field-removed',
  /** Structured output has one field of another type (a number as a string, a string as a number…). */
  'field-retyped',
  /** The exchange is answered with the provider's own 429 rate-limit error. */
  'rate-limited',
  /** The exchange is answered with the provider's own 500. */
  'server-error',
  /** The exchange is answered with the provider's overloaded error (Anthropic's 529, the others' 503). */
  'overloaded',
  /** A streamed answer ends in the provider's own in-stream error event after its first frames. */
  'stream-error',
  /**
   * Azure OpenAI's content filter: the completion filtered (`finish_reason: "content_filter"`, the
   * choice's `content_filter_results` naming the category) or the prompt refused (the 400
   * `content_filter`). Azure OpenAI answers only.
   */
  'content-filtered',
] as const;
export type MutationOperator = (typeof MUTATION_OPERATORS)[number];

/** One change to one recorded answer. */
export interface Mutation {
  operator: MutationOperator;
  /**
   * Which of the operator's changes on this exchange, stable across runs: `""` when the operator
   * has one; otherwise e.g. `call 1` or `.city` — so `operator` + `variant` names it uniquely.
   */
  variant: string;
  /** What changed, in words, for the report: `text "Paris" → "not Paris"`, `get_weather's .city "Paris" → "Parisx"`. */
  description: string;
  /** The part of the answer that changed, before and after, as the report's diff shows it (text or compact JSON, one or more lines). */
  before: string;
  after: string;
  /** The response that replaces the recorded one: a complete RecordedResponse, valid for the tape schema. */
  response: RecordedResponse;
}
