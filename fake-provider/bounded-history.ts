import { ModeltapeError } from '../core/internal.js';

/** What a bounded history hands out: the entries it kept, and how many it no longer has. */
export type KeptEntries<T> = T[] & {
  /** How many entries were dropped to stay within the limit (0: this is everything). */
  readonly dropped: number;
};

/** How many calls, turns and problems a FakeProvider keeps by default. */
export const DEFAULT_HISTORY_LIMIT = 1000;

/**
 * A history that keeps at most `limit` entries: the latest ones (`keep: 'latest'`, for calls and
 * turns) or the first ones (`keep: 'first'`, for problems: the first is the one to fix). Memory
 * stays bounded however many entries are pushed, and it counts what it dropped.
 */
export class BoundedHistory<T> {
  readonly limit: number;
  readonly #keep: 'latest' | 'first';
  #entries: Array<T | undefined> = [];
  #start = 0;
  #dropped = 0;

  constructor(limit: number, keep: 'latest' | 'first' = 'latest') {
    this.limit = limit;
    this.#keep = keep;
  }

  push(entry: T): void {
    if (this.#keep === 'first') {
      if (this.#entries.length < this.limit) this.#entries.push(entry);
      else this.#dropped++;
      return;
    }
    this.#entries.push(entry);
    if (this.#entries.length - this.#start > this.limit) {
      this.#entries[this.#start++] = undefined;
      this.#dropped++;
      // Compacted now and then, so a push costs O(1) on average and the array never outgrows 2 × limit.
      if (this.#start > 64 && this.#start * 2 >= this.#entries.length) {
        this.#entries = this.#entries.slice(this.#start);
        this.#start = 0;
      }
    }
  }

  /** How many entries are kept now. */
  get size(): number {
    return this.#entries.length - this.#start;
  }

  get dropped(): number {
    return this.#dropped;
  }

  /** The kept entries, in order, with the count of the dropped ones. */
  entries(): KeptEntries<T> {
    const kept = this.#entries.slice(this.#start) as T[];
    Object.defineProperty(kept, 'dropped', { value: this.#dropped, enumerable: false });
    return kept as KeptEntries<T>;
  }
}

/** A `historyLimit` is a whole number of entries, or Infinity. */
export function checkHistoryLimit(limit: number): number {
  if (limit === Number.POSITIVE_INFINITY || (Number.isInteger(limit) && limit >= 0)) return limit;
  throw new ModeltapeError(
    'invalid_history_limit',
    `Invalid historyLimit ${String(limit)}: expected a whole number of entries (0 or more), or Infinity to keep every one.`,
  );
}

/**
 * Read all of a history that dropped entries: an assertion over it would check only part of what
 * happened and could pass on what it never saw, so this says so instead.
 */
export class FakeHistoryTruncatedError extends ModeltapeError {
  readonly what: string;
  readonly kept: number;
  readonly dropped: number;
  constructor(what: string, kept: number, dropped: number, limit: number) {
    super(
      'fake_history_truncated',
      `FakeProvider ${what}(): the fake kept the latest ${kept} of ${kept + dropped} (historyLimit ${limit}); the first ${dropped} were dropped, so an assertion over all of them would check only part.\n` +
        `Raise historyLimit (new FakeProvider({ historyLimit: ${kept + dropped} }), or Infinity) to keep them all, or read ${what}({ latest: true }) to assert over the kept ones (its .dropped says how many are missing).`,
    );
    this.what = what;
    this.kept = kept;
    this.dropped = dropped;
  }
}
