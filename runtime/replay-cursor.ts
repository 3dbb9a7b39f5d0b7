import type { EffectRequest } from './errors.js';
import type { EffectKind, StoredRecord } from './journal-store.js';

/**
 * The journal as replay reads it: top-level effects in order, one after another. Effects a call
 * performed inside itself are not in the sequence (they are read back with the call); a call run
 * again after an interruption journals its own under a fresh attempt (`<key>@2/…`).
 */
export class ReplayCursor {
  readonly #starts: StoredRecord[];
  readonly #nested = new Set<string>();
  readonly #ends = new Map<string, StoredRecord>();
  #at = 0;

  constructor(records: readonly StoredRecord[]) {
    this.#starts = [];
    for (const record of records) {
      if (record.type !== 'start') {
        if (!this.#ends.has(record.effectKey)) this.#ends.set(record.effectKey, record);
      } else if (record.effectKey.includes('/')) this.#nested.add(record.effectKey);
      else this.#starts.push(record);
    }
  }

  /** How many attempts of a call the journal shows: 1, or n when effects under `<key>@n` (or its reconcile) exist. */
  attemptsOf(key: string): number {
    let attempts = 1;
    for (const nested of this.#nested) {
      const match = nested.startsWith(`${key}@`) ? /^@(\d+)/.exec(nested.slice(key.length)) : null;
      if (match) attempts = Math.max(attempts, Number(match[1]));
    }
    return attempts;
  }

  get done(): boolean {
    return this.#at >= this.#starts.length;
  }

  peek(): StoredRecord | undefined {
    return this.#starts[this.#at];
  }

  take(): { start: StoredRecord; end: StoredRecord | undefined } {
    const start = this.#starts[this.#at++]!;
    return { start, end: this.#ends.get(start.effectKey) };
  }

  /** Nested effects are not in the sequence: nothing to pass over. */
  skipNested(_key: string): void {}

  endOf(key: string): StoredRecord | undefined {
    return this.#ends.get(key);
  }
}

/** An effect as the journal holds it (its kind is the last segment of its key). */
export function recordedEffect(start: StoredRecord): EffectRequest {
  return { key: start.effectKey, kind: kindOf(start.effectKey), data: start.data };
}

function kindOf(key: string): EffectKind {
  return key.slice(key.lastIndexOf('.') + 1) as EffectKind;
}
