// How old a tape's recordings are: each exchange carries the UTC date it was recorded on
// (`recordedAt`, tape schema 3), and `--max-age 90d` says how old the oldest may be before the
// tape is stale and wants re-recording. An exchange without a date (recorded before modeltape
// kept them) cannot be shown to be young enough, so it counts as stale.
import { ModeltapeError, checkChoice } from '../core/internal.js';
import { readTape } from '../recordings/internal.js';

/** What a stale tape does to `report`, `verify` and `run`: a warning on stderr, or exit 1. */
export const STALE_POLICIES = ['warn', 'fail'] as const;
export type StalePolicy = (typeof STALE_POLICIES)[number];

/** The age limit and what passing it does. */
export interface AgeLimit {
  maxAgeDays: number;
  stale: StalePolicy;
}

/** `90d`, `12w` or a number of days, as days; throws a clear error for anything else. */
export function parseMaxAge(value: string | number, where = '--max-age'): number {
  const text = String(value).trim();
  const match = /^(\d{1,5})([dw]?)$/.exec(text);
  if (match === null) {
    throw new ModeltapeError(
      'invalid_max_age',
      `${where} is ${JSON.stringify(value)}: write a number of days or weeks, e.g. 90d or 12w (months and years vary in length, so they are not accepted).`,
    );
  }
  return Number(match[1]) * (match[2] === 'w' ? 7 : 1);
}

/** The age limit from flags or config values; undefined when no max age is given. */
export function ageLimitOf(maxAge: string | number | undefined, stale: string | undefined, where = '--max-age'): AgeLimit | undefined {
  const policy = checkChoice('stale policy', stale ?? 'warn', STALE_POLICIES);
  if (maxAge === undefined) {
    if (stale !== undefined)
      throw new ModeltapeError('invalid_max_age', '--stale says what a tape older than --max-age does: give --max-age too (e.g. --max-age 90d --stale fail).');
    return undefined;
  }
  return { maxAgeDays: parseMaxAge(maxAge, where), stale: policy };
}

/** Whole days from `from` to `to`, both `YYYY-MM-DD`. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** The dates one tape's exchanges were recorded on. */
export interface TapeDates {
  file: string;
  /** The oldest and newest `recordedAt`; undefined when no exchange has one. */
  oldest: string | undefined;
  newest: string | undefined;
  /** Exchanges without a date. */
  undated: number;
  exchanges: number;
}

/** Why a tape is stale, in words, or undefined when it is within the limit. */
export function staleness(dates: TapeDates, limit: AgeLimit, today: string): string | undefined {
  if (dates.oldest !== undefined) {
    const age = daysBetween(dates.oldest, today);
    if (age > limit.maxAgeDays) return `its oldest exchange was recorded on ${dates.oldest}, ${age} days ago (the limit is ${limit.maxAgeDays})`;
  }
  if (dates.undated > 0) {
    return `${dates.undated} of its ${dates.exchanges} exchange${dates.exchanges === 1 ? '' : 's'} carr${dates.undated === 1 ? 'ies' : 'y'} no recording date (recorded before tape schema 3), so ${dates.undated === 1 ? 'its' : 'their'} age is unknown`;
  }
  return undefined;
}

/** The lines a stale check prints, and whether it fails. Empty lines when every tape is within the limit. */
export function staleVerdict(tapes: readonly TapeDates[], limit: AgeLimit, today: string): { lines: string[]; failed: boolean; stale: number } {
  const lines: string[] = [];
  for (const dates of tapes) {
    const why = staleness(dates, limit, today);
    if (why !== undefined) lines.push(`modeltape: ${limit.stale === 'fail' ? 'stale' : 'warning: stale'} tape ${dates.file}: ${why}.`);
  }
  const stale = lines.length;
  if (stale > 0) {
    lines.push(
      `modeltape: re-record ${stale === 1 ? 'it' : 'them'} (modeltape run --tape FILE --mode record -- CMD, with a real key) to keep what the tests replay close to what the providers answer today${limit.stale === 'fail' ? '' : '; --stale fail makes this fail the run'}.`,
    );
  }
  return { lines, failed: limit.stale === 'fail' && stale > 0, stale };
}

/** The recording dates of a tape, read a line at a time. */
export function tapeDatesOf(file: string, name = file): TapeDates {
  const dates: TapeDates = { file: name, oldest: undefined, newest: undefined, undated: 0, exchanges: 0 };
  readTape(file, {
    keepExchanges: false,
    onExchange: ({ exchange }) => addDate(dates, exchange.recordedAt),
  });
  return dates;
}

/** Counts one exchange's `recordedAt` (undefined: undated) into `dates`. */
export function addDate(dates: TapeDates, day: string | undefined): void {
  dates.exchanges++;
  if (day === undefined) {
    dates.undated++;
    return;
  }
  if (dates.oldest === undefined || day < dates.oldest) dates.oldest = day;
  if (dates.newest === undefined || day > dates.newest) dates.newest = day;
}
