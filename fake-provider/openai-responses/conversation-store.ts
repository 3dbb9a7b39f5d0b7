import { DroppedIds, type Lookup, type ResponseItem } from './response-store.js';

/** One conversation of the Conversations API, as the fake keeps it. */
export interface StoredConversation {
  id: string;
  /** Seconds since the epoch, from the fake's clock. */
  created_at: number;
  metadata: Record<string, unknown>;
  /** Its items in order, each with an id: the ones it was made or extended with, then every response's input and output. */
  items: ResponseItem[];
}

/**
 * The conversations a FakeProvider made (`POST /v1/conversations`), by id. Like the response
 * store it keeps the latest `limit`: an older one is dropped with its items, and its id is
 * remembered (as many as `limit`, at least 64, four times over) so an error can say it was
 * dropped rather than never made. Each conversation keeps all its items.
 */
export class ConversationStore {
  readonly limit: number;
  readonly #conversations = new Map<string, StoredConversation>();
  readonly #dropped: DroppedIds;

  constructor(limit: number) {
    this.limit = limit;
    this.#dropped = new DroppedIds(limit);
  }

  keep(conversation: StoredConversation): void {
    if (this.limit === 0) {
      this.#dropped.add(conversation.id);
      return;
    }
    this.#conversations.set(conversation.id, conversation);
    while (this.#conversations.size > this.limit) {
      const oldest = this.#conversations.keys().next().value!;
      this.#conversations.delete(oldest);
      this.#dropped.add(oldest);
    }
  }

  conversation(id: string): Lookup<StoredConversation> {
    const found = this.#conversations.get(id);
    if (found !== undefined) return { found };
    return this.#dropped.has(id) ? { dropped: true, limit: this.limit } : { unknown: true };
  }

  /** Deletes a conversation and its items; false when it was not kept. */
  delete(id: string): boolean {
    return this.#conversations.delete(id);
  }

  /** How many conversations are kept now. */
  get size(): number {
    return this.#conversations.size;
  }
}
