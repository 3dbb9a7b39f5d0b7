// `recheck --write DIR`: each tape written again into DIR with the fresh answers it may take. What
// was identical or equivalent is refreshed; a changed or regression line keeps its recording unless
// `--accept` names it; what was not rechecked is copied byte for byte. A refreshed line is the
// line a recording would write (canonical, secret-scanned, schema-checked), so the refreshed tape
// is reviewed as a diff against the old one, never taken blind.
import { basename, join } from 'node:path';
import {
  FAKE_RESPONSE_HEADER,
  SecretInTapeError,
  checkExchangeLine,
  describeExchange,
  findSecrets,
  recordedAtOf,
  responsePayloads,
  serializeLine,
  writeTapeReplacingLines,
  type Exchange,
  type LoadedExchange,
  type RecordedResponse,
} from '../recordings/internal.js';
import { answeredModelOf, guessProvider, routeOf, withoutProviderPrefix } from '../providers/internal.js';
import type { Verdict } from './compare-answers.js';
import type { FreshResponse } from './fresh-response.js';
import { recordedResponseOf } from './fresh-response.js';

/** The verdicts `--accept` may name: the fresh answer replaces the recording even so. */
export const ACCEPTABLE_VERDICTS = ['changed', 'regression'] as const;
export type AcceptableVerdict = (typeof ACCEPTABLE_VERDICTS)[number];

/** What `--accept` names: whole verdicts, and single lines (`tape:line`, the tape as an absolute path). */
export interface AcceptRules {
  verdicts: ReadonlySet<AcceptableVerdict>;
  lines: ReadonlySet<string>;
}

/** One exchange rechecked: its verdict and the answer the upstream gave today. */
export interface FreshAnswer {
  verdict: Verdict;
  fresh: FreshResponse;
}

/** What became of one line of a tape written with `--write`. */
export type LineOutcome = 'refreshed' | 'accepted' | 'kept' | 'refused';

/** A tape written into DIR, and what became of its exchange lines. */
export interface RefreshedTape {
  /** The tape read. */
  tape: string;
  /** The tape written (in DIR, the same file name). */
  target: string;
  /** Identical or equivalent: the fresh answer replaced the recorded one. */
  refreshed: number;
  /** Changed or regression, named by `--accept`: the fresh answer replaced the recorded one. */
  accepted: number;
  /** Left as recorded: changed or regression not accepted, or not rechecked. */
  kept: number;
  /** Changed or regression lines kept because `--accept` did not name them (counted in `kept`). */
  notAccepted: Array<{ line: number; verdict: Verdict }>;
  /** Fresh answers that could not be written (a secret in them, a line off the schema): the recording was kept. */
  refused: Array<{ line: number; reason: string }>;
}

export interface RefreshOptions {
  /** Where the refreshed tapes go. */
  dir: string;
  accept: AcceptRules;
  /** The date each refreshed line carries as `recordedAt` (SOURCE_DATE_EPOCH pins it). */
  now: Date;
  /** Credentials the recheck sent with: a fresh answer that repeats one is refused, as a recording is. */
  credentials: readonly string[];
}

/** Writes each tape into `options.dir`, under its own file name, with the fresh answers it may take. */
export function refreshTapes(
  tapes: ReadonlyArray<{ file: string; exchanges: readonly LoadedExchange[] }>,
  answers: ReadonlyMap<string, FreshAnswer>,
  options: RefreshOptions,
): RefreshedTape[] {
  const written: RefreshedTape[] = [];
  for (const tape of tapes) {
    const target = join(options.dir, basename(tape.file));
    const result: RefreshedTape = { tape: tape.file, target, refreshed: 0, accepted: 0, kept: 0, notAccepted: [], refused: [] };
    const replacements = new Map<number, string>();
    for (const { exchange, line } of tape.exchanges) {
      const answer = answers.get(lineId(tape.file, line));
      const outcome = answer === undefined ? 'kept' : outcomeOf(answer.verdict, tape.file, line, options.accept);
      if (outcome === 'kept') {
        result.kept++;
        if (answer !== undefined) result.notAccepted.push({ line, verdict: answer.verdict });
        continue;
      }
      const refreshed = refreshedExchange(exchange, answer!.fresh, options.now);
      const problem = problemOf(refreshed, options.credentials, tape.file, line);
      if (problem !== undefined) {
        result.kept++;
        result.refused.push({ line, reason: problem });
        continue;
      }
      replacements.set(line, serializeLine(refreshed).slice(0, -1));
      result[outcome]++;
    }
    writeTapeReplacingLines(tape.file, target, replacements);
    written.push(result);
  }
  return written;
}

/** `tape:line`, as `--accept` names a line and the answers are looked up. */
export function lineId(tape: string, line: number): string {
  return `${tape}:${line}`;
}

function outcomeOf(verdict: Verdict, tape: string, line: number, accept: AcceptRules): 'refreshed' | 'accepted' | 'kept' {
  if (verdict === 'identical' || verdict === 'equivalent') return 'refreshed';
  return accept.verdicts.has(verdict) || accept.lines.has(lineId(tape, line)) ? 'accepted' : 'kept';
}

/**
 * The recorded exchange with the fresh answer: its key, ordinal, request and notes kept, its
 * `recordedAt` renewed, its `source` from who answered (a FakeProvider marks its answers), its
 * response in the tape's form with the recorded response's notes and the model it says answered. A fresh stream's frames take the
 * recorded frames' arrival times by position (the last one's past the recording's end), so the
 * same answers give the same bytes and replay keeps the recorded pacing.
 */
export function refreshedExchange(recorded: Exchange, fresh: FreshResponse, now: Date): Exchange {
  const response: RecordedResponse = { ...notesOf(recorded.response), ...recordedResponseOf(fresh) };
  // Provenance, as a recording reads it: the model the fresh answer says answered.
  if (response.status >= 200 && response.status < 300) {
    const { method, path } = recorded.request;
    const answeredModel = answeredModelOf(routeOf(method, withoutProviderPrefix(path).path, guessProvider(recorded.upstream))?.api, responsePayloads(response));
    if (answeredModel !== undefined) response.answeredModel = answeredModel;
  }
  if (response.stream !== undefined) {
    const times = recorded.response.stream?.frames.map((frame) => frame.atMs) ?? [];
    response.stream.frames = response.stream.frames.map((frame, index) => ({ ...frame, atMs: times[Math.min(index, times.length - 1)] ?? 0 }));
  }
  return {
    ...recorded,
    source: fresh.headers[FAKE_RESPONSE_HEADER] === undefined ? 'live' : 'fake',
    recordedAt: recordedAtOf(now),
    response,
  };
}

// Why the refreshed line must not be written, as a recording is refused: a string shaped like a
// credential, a credential the recheck sent repeated in the answer, a line off the tape schema.
function problemOf(exchange: Exchange, credentials: readonly string[], file: string, line: number): string | undefined {
  const text = serializeLine(exchange);
  const locations = findSecrets(exchange, '', text);
  for (const credential of credentials) {
    if (credential.length < 16) continue;
    if (text.includes(credential) || text.includes(JSON.stringify(credential).slice(1, -1)))
      locations.push({ path: '.response', rule: 'echoed-credential', masked: `[a credential the recheck sent, ${credential.length} chars]` });
  }
  if (locations.length > 0) return new SecretInTapeError(`the fresh answer to ${describeExchange(exchange)}`, locations).message;
  const problems = checkExchangeLine(exchange, file, line);
  if (problems.length > 0) return `the fresh answer does not follow the tape schema: ${problems.map((problem) => problem.message).join('; ')}`;
  return undefined;
}

function notesOf(value: object): Record<`_${string}`, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([name]) => name.startsWith('_'))) as Record<`_${string}`, unknown>;
}
