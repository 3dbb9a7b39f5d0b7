import type { AskedTurn, TurnApi } from '../providers/internal.js';

/** A tool call in an answer. `arguments` is the object the tool receives. */
export interface ToolCallAnswer {
  name: string;
  arguments: unknown;
  /** @default a fake id such as `fake-call-0` */
  id?: string;
}

/** What a turn answers, before any wire format. */
export type Answer = { kind: 'text'; text: string } | { kind: 'tool-calls'; calls: ToolCallAnswer[]; text?: string } | { kind: 'structured'; value: unknown };

/**
 * How a turn ends, in words that hold for every provider:
 * - `stop`: the model finished (the default; a tool call ends as a tool call);
 * - `length`: it hit the token limit (OpenAI chat `length`, Responses and Realtime `incomplete` with
 *   `max_output_tokens`, Anthropic and Bedrock Converse `max_tokens`, Gemini `MAX_TOKENS`, Ollama `done_reason: "length"`);
 * - `content-filter`: a filter cut it, the text is what came before the cut (OpenAI chat
 *   `content_filter`, Responses and Realtime `incomplete` with `content_filter`, Gemini `SAFETY` with the
 *   candidate's `safetyRatings`, one of them `blocked`; Bedrock Converse `content_filtered`, or
 *   `guardrail_intervened` when scripted so; Anthropic has none: it refuses);
 * - `refusal`: the model refused, the text is the refusal (OpenAI chat `message.refusal` with
 *   `finish_reason: "stop"`, a Responses `refusal` content part, Anthropic `refusal`). Gemini
 *   has no refusal text: it blocks the prompt (`promptFeedback.blockReason: "SAFETY"` and no
 *   candidates), and the text is not sent;
 * - `stop-sequence`: it stopped at one of the request's stop sequences (OpenAI chat `stop`,
 *   Anthropic and Bedrock Converse `stop_sequence`, Gemini `STOP`, Ollama `done_reason: "stop"`; Responses has no
 *   stop sequences);
 * - `pause-turn`: Anthropic paused a long turn (`pause_turn`).
 */
export const NEUTRAL_FINISHES = ['stop', 'length', 'content-filter', 'refusal', 'stop-sequence', 'pause-turn'] as const;
export type NeutralFinish = (typeof NEUTRAL_FINISHES)[number];

/** Gemini's own finish names, each on the wire as written. */
const GEMINI_FINISHES = ['MAX_TOKENS', 'SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'MALFORMED_FUNCTION_CALL'] as const;

/** Bedrock Converse's own stop reasons for a filtered answer: its content filter, and a guardrail. */
const BEDROCK_FINISHES = ['content_filtered', 'guardrail_intervened'] as const;

/**
 * The providers' own spellings, accepted where their API uses them. Gemini's are its
 * `finishReason` values: `RECITATION`, `BLOCKLIST`, `PROHIBITED_CONTENT`, `SPII` and
 * `MALFORMED_FUNCTION_CALL` have no neutral name of their own and end a turn as `content-filter`
 * does (the text is what came before the cut, not held to a schema), under their own name.
 */
export const PROVIDER_FINISHES = [
  'content_filter',
  'max_output_tokens',
  'max_tokens',
  'end_turn',
  'stop_sequence',
  'pause_turn',
  ...GEMINI_FINISHES,
  ...BEDROCK_FINISHES,
] as const;
export type ProviderFinish = (typeof PROVIDER_FINISHES)[number];

const PROVIDER_SPELLINGS: Record<ProviderFinish, NeutralFinish> = {
  content_filter: 'content-filter',
  max_output_tokens: 'length',
  max_tokens: 'length',
  end_turn: 'stop',
  stop_sequence: 'stop-sequence',
  pause_turn: 'pause-turn',
  MAX_TOKENS: 'length',
  SAFETY: 'content-filter',
  RECITATION: 'content-filter',
  BLOCKLIST: 'content-filter',
  PROHIBITED_CONTENT: 'content-filter',
  SPII: 'content-filter',
  MALFORMED_FUNCTION_CALL: 'content-filter',
  content_filtered: 'content-filter',
  guardrail_intervened: 'content-filter',
};

/** Every name `finish` accepts: the neutral ones, then the providers' own. */
export const FINISH_REASONS = [...NEUTRAL_FINISHES, ...PROVIDER_FINISHES] as const;
export type FinishReason = NeutralFinish | ProviderFinish;

/** Which finishes each API can end a turn with, in the names a user may write for it (an API not listed: `stop` only). */
export const FINISHES_BY_API: Partial<Record<TurnApi, readonly FinishReason[]>> = {
  'openai-chat': ['stop', 'length', 'content-filter', 'refusal', 'stop-sequence', 'content_filter'],
  'openai-responses': ['stop', 'length', 'content-filter', 'refusal', 'max_output_tokens', 'content_filter'],
  'anthropic-messages': ['stop', 'length', 'refusal', 'stop-sequence', 'pause-turn', 'end_turn', 'max_tokens', 'stop_sequence', 'pause_turn'],
  'gemini-generate': ['stop', 'length', 'content-filter', 'refusal', 'stop-sequence', ...GEMINI_FINISHES],
  'ollama-chat': ['stop', 'length', 'stop-sequence'],
  'ollama-generate': ['stop', 'length', 'stop-sequence'],
  'openai-realtime': ['stop', 'length', 'content-filter', 'max_output_tokens', 'content_filter'],
  'bedrock-converse': [
    'stop',
    'length',
    'content-filter',
    'stop-sequence',
    'end_turn',
    'max_tokens',
    'stop_sequence',
    'content_filtered',
    'guardrail_intervened',
  ],
};

/** A finish resolved for one request: the neutral name, the name as scripted, and the stop sequence hit, if any. */
export interface ResolvedFinish {
  reason: NeutralFinish;
  /** The name the step was scripted with (a provider's own, such as Gemini's `RECITATION`, where one was written). */
  scripted: FinishReason;
  stopSequence?: string;
}

/** The neutral name of `finish` when `api` can end a turn that way, else undefined. */
export function finishFor(api: TurnApi, finish: FinishReason): NeutralFinish | undefined {
  if (!finishesOf(api).includes(finish)) return undefined;
  return finish in PROVIDER_SPELLINGS ? PROVIDER_SPELLINGS[finish as ProviderFinish] : (finish as NeutralFinish);
}

/** The finishes `api` accepts, in the names a user may write. */
export function finishesOf(api: TurnApi): readonly FinishReason[] {
  return FINISHES_BY_API[api] ?? ['stop'];
}

/**
 * The fake's thinking text for a turn, the same on every API that shows thoughts (Anthropic
 * thinking blocks, Gemini thought parts, Ollama `thinking`): what it is about to answer, saying
 * it is fake.
 */
export function fakeThought(turn: AskedTurn, answer: Answer): string {
  const plan =
    answer.kind === 'tool-calls'
      ? `I will call ${answer.calls.map((call) => call.name).join(', ')}.`
      : answer.kind === 'structured'
        ? 'I will answer with the requested JSON.'
        : 'I will answer in text.';
  return `Thinking (modeltape FakeProvider, call ${turn.index}): ${plan}`;
}
