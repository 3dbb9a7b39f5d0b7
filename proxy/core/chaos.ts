// Chaos replay: a real tape replayed with faults injected at exchanges chosen from a seed. A fault
// answers the first request for its exchange instead of the recording; the exchange is not used up,
// so the client's retry is answered from the tape. The same seed and tape give the same faults.
import { hash } from 'node:crypto';
import { ModeltapeError, checkChoice } from '../../core/internal.js';
import { ReplayEngine, type ReplayEntry } from '../../lookup/internal.js';
import { describeExchange } from '../../recordings/internal.js';
import { TRANSIENT_FAILURES, type TransientFailure } from '../../providers/internal.js';

/**
 * The faults chaos replay injects: a provider's 429 (with `retry-after`), 500, 503 and
 * overloaded (Anthropic's 529, the others' 503), the connection dropped before any header, the
 * recorded status and headers sent and then the connection dropped before any byte of the body, a
 * recorded stream cut off after some of its frames (only on streamed exchanges of two frames or
 * more), and a stall: no answer at all until the client gives up (its timeout), which only a
 * client with a timeout survives.
 */
export const CHAOS_KINDS = [...TRANSIENT_FAILURES, 'drop-connection', 'drop-after-headers', 'stream-cut', 'stall'] as const;
export type ChaosKind = (typeof CHAOS_KINDS)[number];

/**
 * The kinds a chaos run chooses from when none are named: every kind but `stall`, which holds a
 * request until the client's own timeout (the official SDKs wait minutes by default), so it is
 * asked for by name (`--chaos-kinds stall`) with a client given a short timeout.
 */
export const DEFAULT_CHAOS_KINDS: readonly ChaosKind[] = CHAOS_KINDS.filter((kind) => kind !== 'stall');

export interface ChaosOptions {
  /** Chooses the faults: the same seed on the same tape injects the same faults, always. */
  seed: number | string;
  /** The share of the tape's exchanges that get a fault, from 0 (exclusive) to 1. At least one always does. @default 0.25 */
  rate?: number;
  /** The kinds to choose from. @default every kind in CHAOS_KINDS but `stall` (DEFAULT_CHAOS_KINDS) */
  kinds?: readonly ChaosKind[];
  /** What a retryable status fault tells the client to wait (`retry-after-ms`, and `retry-after` in whole seconds). @default 0 */
  retryAfterMs?: number;
}

export interface ResolvedChaos {
  seed: string;
  rate: number;
  kinds: readonly ChaosKind[];
  retryAfterMs: number;
}

/** One planned fault, and whether a request met it. */
export interface ChaosFault {
  /** The tape line of the exchange it answers instead of. */
  line: number | undefined;
  /** `POST /v1/chat/completions` */
  endpoint: string;
  ordinal: number;
  kind: ChaosKind;
  /** `stream-cut`: how many of the recorded frames are sent before the connection drops (at least one, never all). */
  afterFrames?: number;
  fired: boolean;
  /** After it fired, a request for its exchange came again (the client retried) and was answered from the tape. */
  retried?: boolean;
}

export function resolveChaos(options: ChaosOptions | undefined): ResolvedChaos | undefined {
  if (options === undefined) return undefined;
  const { seed } = options;
  if ((typeof seed !== 'number' || !Number.isFinite(seed)) && (typeof seed !== 'string' || seed === '')) {
    throw new ModeltapeError('invalid_chaos', `Invalid chaos seed ${JSON.stringify(seed)}: give a number or a non-empty string (--chaos SEED).`);
  }
  const rate = options.rate ?? 0.25;
  // NaN and the infinities are not JSON: shown as JavaScript writes them, not as `null`.
  if (typeof rate !== 'number' || !(rate > 0 && rate <= 1)) throw invalidChaosRate(Number.isFinite(rate) ? JSON.stringify(rate) : String(rate));
  const kinds = (options.kinds ?? DEFAULT_CHAOS_KINDS).map((kind) => checkChoice('chaos kind', kind, CHAOS_KINDS));
  if (kinds.length === 0) throw new ModeltapeError('invalid_chaos', `No chaos kinds given: choose from ${CHAOS_KINDS.join(', ')} (--chaos-kinds).`);
  const retryAfterMs = options.retryAfterMs ?? 0;
  if (!Number.isInteger(retryAfterMs) || retryAfterMs < 0) {
    throw new ModeltapeError('invalid_chaos', `Invalid chaos retryAfterMs ${JSON.stringify(retryAfterMs)}: whole milliseconds, 0 or more.`);
  }
  return { seed: String(seed), rate, kinds: [...new Set(kinds)], retryAfterMs };
}

/**
 * `--chaos-rate R` read from its text: a number above 0 and at most 1, or an error that shows the
 * text as it was given (`--chaos-rate NaN`, `--chaos-rate 1/4`).
 */
export function parseChaosRate(text: string): number {
  const rate = text.trim() === '' ? Number.NaN : Number(text);
  if (!(rate > 0 && rate <= 1)) throw invalidChaosRate(JSON.stringify(text));
  return rate;
}

function invalidChaosRate(shown: string): ModeltapeError {
  return new ModeltapeError('invalid_chaos', `Invalid chaos rate ${shown}: the share of exchanges to fault, above 0 and at most 1 (--chaos-rate 0.25).`);
}

// A uniform 32-bit draw for an exchange under a seed: SHA-256 of the seed, the exchange's key and
// ordinal, so the plan depends on what the tape holds, not on where in the file it lies.
function draw(seed: string, salt: string, key: string, ordinal: number): number {
  return Buffer.from(hash('sha256', `${seed}\u0000${salt}\u0000${key}\u0000${ordinal}`, 'hex'), 'hex').readUInt32BE(0);
}

/** The faults of one chaos run: planned when the tape opens, each fired at most once. */
export class ChaosPlan {
  readonly chaos: ResolvedChaos;
  readonly #byEntry = new Map<ReplayEntry, ChaosFault>();
  readonly #faults: ChaosFault[] = [];

  /** `framesOf(entry)`: how many frames the entry's recorded stream has (0 for a plain response). */
  constructor(chaos: ResolvedChaos, engine: ReplayEngine, framesOf: (entry: ReplayEntry) => number) {
    this.chaos = chaos;
    const threshold = chaos.rate * 2 ** 32;
    let lowest: { entry: ReplayEntry; value: number; kinds: readonly ChaosKind[] } | undefined;
    const chosen: Array<{ entry: ReplayEntry; kinds: readonly ChaosKind[] }> = [];
    // Only a stream-cut needs the recorded answer (to count its frames): the others plan from each
    // line's key and ordinal, so a large tape's lines stay unparsed until used.
    const withoutCut = chaos.kinds.filter((kind) => kind !== 'stream-cut');
    const mayCut = withoutCut.length < chaos.kinds.length;
    for (const entry of engine.entries()) {
      // A stream is cut only where there is a frame to send and one to lose.
      const kinds = mayCut && framesOf(entry) >= 2 ? chaos.kinds : withoutCut;
      if (kinds.length === 0) continue;
      const { key, ordinal } = ReplayEngine.identity(entry);
      const value = draw(chaos.seed, 'pick', key, ordinal);
      if (value < threshold) chosen.push({ entry, kinds });
      if (lowest === undefined || value < lowest.value) lowest = { entry, value, kinds };
    }
    // A chaos run that injects nothing checks nothing: the exchange with the lowest draw always gets one.
    if (chosen.length === 0 && lowest !== undefined) chosen.push(lowest);
    if (chosen.length === 0 && engine.size > 0) {
      throw new ModeltapeError(
        'invalid_chaos',
        `No exchange of ${engine.file} can take the chaos kinds ${chaos.kinds.join(', ')}: stream-cut needs a recorded stream of two frames or more. Add another kind (--chaos-kinds).`,
      );
    }
    for (const { entry, kinds } of chosen) {
      const { key, ordinal } = ReplayEngine.identity(entry);
      const kind = kinds[draw(chaos.seed, 'kind', key, ordinal) % kinds.length]!;
      const fault: ChaosFault = { line: entry.line, endpoint: describeExchange(entry.exchange), ordinal, kind, fired: false };
      if (kind === 'stream-cut') fault.afterFrames = 1 + (draw(chaos.seed, 'cut', key, ordinal) % (framesOf(entry) - 1));
      this.#byEntry.set(entry, fault);
      this.#faults.push(fault);
    }
  }

  /** The fault that answers this request for `entry` instead of its recording, once; undefined after it fired. */
  take(entry: ReplayEntry): ChaosFault | undefined {
    const fault = this.#byEntry.get(entry);
    if (fault === undefined) return undefined;
    if (fault.fired) {
      fault.retried = true;
      return undefined;
    }
    fault.fired = true;
    return fault;
  }

  /** Every planned fault, in tape order, copied. */
  faults(): ChaosFault[] {
    return this.#faults.map((fault) => ({ ...fault }));
  }
}

/** The schedule as a run prints it: the seed to reproduce it, and each fault with its exchange. */
export function describeChaos(chaos: Pick<ResolvedChaos, 'seed' | 'rate' | 'kinds'>, faults: readonly ChaosFault[], tape: string): string {
  const lines = faults.map(
    (fault) =>
      `  ${tape}:${fault.line ?? '?'} ${fault.endpoint} (ordinal ${fault.ordinal}): ${fault.kind}${fault.afterFrames === undefined ? '' : ` after ${fault.afterFrames} frame${fault.afterFrames === 1 ? '' : 's'}`}${fault.fired ? (fault.retried === true ? ', retried' : ', never retried') : ' (never requested)'}`,
  );
  return [
    `modeltape: chaos seed ${chaos.seed} (rate ${chaos.rate}, kinds ${chaos.kinds.join(', ')}): ${faults.length} fault${faults.length === 1 ? '' : 's'}, ${faults.filter((fault) => fault.fired).length} fired`,
    ...lines,
  ].join('\n');
}

/**
 * The faults that fired and whose exchange was never asked for again: a client that retries gets
 * the recording on its retry, so each is a fault the client did not survive.
 */
export function unretriedFaults(faults: readonly ChaosFault[]): ChaosFault[] {
  return faults.filter((fault) => fault.fired && fault.retried !== true);
}

export type { TransientFailure };
