/** A deterministic source of randomness: the same seed always yields the same sequence. */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [minimum, maximum], both included. */
  integer(minimum: number, maximum: number): number;
  /** One element of a non-empty list. */
  pick<T>(list: readonly T[]): T;
}

/**
 * A mulberry32 generator: 32 bits of state, fast, and good enough to vary examples. Not for
 * anything secret. Seeds are taken modulo 2^32.
 *
 * @example seededRandom(7).integer(1, 6) === seededRandom(7).integer(1, 6)
 */
export function seededRandom(seed: number): Random {
  // Adjacent seeds (0, 1, 2) start mulberry32 on adjacent states, and its second outputs then
  // come out alike; scrambling the seed first (murmur3's finaliser) keeps the streams apart.
  let state = (seed + 0x9e3779b9) >>> 0;
  state = Math.imul(state ^ (state >>> 16), 0x85ebca6b) >>> 0;
  state = Math.imul(state ^ (state >>> 13), 0xc2b2ae35) >>> 0;
  state = (state ^ (state >>> 16)) >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
  const integer = (minimum: number, maximum: number): number => {
    if (maximum <= minimum) return minimum;
    // Past 2^53 the span cannot be counted exactly; an approximate draw is still in range.
    return Math.min(maximum, minimum + Math.floor(next() * (maximum - minimum + 1)));
  };
  return {
    next,
    integer,
    pick: <T>(list: readonly T[]): T => {
      if (list.length === 0) throw new RangeError('Cannot pick from an empty list');
      return list[integer(0, list.length - 1)]!;
    },
  };
}
