import { appendFileSync, closeSync, constants, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { threadId } from 'node:worker_threads';
import type { Escape, OutsideConnection } from './escape.js';

/** What one `openTape` session in a process of the run saw, reported when it closed (or when its process exited). */
export interface SessionReport {
  tape: string;
  mode: string;
  process: string;
  hits: number;
  misses: number;
  recorded: number;
  /** Of `recorded`, the re-recordings that replaced a recording of the same request. Absent in reports before 0.3. */
  replaced?: number;
  passthrough: number;
  refused: number;
  /** Exchanges the session could not write to its tape (a full disk, an I/O error). */
  writeErrors: number;
  upstreamErrors: number;
  /** Requests modeltape itself failed on (each answered 500). Absent in reports of 0.1. */
  internalErrors?: number;
  upstreamConnections: number;
  /** The first problems (misses, refusals), as the session's summary has them. */
  problems: string[];
  /** Drift items (for `modeltape drift`), JSON as the drift report has them. */
  drifts: unknown[];
  /** False when the process exited before the session's close(). */
  closed: boolean;
  /** The tape's real path (the tape given, when `modeltape mutate` swapped in a mutant). Absent in reports before 0.2. */
  path?: string;
  /** The tape lines of the exchanges the session answered from. Absent in reports before 0.2. */
  used?: number[];
  /** How many recordings the tape held when the session opened (replay and auto). Absent in reports before 0.3. */
  recordings?: number;
  /**
   * The tests whose requests the session answered, as far as they are known: the Vitest or Jest
   * test running when each came through its `fetch`, the node:test test it was opened for
   * (`openTape(file, { test: t })`, `tapePerTest()` of `modeltape/node-test`), or only the test
   * file (a request in a `beforeAll`; any request in a node:test file's own process). Absent when
   * one came from where no test file is known (a script, a global setup) or past its `fetch` under
   * Vitest or Jest (a client given its `baseUrls`). `modeltape mutate --selective` runs only these
   * tests, or files, for a mutant of the tape.
   */
  tests?: ReportedTest[];
}

/** A test, or a whole test file, as its runner names it, for a command to run it alone. */
export interface ReportedTest {
  runner: 'vitest' | 'jest' | 'node:test';
  /** The test file's absolute path. */
  file: string;
  /** Vitest's and node:test's `describe > test`, Jest's `describe test`; absent for the whole file. */
  name?: string;
  /** node:test: the test's own name (`t.name`), which Node 20's `--test-name-pattern` matches. */
  leaf?: string;
}

/** One line of a run's report file. */
export type RunReportRecord =
  | { kind: 'escape'; escape: Escape }
  | { kind: 'outside'; connection: Omit<OutsideConnection, 'count'> }
  | { kind: 'session'; session: SessionReport };

/** What every process of a run reported. */
export interface RunReport {
  escapes: Escape[];
  outside: OutsideConnection[];
  sessions: SessionReport[];
  /** Lines that could not be read (a process killed mid-write). */
  unreadable: number;
  /** The file was gone when the run read it: a process of the command removed it. */
  lost?: boolean;
  /**
   * Records the command's processes could not append (a full disk under the run's temporary
   * folder), each signalled through the run's pipe by its kind and error code (`escape ENOSPC`).
   */
  unreported?: string[];
}

/**
 * Appends one record to a run's report file: one line, one `write` with O_APPEND, so processes
 * reporting at once never tear each other's lines. Synchronous, so a process that exits (or is
 * about to crash) right after still reports. Never throws: a guard that cannot report still blocks.
 */
export function appendRunReport(file: string, record: RunReportRecord): void {
  try {
    appendFileSync(file, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  } catch (error) {
    signalUnreported(file, record.kind, error as NodeJS.ErrnoException);
  }
}

/**
 * The run's signal pipe beside its report file (a FIFO, which takes no disk space): a process that
 * could not append a record (a full disk, an I/O error) says so there, so the run knows its report
 * is not whole and fails, saying why.
 */
export function reportSignalPath(file: string): string {
  return join(dirname(file), 'report.signal');
}

// One short line, written whole (a pipe takes a write under 4 KiB at once), without waiting: the
// pipe is opened non-blocking, and a run that is gone (no reader, no pipe) is nobody left to tell.
function signalUnreported(file: string, kind: string, error: NodeJS.ErrnoException): void {
  let descriptor: number | undefined;
  try {
    descriptor = openSync(reportSignalPath(file), constants.O_WRONLY | constants.O_NONBLOCK);
    writeSync(descriptor, `${kind} ${error.code ?? 'error'}\n`);
  } catch {
    // The run ended, or this platform has no pipe: nobody can be told.
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/** Reads a run's report file; a missing file is an empty report. */
export function readRunReport(file: string): RunReport {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { escapes: [], outside: [], sessions: [], unreadable: 0 };
  }
  const report: RunReport = { escapes: [], outside: [], sessions: [], unreadable: 0 };
  const outside = new Map<string, OutsideConnection>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    let record: RunReportRecord;
    try {
      record = JSON.parse(line) as RunReportRecord;
    } catch {
      report.unreadable++;
      continue;
    }
    if (record.kind === 'escape') report.escapes.push(record.escape);
    else if (record.kind === 'session') report.sessions.push(record.session);
    else if (record.kind === 'outside') {
      const { host, port, via, process: name } = record.connection;
      const id = `${host}:${port}\u0000${via}\u0000${name ?? ''}`;
      const seen = outside.get(id);
      if (seen) seen.count++;
      else outside.set(id, { ...record.connection, count: 1 });
    }
  }
  report.outside = [...outside.values()];
  return report;
}

/**
 * This process as a summary names it: `pid 4242 node test/app.mjs`, with a worker thread's id.
 * Only the script is named, never the other arguments (they may hold anything).
 */
export function describeThisProcess(): string {
  // `node -e CODE arg` has no script: argv[1] is then an argument, which may hold anything.
  const evaluated = process.execArgv.some((flag) => /^(-e|--eval|-p|--print|-i|--interactive)(=|$)/.test(flag));
  const script = evaluated || process.argv[1] === undefined || !existsSync(process.argv[1]) ? undefined : process.argv[1];
  const shown =
    script === undefined ? '' : ` ${isAbsolute(script) && !relative(process.cwd(), script).startsWith('..') ? relative(process.cwd(), script) : script}`;
  return `pid ${process.pid}${threadId > 0 ? ` thread ${threadId}` : ''} ${basename(process.argv0 || 'node')}${shown}`;
}
