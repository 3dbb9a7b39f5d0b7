import { canonicalJson, decodeBody, sha256Hex, type Exchange, type RecordedRequest } from '../recordings/internal.js';
import { diffJson, excerpt, formatDifferences, ModeltapeError } from '../core/internal.js';
import type { SessionSummary, TapeSession, UnusedExchange } from './open-tape.js';

/** A replay promise a test asserted did not hold. The message says what, with the evidence. */
export class ReplayAssertionError extends ModeltapeError {
  constructor(message: string) {
    super('replay_assertion', message);
  }
}

/** The part of a session the assertions read; a {@link TapeSession} is one. */
export interface ReplayEvidence {
  readonly file: string;
  summary(): SessionSummary;
  unused(): UnusedExchange[];
}

/** How many requests the session answered in any way: from the tape, missed, recorded, passed through, or with a chaos fault. */
export function requestsSeen(summary: SessionSummary): number {
  return summary.hits + summary.misses + summary.recorded + summary.passthrough + (summary.chaos?.faults.filter((fault) => fault.fired).length ?? 0);
}

/** Recording modes: upstream calls and unused recordings are what recording is, not failures. */
function isRecording(summary: SessionSummary): boolean {
  return summary.mode === 'record' || summary.mode === 'auto';
}

/**
 * Everything that went wrong with a session's promises, or an empty list. Shared by the
 * assertions and the matchers. In `record` and `auto` mode the upstream and consumption checks
 * pass (recording calls the provider, and appends beside what it did not use): see
 * {@link recordingNote}; misses are still problems, and every check is strict in replay.
 * Without `checks`, all three run (what `assertReplayedStrictly` checks).
 */
export function replayProblems(
  session: ReplayEvidence,
  checks: { upstream?: boolean; consumed?: boolean; drift?: boolean; chaos?: boolean } = { upstream: true, consumed: true, drift: true },
): string[] {
  const summary = session.summary();
  const seen = requestsSeen(summary);
  // An assertion over nothing proves nothing: a client pointed elsewhere would pass it.
  if (seen === 0) return [`no request reached the tape ${session.file}: the assertion checked nothing. Give the client the session's fetch or base URL.`];
  const problems: string[] = [];
  if (checks.chaos) problems.push(...chaosProblems(session.file, summary));
  const recording = isRecording(summary);
  if (checks.upstream) {
    if (!recording && summary.upstreamConnections > 0)
      problems.push(
        `${summary.upstreamConnections} connection${summary.upstreamConnections === 1 ? ' was' : 's were'} opened to an upstream (mode ${summary.mode}).`,
      );
    if (summary.passthrough > 0) problems.push(`${summary.passthrough} request${summary.passthrough === 1 ? ' was' : 's were'} passed through to an upstream.`);
    if (!recording && summary.recorded > 0)
      problems.push(`${summary.recorded} request${summary.recorded === 1 ? ' was' : 's were'} recorded from an upstream.`);
    for (const escape of summary.escapes)
      problems.push(`a request to ${escape.host}${escape.path ?? ''} (${escape.via}) tried to leave the machine and was stopped.`);
  }
  if (checks.drift) {
    for (const miss of summary.missErrors.slice(0, 5)) problems.push(miss.message);
    if (summary.misses > summary.missErrors.slice(0, 5).length) problems.push(`… and ${summary.misses - Math.min(5, summary.missErrors.length)} more misses`);
  }
  if (checks.consumed && !recording) {
    const unused = session.unused();
    // Recording a request again replaces its recording, so what is unused is what the code no
    // longer asks (or asks fewer times): say how to drop it.
    if (unused.length > 0)
      problems.push(
        `${unused.length} recorded exchange${unused.length === 1 ? ' was' : 's were'} never used:\n${unusedTable(unused)}\n` +
          'The code no longer sends these requests (or sends them fewer times). Drop what nothing used with ' +
          'session.close({ prune: true }) in auto mode (modeltape run --mode auto --prune around a command), or delete the tape and record it anew.',
      );
  }
  return problems;
}

// A chaos run proves resilience only when its faults fired: none planned, none fired, or one its
// exchange never met is a problem.
function chaosProblems(file: string, summary: SessionSummary): string[] {
  const chaos = summary.chaos;
  if (chaos === undefined)
    return [`the session on ${file} replayed without chaos: open it with openTape(file, { chaos: { seed: 1 } }) (or modeltape run --chaos 1).`];
  const fired = chaos.faults.filter((fault) => fault.fired).length;
  if (fired === 0)
    return [`no chaos fault fired (seed ${chaos.seed}): the assertion checked nothing. ${chaos.faults.length} were planned on exchanges no request reached.`];
  return chaos.faults
    .filter((fault) => !fault.fired)
    .map(
      (fault) =>
        `the ${fault.kind} fault planned at ${file}:${fault.line ?? '?'} ${fault.endpoint} (seed ${chaos.seed}) never fired: no request reached that exchange.`,
    );
}

/**
 * What a session recorded, for an assertion that passes because the session is recording:
 * `tape t.jsonl (mode auto): recorded 2 exchanges, replayed 1; 1 recorded exchange unused …`.
 * Undefined in replay and passthrough.
 */
export function recordingNote(session: ReplayEvidence): string | undefined {
  const summary = session.summary();
  if (!isRecording(summary)) return undefined;
  const unused = summary.mode === 'auto' ? session.unused().length : 0;
  return (
    `modeltape: tape ${session.file} (mode ${summary.mode}): recorded ${summary.recorded} exchange${summary.recorded === 1 ? '' : 's'}, replayed ${summary.hits}` +
    `${unused > 0 ? `; ${unused} recorded exchange${unused === 1 ? ' was' : 's were'} not used (close({ prune: true }) drops them)` : ''}. ` +
    'The replay assertions pass while recording and are strict when the tape is replayed.'
  );
}

// The last note said of each session: several assertions on one session (a test's own, then
// tapePerTest's strict check) say what it recorded once, until it records more.
const saidOf = new WeakMap<ReplayEvidence, string>();

/** Writes the session's {@link recordingNote} to stderr, unless it is the one last written for it. */
export function sayRecordingNote(session: ReplayEvidence): void {
  const note = recordingNote(session);
  if (note === undefined || saidOf.get(session) === note) return;
  saidOf.set(session, note);
  process.stderr.write(`${note}\n`);
}

/** Zero connections to any upstream, nothing passed through or recorded, and no request escaped. */
export function assertNeverCalledUpstream(session: ReplayEvidence): void {
  fail(session, 'called upstream', replayProblems(session, { upstream: true }));
}

/** Every recorded exchange was used. A failure lists the unused ones: line, endpoint, ordinal, first line of the prompt. */
export function assertAllConsumed(session: ReplayEvidence): void {
  fail(session, 'left recordings unused', replayProblems(session, { consumed: true }));
}

/** No request missed the tape: every one was recorded, in this form. */
export function assertNoDrift(session: ReplayEvidence): void {
  fail(session, 'drifted', replayProblems(session, { drift: true }));
}

/** The three at once: replayed strictly. */
export function assertReplayedStrictly(session: ReplayEvidence): void {
  fail(session, 'did not replay strictly', replayProblems(session, { upstream: true, drift: true, consumed: true }));
}

/**
 * A chaos replay (`openTape(file, { chaos: { seed } })`) survived its faults: at least one fault
 * fired and every planned one did, and the run still completed as a strict replay (no miss,
 * nothing upstream, every recording used, so each faulted call was retried and answered).
 */
export function assertSurvivedChaos(session: ReplayEvidence): void {
  fail(session, 'did not survive chaos', replayProblems(session, { upstream: true, drift: true, consumed: true, chaos: true }));
}

/**
 * The exact request the code rendered is the recorded one: the raw bytes match (checked against
 * the recorded sha256 of the body as sent). On a failure the message shows the structural
 * difference, or says that the JSON is the same and only the bytes (key order, spacing) differ.
 *
 * @param actual the body the code rendered: bytes, text, or a JSON value (serialized with JSON.stringify)
 * @param recorded a recorded exchange or request, or the recorded bytes themselves
 */
export function assertRenderedExactly(actual: Uint8Array | ArrayBuffer | string | object, recorded: Exchange | RecordedRequest | Uint8Array | string): void {
  const actualBytes = toBytes(actual);
  const request = isExchange(recorded) ? recorded.request : isRecordedRequest(recorded) ? recorded : undefined;
  const recordedBytes = request === undefined ? toBytes(recorded as Uint8Array | string) : undefined;
  const same = request !== undefined ? sha256Hex(actualBytes) === request.bodySha256 : Buffer.from(actualBytes).equals(Buffer.from(recordedBytes!));
  if (same) return;
  const recordedValue = request !== undefined ? bodyValue(request) : parse(Buffer.from(recordedBytes!).toString('utf8'));
  const actualValue = parse(Buffer.from(actualBytes).toString('utf8'));
  const differences = diffJson(recordedValue, actualValue);
  let evidence: string;
  if (differences.length > 0)
    evidence = formatDifferences(differences)
      .map((line) => `  ${line}`)
      .join('\n');
  else if (canonicalJson(recordedValue) === canonicalJson(actualValue))
    evidence = '  the JSON values are the same; only the bytes differ (key order, spacing, number formatting or escapes)';
  else evidence = '  the bodies differ';
  throw new ReplayAssertionError(
    `The rendered request is not the recorded one, byte for byte.\n${evidence}\nIf the change is intended, record the tape again (see "Re-recording" in the README).`,
  );
}

function fail(session: ReplayEvidence, what: string, problems: string[]): void {
  if (problems.length === 0) {
    sayRecordingNote(session);
    return;
  }
  throw new ReplayAssertionError(`Tape ${session.file} ${what}:\n${problems.map((problem) => `  - ${problem.split('\n').join('\n    ')}`).join('\n')}`);
}

/** line | endpoint | ordinal | prompt, aligned. */
export function unusedTable(unused: readonly UnusedExchange[]): string {
  const rows = [
    ['line', 'endpoint', 'ordinal', 'prompt'],
    ...unused
      .slice(0, 50)
      .map((entry) => [entry.line === undefined ? '-' : String(entry.line), entry.endpoint, String(entry.ordinal), truncate(entry.prompt, 60)]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const lines = rows.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd(),
  );
  if (unused.length > 50) lines.push(`… and ${unused.length - 50} more`);
  return lines.join('\n');
}

function truncate(text: string, width: number): string {
  return excerpt(text, width);
}

function toBytes(value: Uint8Array | ArrayBuffer | string | object): Uint8Array {
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return Buffer.from(JSON.stringify(value), 'utf8');
}

function bodyValue(request: RecordedRequest): unknown {
  if (request.body === undefined) return undefined;
  if ('json' in request.body) return request.body.json;
  return parse(decodeBody(request.body).toString('utf8'));
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function isExchange(value: unknown): value is Exchange {
  return typeof value === 'object' && value !== null && 'request' in value && 'response' in value && 'key' in value;
}

function isRecordedRequest(value: unknown): value is RecordedRequest {
  return typeof value === 'object' && value !== null && !(value instanceof Uint8Array) && 'bodySha256' in value;
}
