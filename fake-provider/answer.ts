import type { TurnApi } from '../providers/internal.js';

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
 * - `length`: it hit the token limit (OpenAI chat `length`, Responses `incomplete` with
 *   `max_output_tokens`, Anthropic `max_tokens`);
 * - `content-filter`: a filter cut it (OpenAI chat `content_filter`, Responses `incomplete` with
 *   `content_filter`; Anthropic has none: it refuses);
 * - `refusal`: the model refused, the text is the refusal (OpenAI chat `message.refusal` with
 *   `finish_reason: "stop"`, a Responses `refusal` content part, Anthropic `refusal`);
 * - `stop-sequence`: it stopped at one of the request's stop sequences (OpenAI chat `stop`,
 *   Anthropic `stop_sequence`; Responses has no stop sequences);
 * - `pause-turn`: Anthropic paused a long turn (`pause_turn`).
 */
export const NEUTRAL_FINISHES = ['stop', 'length', 'content-filter', 'refusal', 'stop-sequence', 'pause-turn'] as const;
export type NeutralFinish = (typeof NEUTRAL_FINISHES)[number];

/** The providers' own spellings, accepted where their API uses them. */
export const PROVIDER_FINISHES = ['content_filter', 'max_output_tokens', 'max_tokens', 'end_turn', 'stop_sequence', 'pause_turn'] as const;
export type ProviderFinish = (typeof PROVIDER_FINISHES)[number];

const PROVIDER_SPELLINGS: Record<ProviderFinish, NeutralFinish> = {
  content_filter: 'content-filter',
  max_output_tokens: 'length',
  max_tokens: 'length',
  end_turn: 'stop',
  stop_sequence: 'stop-sequence',
  pause_turn: 'pause-turn',
};

/** Every name `finish` accepts: the neutral ones, then the providers' own. */
export const FINISH_REASONS = [...NEUTRAL_FINISHES, ...PROVIDER_FINISHES] as const;
export type FinishReason = NeutralFinish | ProviderFinish;

/** Which finishes each API can end a turn with, in the names a user may write for it (an API not listed: `stop` only). */
export const FINISHES_BY_API: Partial<Record<TurnApi, readonly FinishReason[]>> = {
  'openai-chat': ['stop', 'length', 'content-filter', 'refusal', 'stop-sequence', 'content_filter'],
  'openai-responses': ['stop', 'length', 'content-filter', 'refusal', 'max_output_tokens', 'content_filter'],
  'anthropic-messages': ['stop', 'length', 'refusal', 'stop-sequence', 'pause-turn', 'end_turn', 'max_tokens', 'stop_sequence', 'pause_turn'],
};

/** A finish resolved for one request: the neutral name, and the stop sequence hit, if any. */
export interface ResolvedFinish {
  reason: NeutralFinish;
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
