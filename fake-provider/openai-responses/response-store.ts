/** An input or output item of the Responses API, as sent or answered (`message`, `function_call`, `reasoning`, …). */
export type ResponseItem = Record<string, unknown>;

/** One response the fake gave, kept for `previous_response_id`, `item_reference` and retrieval. */
export interface StoredResponse {
  id: string;
  /** The whole conversation the response stood on: the previous responses' items, then its own input, references resolved. */
  conversation: ResponseItem[];
  /** Its own input items as the API lists them (`GET /v1/responses/{id}/input_items`): with ids, references resolved. */
  input: ResponseItem[];
  /** What it answered. */
  output: ResponseItem[];
  /** The response object as the fake answered it (JSON, or the `response.completed` event's). */
  response: Record<string, unknown>;
  /** Whether it was asked for with `background: true` (only those can be cancelled). */
  background: boolean;
  /** What a reasoning model "thought", to seal into `encrypted_content` when a retrieval includes it. */
  reasoning?: string;
}

/** What the store says of an id: kept, dropped to stay within its limit, or never seen. */
export type Lookup<T> = { found: T } | { dropped: true; limit: number } | { unknown: true };

/**
 * The responses a FakeProvider gave with `store` left true (the Responses API's default), by
 * response id, and their items by item id. It keeps the latest `limit` responses: an older one is
 * dropped with the items no kept response still holds, and its ids are remembered (as many as
 * `limit`) so an error can say the id was dropped rather than never made. Two responses can hold
 * the same item (a client sends a response's output item back by value, with its id, or a
 * conversation carries it on): an item stays while any response holding it is kept.
 */
export class ResponseStore {
  readonly limit: number;
  readonly #responses = new Map<string, StoredResponse>();
  readonly #items = new Map<string, ResponseItem>();
  // Each response's item ids, so dropping a response costs its own items, not the whole store.
  readonly #owned = new Map<string, Set<string>>();
  // How many kept responses hold each item: it goes when the last of them does.
  readonly #holders = new Map<string, number>();
  readonly #dropped: DroppedIds;

  constructor(limit: number) {
    this.limit = limit;
    this.#dropped = new DroppedIds(limit);
  }

  /** Keeps a response, and the items of `input` (its conversation) that carry an id and of its output. */
  keep(stored: StoredResponse, input: readonly ResponseItem[]): void {
    if (this.limit === 0) {
      this.#dropped.add(stored.id);
      return;
    }
    this.#responses.set(stored.id, stored);
    const owned = new Set<string>();
    for (const item of [...input, ...stored.output]) {
      if (typeof item.id !== 'string' || item.type === 'item_reference') continue;
      this.#items.set(item.id, item);
      if (owned.has(item.id)) continue;
      owned.add(item.id);
      this.#holders.set(item.id, (this.#holders.get(item.id) ?? 0) + 1);
    }
    this.#owned.set(stored.id, owned);
    while (this.#responses.size > this.limit) this.#drop(this.#responses.keys().next().value!);
  }

  response(id: string): Lookup<StoredResponse> {
    const stored = this.#responses.get(id);
    return this.#lookup(stored, id);
  }

  item(id: string): Lookup<ResponseItem> {
    return this.#lookup(this.#items.get(id), id);
  }

  /** Deletes a response and the items no other kept response holds; false when it was not kept. */
  delete(id: string): boolean {
    if (!this.#responses.has(id)) return false;
    this.#responses.delete(id);
    this.#release(id);
    return true;
  }

  /** How many responses are kept now. */
  get size(): number {
    return this.#responses.size;
  }

  #lookup<T>(found: T | undefined, id: string): Lookup<T> {
    if (found !== undefined) return { found };
    return this.#dropped.has(id) ? { dropped: true, limit: this.limit } : { unknown: true };
  }

  #drop(id: string): void {
    this.#responses.delete(id);
    this.#dropped.add(id);
    for (const itemId of this.#release(id)) this.#dropped.add(itemId);
  }

  // Lets go of a response's items, and removes (and returns) those no kept response holds now.
  #release(id: string): string[] {
    const removed: string[] = [];
    for (const itemId of this.#owned.get(id) ?? []) {
      const holders = (this.#holders.get(itemId) ?? 1) - 1;
      if (holders > 0) {
        this.#holders.set(itemId, holders);
        continue;
      }
      this.#holders.delete(itemId);
      this.#items.delete(itemId);
      removed.push(itemId);
    }
    this.#owned.delete(id);
    return removed;
  }
}

/**
 * The ids a bounded store dropped, so an error can say an id was dropped rather than never made;
 * bounded too (as many as the store's limit, at least 64, four times over), so the store's memory
 * stays bounded. The oldest is forgotten first.
 */
export class DroppedIds {
  readonly #ids = new Set<string>();
  readonly #cap: number;

  constructor(limit: number) {
    this.#cap = Math.max(limit, 64) * 4;
  }

  add(id: string): void {
    this.#ids.add(id);
    if (this.#ids.size > this.#cap) this.#ids.delete(this.#ids.values().next().value!);
  }

  has(id: string): boolean {
    return this.#ids.has(id);
  }
}
