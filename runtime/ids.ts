// The one file that imports ulid.
import { createHash } from 'node:crypto';
import { isValid, ulid } from 'ulid';

/** Reads the time (ms since the epoch). Inject one in tests: the journal records its readings. */
export type Clock = () => number;
/** Makes a new id: run ids, runtime owners and `ctx.newId()` values come from it. */
export type IdSource = () => string;

/** The real clock. */
export const systemClock: Clock = () => Date.now();

/** ULIDs from the real clock and crypto randomness. */
export const ulidIds: IdSource = () => ulid();

/**
 * A clock that starts at `start` and moves `step` ms on every reading: the same readings on
 * every run. @default start 2026-01-01T00:00:00Z, step 1
 */
export function steppingClock(start = Date.UTC(2026, 0, 1), step = 1): Clock {
  let now = start - step;
  return () => (now += step);
}

/** Ids `<prefix>-1`, `<prefix>-2`, …: the same on every run. */
export function sequentialIds(prefix = 'id'): IdSource {
  let next = 0;
  return () => `${prefix}-${++next}`;
}

/**
 * A journal record's id: a ULID whose time is the record's clock reading and whose random part
 * is derived from what the record is (run, effect key, type) and who wrote it (the runtime and
 * its invocation). The same inputs give the same id, so a retried append after an ambiguous error
 * is recognised as the same record; another writer's start of the same effect gets another id,
 * so the unique index (the backstop) sees a second start.
 */
export function recordId(at: number, runId: string, effectKey: string, type: string, writer: string): string {
  const digest = createHash('sha256').update(`${runId}\n${effectKey}\n${type}\n${writer}`).digest();
  let offset = 0;
  const prng = (): number => {
    const byte = digest[offset++ % digest.length]!;
    return byte / 256;
  };
  return ulid(Math.max(0, Math.min(Math.floor(at), 281474976710655)), prng);
}

/** Whether a string is a ULID. */
export function isUlid(id: string): boolean {
  return isValid(id);
}
