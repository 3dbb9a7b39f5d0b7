import { formatDifferences, maskSecrets, ModeltapeError, type Difference, type ErrorCode } from '../core/internal.js';
import type { EffectKind, Json } from './journal-store.js';

/** An effect as the code asked for it, or as the journal holds it. */
export interface EffectRequest {
  key: string;
  kind: EffectKind;
  data: Json;
}

/**
 * Replay met code that does not do what the journal says it did: it asked for an effect the
 * journal does not hold (`extra`), in another order or with other arguments (`mismatch`), or it
 * ended before reaching a recorded effect (`unreached`).
 */
export class NondeterminismError extends ModeltapeError {
  readonly runId: string;
  readonly reason: 'extra' | 'mismatch' | 'unreached';
  readonly recorded: EffectRequest | undefined;
  readonly requested: EffectRequest | undefined;
  readonly differences: Difference[];

  constructor(
    runId: string,
    reason: 'extra' | 'mismatch' | 'unreached',
    recorded: EffectRequest | undefined,
    requested: EffectRequest | undefined,
    differences: Difference[] = [],
  ) {
    const lines: string[] = [];
    if (reason === 'extra') {
      lines.push(
        `Replay of run ${runId} asked for effect ${requested!.key} (${requested!.kind}), which the journal does not hold: the run recorded fewer effects.`,
      );
      lines.push(`  new:      ${requested!.key} ${summarize(requested!.data)}`);
    } else if (reason === 'unreached') {
      lines.push(`Replay of run ${runId} ended without reaching recorded effect ${recorded!.key} (${recorded!.kind}): the code now does less than it did.`);
      lines.push(`  recorded: ${recorded!.key} ${summarize(recorded!.data)}`);
    } else {
      lines.push(
        recorded!.key === requested!.key && recorded!.kind === 'policy'
          ? `Replay of run ${runId}: the policy now decides ${requested!.key} otherwise than it did (evaluated again on the inputs the journal holds).`
          : recorded!.key === requested!.key
            ? `Replay of run ${runId} asked for effect ${requested!.key} (${requested!.kind}) with other arguments than the journal holds.`
            : `Replay of run ${runId} asked for ${requested!.key} (${requested!.kind}) where the journal holds ${recorded!.key} (${recorded!.kind}): the effects come in another order.`,
      );
      lines.push(`  recorded: ${recorded!.key} ${summarize(recorded!.data)}`);
      lines.push(`  new:      ${requested!.key} ${summarize(requested!.data)}`);
      if (differences.length > 0) lines.push(...formatDifferences(differences).map((line) => `  ${line}`));
    }
    lines.push(
      reason === 'mismatch' && recorded?.kind === 'policy' && recorded.key === requested?.key
        ? 'The policy changed since the run was recorded: recheck(store, runId, policy) lists every evaluation it now decides otherwise.'
        : 'The code, its prompts or its tools changed since the run was recorded. Record the run again, or restore what changed.',
    );
    super('nondeterminism', lines.join('\n'));
    this.runId = runId;
    this.reason = reason;
    this.recorded = recorded;
    this.requested = requested;
    this.differences = differences;
  }
}

/** Another runtime holds the run's lease. */
export class RunLeasedError extends ModeltapeError {
  readonly runId: string;
  readonly owner: string;
  readonly expiresAt: number;
  constructor(runId: string, owner: string, expiresAt: number, now: number) {
    super(
      'run_leased',
      `Run ${runId} is leased to runtime ${owner} until ${instant(expiresAt)} (${Math.max(0, expiresAt - now)} ms from now).\nWait for that runtime to finish or for the lease to expire, then resume the run.`,
    );
    this.runId = runId;
    this.owner = owner;
    this.expiresAt = expiresAt;
  }
}

/** The runtime lost its lease (it expired and another runtime took the run) while running. */
export class LeaseLostError extends ModeltapeError {
  readonly runId: string;
  constructor(runId: string, owner: string) {
    super(
      'lease_lost',
      `Runtime ${owner} lost its lease on run ${runId} (it expired and was not renewed in time): it stopped, writing nothing more. Raise the lease TTL if steps take longer.`,
    );
    this.runId = runId;
  }
}

export class RunNotFoundError extends ModeltapeError {
  readonly runId: string;
  constructor(runId: string) {
    super('run_not_found', `Run ${runId} is not in this journal. Check the run id and that the runtime opened the same journal file.`);
    this.runId = runId;
  }
}

/**
 * A journal write failed with an error the store did not name as a storage problem: a plain
 * `Error` (a store of yours, a driver's error), or one that kept coming back after the runtime
 * checked what had been stored and retried. Its `cause` is what the store threw last. A storage
 * problem the store named is a {@link JournalStorageError} instead, retried or not.
 */
export class JournalWriteError extends ModeltapeError {
  /** The run this error stopped, when a runtime was driving one (set by the runtime as the error leaves it). */
  runId?: string;
  constructor(what: string, attempts: number, cause: unknown) {
    super(
      'journal_write_failed',
      `Could not write ${what} to the journal after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${(cause as Error)?.message ?? String(cause)}\nThe runtime stopped there. Nothing after it was performed, and the run is left as the journal holds it. Resume it (runtime.resume) once the store is healthy; an effect that started and was not recorded as ended will be settled then, never run blindly.`,
      { cause },
    );
  }
}

/** Why the journal's file refused a read or a write. */
export const JOURNAL_STORAGE_PROBLEMS = ['full', 'read_only', 'io', 'busy'] as const;
export type JournalStorageProblem = (typeof JOURNAL_STORAGE_PROBLEMS)[number];

const READS = ['getRun', 'read', 'backstopRejections', 'getLease', 'approvals'];

const STORAGE: Record<JournalStorageProblem, { code: ErrorCode; what: string; next: string }> = {
  full: {
    code: 'journal_full',
    what: 'the disk is full, or the journal reached its maxSizeBytes',
    next: 'Free space on the disk that holds it (or raise maxSizeBytes, or move the journal to a larger disk)',
  },
  read_only: {
    code: 'journal_read_only',
    what: 'the journal cannot be written (a read-only file, folder or mount)',
    next: 'Check that this user may write the file and its folder (SQLite also writes the -wal and -shm files beside it) and that the disk is not mounted read-only',
  },
  io: {
    code: 'journal_io_error',
    what: 'the disk or file system reported an I/O error',
    next: "Check the disk and its file system (kernel log), and keep the journal on a local disk: network file systems break SQLite's locks",
  },
  busy: {
    code: 'journal_busy',
    what: "another connection held the journal's write lock past the busy timeout",
    next: 'Find the process holding the journal in a long transaction, or raise busyTimeoutMs',
  },
};

// What went wrong, said of a database server rather than a file.
const SERVER_WHAT: Record<JournalStorageProblem, string> = {
  full: "the database server's disk is full",
  read_only: 'the database takes no writes here',
  io: 'the connection to the database server failed',
  busy: 'a lock on the journal was held past the timeout',
};

/**
 * The journal's file refused a read or a write: the disk is full (`journal_full`), the file is
 * read-only (`journal_read_only`), an I/O error (`journal_io_error`), or the write lock stayed
 * taken past the busy timeout (`journal_busy`). The failed write was not stored.
 */
export class JournalStorageError extends ModeltapeError {
  /** The run this error stopped, when a runtime was driving one (set by the runtime as the error leaves it). */
  runId?: string;
  readonly path: string;
  readonly problem: JournalStorageProblem;
  /** What the store was doing: `append`, `createRun`, `releaseLease`, `open`, … */
  readonly operation: string;
  /** SQLite's primary result code, e.g. `SQLITE_FULL`; on PostgreSQL, the SQLSTATE or the socket's error code (`08006`, `ECONNRESET`). */
  readonly sqliteCode: string;
  /** A lock or an I/O hiccup may pass; a full disk or a read-only file does not, so the runtime stops at once. */
  readonly retryable: boolean;
  /** @param hint what to do, where the store is not a SQLite file (PostgreSQL's own advice) */
  constructor(path: string, problem: JournalStorageProblem, operation: string, sqliteCode: string, cause: unknown, hint?: string) {
    const { code, what: fileWhat, next: fileNext } = STORAGE[problem];
    const next = hint ?? fileNext;
    const what = hint === undefined ? fileWhat : SERVER_WHAT[problem];
    super(
      code,
      `Could not ${operation === 'open' ? 'open' : READS.includes(operation) ? 'read' : 'write to'} the journal at ${path} (${operation}): ${what} (${sqliteCode}: ${(cause as Error)?.message ?? String(cause)}).\n` +
        `${next}; then resume the run (runtime.resume): a write that failed was not stored, and nothing after it ran.`,
      { cause },
    );
    this.path = path;
    this.problem = problem;
    this.operation = operation;
    this.sqliteCode = sqliteCode;
    this.retryable = problem === 'busy' || problem === 'io';
  }
}

/** What is wrong with a file given as the journal. */
export const JOURNAL_FILE_PROBLEMS = ['not_sqlite', 'not_a_journal', 'newer_schema', 'corrupt'] as const;
export type JournalFileProblem = (typeof JOURNAL_FILE_PROBLEMS)[number];

/**
 * The file given as the journal is not one this runtime can use, found when the store opens it:
 * not SQLite at all (a text file, a tape, random bytes), a SQLite database that is not a journal,
 * a journal of a newer schema, or a damaged or truncated one. The file is left as it was.
 */
export class JournalFileError extends ModeltapeError {
  /** The run this error stopped, when a runtime was driving one (set by the runtime as the error leaves it). */
  runId?: string;
  readonly path: string;
  readonly problem: JournalFileProblem;
  /** What the store found there, e.g. `a modeltape tape (JSONL)`. */
  readonly found: string;
  constructor(path: string, problem: JournalFileProblem, found: string, cause?: unknown) {
    const next: Record<JournalFileProblem, string> = {
      not_sqlite: 'A journal is a SQLite file the runtime creates: pass the path of a journal, or a path where no file exists yet to start one.',
      not_a_journal: 'Pass the path of a journal, or a path where no file exists yet to start one; the runtime does not add its tables to another database.',
      newer_schema: 'Upgrade modeltape to the version that wrote it, or open another journal.',
      corrupt: `Restore it from a backup, or salvage what SQLite can read (sqlite3 ${path} .recover), or move it aside to start a new journal (its runs are then lost).`,
    };
    super(
      `journal_${problem}` satisfies ErrorCode,
      `Cannot use ${path} as the journal: it is ${found}. It was left as it was.\n${next[problem]}`,
      cause === undefined ? undefined : { cause },
    );
    this.path = path;
    this.problem = problem;
    this.found = found;
  }
}

/** The model provider answered with an error status, or with something that is not a model answer. */
export class ModelCallError extends ModeltapeError {
  readonly status: number | undefined;
  constructor(message: string, status?: number, cause?: unknown) {
    super('model_call_failed', message, { cause });
    this.status = status;
  }
}

function summarize(data: Json): string {
  const text = maskSecrets(JSON.stringify(data));
  return text.length > 160 ? `${text.slice(0, 100)}…${text.slice(-40)} (${text.length} chars)` : text;
}

function instant(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? `clock reading ${ms}` : date.toISOString();
}

/** A failure the journal holds for an effect (or one just recorded): read back, it is thrown again. */
export class RecordedFailure extends ModeltapeError {
  readonly data: Json;
  constructor(data: Json) {
    const { name, message } = (data ?? {}) as { name?: string; message?: string };
    super('effect_failed', `${name ?? 'Error'}: ${message ?? 'the effect failed'}`);
    this.data = data;
  }
}
