import type { Json } from '../core/internal.js';

/**
 * A model call as the runtime makes it, in no provider's format: each API's
 * `render-request.ts` writes it as that API's body and its `read-answer.ts` reads the answer back.
 */

/** A tool as a request offers it. */
export interface OfferedTool {
  name: string;
  description: string;
  /** The JSON Schema of its arguments. */
  parameters: Record<string, unknown>;
}

/** One tool call a model asked for. `args` is the parsed JSON (or the raw text when it did not parse). */
export interface ModelToolCall {
  id: string;
  name: string;
  args: Json;
  /** Why the arguments as sent cannot be accepted at all (not JSON, a duplicate key, too deep, …); `args` then holds the raw text. */
  argumentsError?: string;
}

/** A model's answer, as the journal keeps it. */
export interface ModelAnswer {
  text: string | null;
  toolCalls: ModelToolCall[];
  stopReason: string;
  usage: { input: number; output: number };
}

/** The conversation, provider-neutral. */
export type Turn =
  | { role: 'user'; content: string }
  | { role: 'assistant'; text: string | null; toolCalls: ModelToolCall[] }
  | { role: 'tool'; callId: string; name: string; content: string; isError: boolean };

export interface ModelRequest {
  model: string;
  system: string;
  turns: readonly Turn[];
  tools: readonly OfferedTool[];
  output: Record<string, unknown> | undefined;
  maxTokens: number;
}

/** An answer that cannot be read: what is wrong with it. */
export interface UnreadableAnswer {
  problem: string;
}
