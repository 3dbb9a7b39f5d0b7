import { ModeltapeError } from '../core/internal.js';
import { JournalFileError, JournalStorageError, JournalWriteError } from './errors.js';
import { SimulatedCrash } from './faulty.js';
import { recordId, type Clock } from './ids.js';
import type { AppendOutcome, JournalRecord, JournalStore, Json, StoredRecord } from './journal-store.js';
import { ReplayCursor } from './replay-cursor.js';

const WRITE_ATTEMPTS = 5;

/** What one invocation's journal writes with. */
export interface EffectJournalSetup {
  store: JournalStore;
  runId: string;
  /** Goes into every record id: `<owner>#<invocation>`. */
  writer: string;
  clock: Clock;
  /** A strict replay that reads back: any append is a bug. */
  readOnly: boolean;
}

/** How journaling an effect's start went. */
export type EffectStart =
  /** The start is journaled: perform the effect. */
  | { started: true }
  /** The unique index (the backstop) rejected it, and the journal holds the effect's end. */
  | { started: false; end: StoredRecord }
  /** The backstop rejected it, and the effect never ended: it is in doubt after `attempts` attempts. */
  | { started: false; end: undefined; attempts: number };

/**
 * One invocation's writes to the journal store: effect records (kept by id, so a retried record
 * never lands twice), the backstop's answer when a start is rejected, and every other write
 * (run, lease, approvals), each retried while the store's error is one a retry may fix.
 */
export class EffectJournal {
  readonly #setup: EffectJournalSetup;
  #rejectionsBefore = 0;

  constructor(setup: EffectJournalSetup) {
    this.#setup = setup;
  }

  /** The record of an effect's start, completion or failure, stamped now. */
  record(key: string, type: JournalRecord['type'], data: Json): JournalRecord {
    const { clock, runId, writer } = this.#setup;
    const at = clock();
    return { id: recordId(at, runId, key, type, writer), runId, effectKey: key, type, data, at };
  }

  /**
   * Journals an effect's start. When the backstop rejects it, another start of the effect is in
   * the journal: its end answers, or the effect is in doubt.
   */
  async start(key: string, data: Json): Promise<EffectStart> {
    const { store, runId } = this.#setup;
    const [outcome] = await this.append([this.record(key, 'start', data)]);
    if (outcome !== 'rejected') return { started: true };
    const end = (await store.read(runId)).find((record) => record.effectKey === key && record.type !== 'start');
    if (end !== undefined) return { started: false, end };
    return { started: false, end: undefined, attempts: new ReplayCursor(await store.read(runId)).attemptsOf(key) };
  }

  /** Journals how an effect ended. */
  async end(key: string, type: 'complete' | 'fail', data: Json): Promise<void> {
    await this.append([this.record(key, type, data)]);
  }

  /**
   * Appends, surviving a store that fails: after an error it reads what was stored and appends
   * the rest again (by record id, so nothing lands twice).
   */
  async append(records: JournalRecord[]): Promise<AppendOutcome[]> {
    const { store, runId } = this.#setup;
    if (this.#setup.readOnly) throw new ModeltapeError('internal', 'strict replay tried to write to the journal');
    let lastError: unknown;
    let lastWriteError: unknown;
    for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
      try {
        return await store.append(records);
      } catch (error) {
        if (error instanceof SimulatedCrash) throw error;
        if (!isRetryable(error)) throw asStoreFailure(error, `${records.length === 1 ? 'a record' : `${records.length} records`} of run ${runId}`, attempt);
        lastError = error;
        lastWriteError = error;
      }
      try {
        const stored = await store.read(runId);
        const byId = new Set(stored.map((record) => record.id));
        if (records.every((record) => byId.has(record.id))) return records.map(() => 'appended');
      } catch (error) {
        if (error instanceof SimulatedCrash) throw error;
        lastError = error;
      }
    }
    throw givenUp(
      `${records.length} record${records.length === 1 ? '' : 's'} of run ${runId} (${records.map((record) => `${record.effectKey} ${record.type}`).join(', ')})`,
      lastWriteError,
      lastError,
    );
  }

  /** A write other than an append: retried (each is idempotent), or confirmed by `verify` after an error. */
  async write<T>(what: string, operation: () => Promise<T>, verify?: () => Promise<boolean>): Promise<T> {
    let lastError: unknown;
    for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
      try {
        return await operation();
      } catch (error) {
        if (error instanceof SimulatedCrash) throw error;
        if (!isRetryable(error)) throw asStoreFailure(error, what, attempt);
        lastError = error;
        if (verify !== undefined) {
          try {
            if (await verify()) return undefined as T;
          } catch (verifyError) {
            if (verifyError instanceof SimulatedCrash) throw verifyError;
          }
        }
      }
    }
    throw givenUp(what, lastError, lastError);
  }

  /** From here on, {@link backstopHits} counts: the rejections the store already holds for the run (none for a new run) do not. */
  async countBackstopHits(newRun: boolean): Promise<void> {
    this.#rejectionsBefore = newRun ? 0 : await this.#setup.store.backstopRejections(this.#setup.runId);
  }

  /** How many start records the unique index rejected since {@link countBackstopHits}. */
  async backstopHits(): Promise<number> {
    return (await this.#setup.store.backstopRejections(this.#setup.runId)) - this.#rejectionsBefore;
  }
}

/**
 * Whether an error is the journal failing (a write given up on, a full or broken store), not the
 * effect: the run stops, and an effect under way is not recorded as failed.
 */
export function isStoreFailure(error: unknown): boolean {
  return error instanceof JournalWriteError || error instanceof JournalStorageError || error instanceof JournalFileError;
}

// Store errors that a retry may fix; a RunExistsError or a programming error is not one of them.
// What a store throws that is not modeltape's own (a plain Error from a store of the user's, a
// driver's error) is a store failure all the same: it stops the run, and is never handed to a
// tool or the model as the tool's failure.
function asStoreFailure(error: unknown, what: string, attempts: number): unknown {
  return error instanceof ModeltapeError ? error : new JournalWriteError(what, attempts, error);
}

// A write given up on after its attempts. A storage error the store named (an I/O error, a lost
// connection to the server, a lock held too long) reaches the caller as it is, `code` and
// `retryable` included, as a full disk does at once: the caller catches one class for the
// storage failing, whatever the store. What the store threw unnamed is wrapped.
function givenUp(what: string, lastWriteError: unknown, lastError: unknown): unknown {
  return lastWriteError instanceof JournalStorageError ? lastWriteError : new JournalWriteError(what, WRITE_ATTEMPTS, lastError);
}

function isRetryable(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return (
    code === 'store_fault' ||
    code === 'SQLITE_BUSY' ||
    code === 'SQLITE_LOCKED' ||
    code === 'SQLITE_IOERR' ||
    (error as { retryable?: unknown })?.retryable === true
  );
}
