import { isRecord } from '../../core/internal.js';
import type { ProviderError } from '../../providers/internal.js';

type Block = Record<string, unknown>;

/** The `anthropic-beta` value a request needs to send `thread` (what @anthropic-ai/sdk 1.14 adds). */
export const MESSAGE_THREADS_BETA = 'message-threads-2026-08-12';

/** What the fake holds for one message it gave on a thread: the conversation it ends, and what a `continue` takes from it. */
interface StoredMessage {
  system: unknown;
  tools: unknown;
  /** The whole conversation, the message itself last (as an assistant message). */
  messages: unknown[];
  /** Each message can be continued once. */
  continued: boolean;
}

/**
 * Anthropic message threads (`thread: {type: "create"}` and `{type: "continue",
 * previous_message_id}`), held by one FakeProvider: each message it gave on a thread, with the
 * conversation it stood on and the thread's `system` and `tools`, so that a `continue` is
 * answered as the whole conversation. At most `limit` messages are held (the fake's
 * `historyLimit`); a message no longer held is a `thread_not_found`, as a thread the server lost.
 */
export class MessageThreads {
  readonly #limit: number;
  readonly #messages = new Map<string, StoredMessage>();

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** How many messages are held. */
  get size(): number {
    return this.#messages.size;
  }

  /**
   * The request as the model sees it: unchanged without `thread`, and for a `continue` the
   * stored conversation followed by the new messages, with the thread's `system` and `tools`.
   * Or the error Anthropic answers (no beta, an unknown or already continued id, create-only
   * fields sent again).
   */
  resolve(body: Record<string, unknown>, headers: Record<string, string>): { body: Record<string, unknown> } | { error: ProviderError } {
    const thread = body.thread;
    if (thread === undefined || thread === null) return { body };
    const refuse = (message: string, details?: Record<string, unknown>): { error: ProviderError } => ({
      error: { status: 400, type: 'invalid_request_error', message, ...(details === undefined ? {} : { details }) },
    });
    const betas = (headers['anthropic-beta'] ?? '').split(',').map((beta) => beta.trim());
    if (!betas.includes(MESSAGE_THREADS_BETA))
      return refuse(`thread: Extra inputs are not permitted (message threads need \`anthropic-beta: ${MESSAGE_THREADS_BETA}\`)`);
    if (!isRecord(thread)) return refuse('thread: Input should be a valid dictionary or object to extract fields from');
    if (thread.type === 'create') return { body };
    if (thread.type !== 'continue')
      return refuse(`thread: Input tag '${String(thread.type)}' found using 'type' does not match any of the expected tags: 'continue', 'create'`);
    const id = thread.previous_message_id;
    if (typeof id !== 'string') return refuse('thread.continue.previous_message_id: Field required');
    const stored = this.#messages.get(id);
    if (stored === undefined) {
      return {
        error: {
          status: 404,
          type: 'not_found_error',
          message: `No usable Thread state was found for \`previous_message_id\` ${JSON.stringify(id)}. Replay the full conversation with \`thread: {"type": "create"}\` to start a new Thread.`,
          details: { error_code: 'thread_not_found' },
        },
      };
    }
    if (stored.continued)
      return refuse(
        `The response ${JSON.stringify(id)} that \`previous_message_id\` names has already been continued, and each response can be continued only once. Continue from the Thread's most recent response \`id\`.`,
        { error_code: 'thread_already_continued' },
      );
    const repeated = (['system', 'tools'] as const).filter((field) => body[field] !== undefined);
    if (repeated.length > 0)
      return refuse(
        `${repeated.map((field) => `\`${field}\``).join(' and ')}: a \`continue\` takes them from the Thread, which keeps those it was created with; leave them out, or replay the full conversation with \`thread: {"type": "create"}\` to change them.`,
        { error_code: 'thread_fingerprint_mismatch' },
      );
    const resolved: Record<string, unknown> = { ...body, messages: [...stored.messages, ...(Array.isArray(body.messages) ? body.messages : [])] };
    if (stored.system !== undefined) resolved.system = stored.system;
    if (stored.tools !== undefined) resolved.tools = stored.tools;
    return { body: resolved };
  }

  /**
   * Holds the message `id` the fake gave to a request on a thread (`body` as {@link resolve}
   * gave it), so the next turn can continue from it; a request without `thread` holds nothing.
   */
  remember(id: string, body: Record<string, unknown>, content: Block[]): void {
    if (!isRecord(body.thread)) return;
    if (body.thread.type === 'continue') {
      const previous = this.#messages.get(String(body.thread.previous_message_id));
      if (previous !== undefined) previous.continued = true;
    }
    const messages = Array.isArray(body.messages) ? body.messages : [];
    this.#messages.set(id, { system: body.system, tools: body.tools, messages: [...messages, { role: 'assistant', content }], continued: false });
    // A Map iterates in insertion order: the first key is the oldest message.
    while (this.#messages.size > this.#limit) this.#messages.delete(this.#messages.keys().next().value!);
  }
}
