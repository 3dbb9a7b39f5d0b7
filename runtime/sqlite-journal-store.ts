import { ModeltapeError } from '../core/internal.js';
import type { AppendOutcome, ApprovalRecord, JournalRecord, JournalStore, Json, Lease, RunRecord, RunStatus, StoredRecord } from './journal-store.js';
import { checkJournalSchema, inspectJournalFile, journalFailure, JOURNAL_SCHEMA_VERSION } from './journal-file.js';
import { approvalOf, approvalValues, recordOf, runOf, runValues, type ApprovalRow, type RecordRow, type RunRow } from './journal-rows.js';
import { immediateTransaction, openSqlite, uniqueViolation, type SqliteConnection, type SqliteDriverName, type SqliteValue } from './sqlite-driver.js';

export interface SqliteJournalStoreOptions {
  /** A database file (created when missing), or `':memory:'` for a store that lives as long as the handle. */
  path: string;
  /** How long a connection waits for another's write lock before failing. @default 5000 */
  busyTimeoutMs?: number;
  /**
   * Which SQLite to run on: Node's built-in `node:sqlite` (Node 22.13 and later), the
   * `better-sqlite3` package (an optional peer dependency: `npm install better-sqlite3@12.11.1`),
   * or `'auto'`: node:sqlite where this Node has it, else better-sqlite3. Either writes SQLite's
   * own file format. An unavailable driver is a `SqliteDriverMissingError` (code
   * `sqlite_driver_missing`) saying why and what to install.
   * @default 'auto'
   */
  driver?: SqliteDriverName | 'auto';
  /**
   * The size the journal may grow to (SQLite's `max_page_count`): past it, a write fails as on a
   * full disk, with a `JournalStorageError` (code `journal_full`) naming the file. @default no limit
   */
  maxSizeBytes?: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY,
  agent TEXT NOT NULL,
  input TEXT NOT NULL,
  status TEXT NOT NULL,
  result TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS records (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  effect_key TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('start', 'complete', 'fail')),
  data TEXT NOT NULL,
  at INTEGER NOT NULL,
  UNIQUE (run_id, position)
);
-- The backstop: one start per effect.
CREATE UNIQUE INDEX IF NOT EXISTS records_one_start_per_effect ON records (run_id, effect_key) WHERE type = 'start';
CREATE TABLE IF NOT EXISTS backstop (
  run_id TEXT PRIMARY KEY,
  rejections INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS leases (
  run_id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS approvals (
  approval_id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  effect_key TEXT NOT NULL,
  kind TEXT NOT NULL,
  reason TEXT NOT NULL,
  request TEXT NOT NULL,
  decision TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  decided_at INTEGER
);
CREATE INDEX IF NOT EXISTS approvals_by_run ON approvals (run_id);
`;

/** Thrown when a run is created twice. */
export class RunExistsError extends ModeltapeError {
  readonly runId: string;
  constructor(runId: string) {
    super('run_exists', `Run ${runId} already exists in this journal. Run ids must be unique: inject an id source that does not repeat.`);
    this.runId = runId;
  }
}

/**
 * The journal on SQLite (WAL, on node:sqlite or better-sqlite3): one file per store, or
 * `':memory:'`. Appends are one immediate transaction per batch, so records land at consecutive
 * positions even with other connections writing; a partial unique index on start records is the
 * backstop, and what it rejects is counted per run.
 */
export class SqliteJournalStore implements JournalStore {
  readonly path: string;
  /** The SQLite driver this store runs on. */
  readonly driver: SqliteDriverName;
  #db: SqliteConnection;
  #shared: { handles: number };
  #closed = false;
  #statements: ReturnType<typeof prepare>;
  #busyTimeoutMs: number;
  #maxSizeBytes: number | undefined;

  private constructor(
    path: string,
    db: SqliteConnection,
    driver: SqliteDriverName,
    busyTimeoutMs: number,
    maxSizeBytes: number | undefined,
    shared: { handles: number },
  ) {
    this.path = path;
    this.driver = driver;
    this.#db = db;
    this.#busyTimeoutMs = busyTimeoutMs;
    this.#maxSizeBytes = maxSizeBytes;
    this.#shared = shared;
    this.#statements = prepare(db);
  }

  #appendBatch(records: readonly JournalRecord[]): AppendOutcome[] {
    const statements = this.#statements;
    return immediateTransaction(this.#db, () => {
      const next = new Map<string, number>();
      return records.map((record) => {
        const held = statements.recordExists.get(record.id) as { run_id: string; effect_key: string; type: string } | undefined;
        if (held !== undefined) {
          if (held.run_id === record.runId && held.effect_key === record.effectKey && held.type === record.type) return 'duplicate';
          throw new ModeltapeError(
            'record_id_collision',
            `Record id ${record.id} is already in the journal for run ${held.run_id}, ${held.effect_key} ${held.type}; it cannot also be run ${record.runId}, ${record.effectKey} ${record.type}. Record ids must be unique: the runtime derives them from the run, the effect and the writer.`,
          );
        }
        let position = next.get(record.runId);
        if (position === undefined) position = ((statements.lastPosition.get(record.runId) as { last: number | null }).last ?? 0) + 1;
        try {
          statements.insertRecord.run(record.id, record.runId, position, record.effectKey, record.type, JSON.stringify(record.data), record.at);
        } catch (error) {
          if (uniqueViolation(error) === 'records.run_id, records.effect_key') {
            statements.countRejection.run(record.runId);
            return 'rejected';
          }
          throw error;
        }
        next.set(record.runId, position + 1);
        return 'appended';
      });
    });
  }

  /**
   * Opens (creating when missing) a store. A file that is not a journal (not SQLite, another
   * database, a newer schema, a damaged or truncated file) is a `JournalFileError` naming it and
   * what was found, thrown here, before anything is written to it.
   */
  static open(options: SqliteJournalStoreOptions | string): SqliteJournalStore {
    const { path, busyTimeoutMs = 5000, driver = 'auto', maxSizeBytes } = typeof options === 'string' ? { path: options } : options;
    const timeout = Math.max(0, Math.floor(busyTimeoutMs));
    let opened: ReturnType<typeof openSqlite> | undefined;
    try {
      inspectJournalFile(path);
      opened = openSqlite(path, driver);
      const db = opened.connection;
      db.exec(`PRAGMA busy_timeout = ${timeout}`);
      checkJournalSchema(db, path);
      if (path !== ':memory:') db.exec('PRAGMA journal_mode = WAL');
      // WAL with NORMAL: a commit survives a process crash; only a power loss can take the last ones.
      db.exec('PRAGMA synchronous = NORMAL');
      db.exec(SCHEMA);
      if ((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version !== JOURNAL_SCHEMA_VERSION)
        db.exec(`PRAGMA user_version = ${JOURNAL_SCHEMA_VERSION}`);
      if (maxSizeBytes !== undefined) {
        const pageSize = (db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size;
        db.exec(`PRAGMA max_page_count = ${Math.max(1, Math.floor(maxSizeBytes / pageSize))}`);
      }
    } catch (error) {
      opened?.connection.close();
      // A missing driver, an invalid option or a file that is no journal says so itself.
      if (error instanceof ModeltapeError) throw error;
      const failure = journalFailure(error, path, 'open');
      if (failure !== error) throw failure;
      throw new ModeltapeError(
        'journal_open_failed',
        `Could not open the journal at ${path}: ${(error as Error).message}\nCheck that its folder exists and is writable, and that the file is a journal.`,
        { cause: error },
      );
    }
    return new SqliteJournalStore(path, opened.connection, opened.driver, timeout, maxSizeBytes, { handles: 1 });
  }

  /** An in-memory store. */
  static memory(): SqliteJournalStore {
    return SqliteJournalStore.open(':memory:');
  }

  /**
   * Another connection to the same store: a new connection to the file, or (in memory, where a
   * database has one connection) another handle on it. Each handle is closed on its own.
   */
  connect(): SqliteJournalStore {
    this.#assertOpen();
    if (this.path === ':memory:') {
      this.#shared.handles++;
      return new SqliteJournalStore(this.path, this.#db, this.driver, this.#busyTimeoutMs, this.#maxSizeBytes, this.#shared);
    }
    return SqliteJournalStore.open({
      path: this.path,
      busyTimeoutMs: this.#busyTimeoutMs,
      driver: this.driver,
      ...(this.#maxSizeBytes === undefined ? {} : { maxSizeBytes: this.#maxSizeBytes }),
    });
  }

  async createRun(run: RunRecord): Promise<void> {
    return this.#guard('createRun', () => {
      try {
        this.#statements.insertRun.run(...(runValues(run) as SqliteValue[]));
      } catch (error) {
        if (uniqueViolation(error) === 'runs.run_id') throw new RunExistsError(run.runId);
        throw error;
      }
    });
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    return this.#guard('getRun', () => {
      const row = this.#statements.getRun.get(runId) as RunRow | undefined;
      return row === undefined ? undefined : runOf(row);
    });
  }

  async updateRun(runId: string, update: { status: RunStatus; result: Json; updatedAt: number }): Promise<void> {
    return this.#guard('updateRun', () => {
      this.#statements.updateRun.run(update.status, JSON.stringify(update.result), update.updatedAt, runId);
    });
  }

  async append(records: readonly JournalRecord[]): Promise<AppendOutcome[]> {
    return this.#guard('append', () => {
      if (records.length === 0) return [];
      return this.#appendBatch(records);
    });
  }

  async read(runId: string): Promise<StoredRecord[]> {
    return this.#guard('read', () => {
      return (this.#statements.readRecords.all(runId) as RecordRow[]).map(recordOf);
    });
  }

  async backstopRejections(runId: string): Promise<number> {
    return this.#guard('backstopRejections', () => (this.#statements.rejections.get(runId) as { rejections: number } | undefined)?.rejections ?? 0);
  }

  async acquireLease(runId: string, owner: string, expiresAt: number, now: number): Promise<{ acquired: boolean; lease: Lease }> {
    return this.#guard('acquireLease', () => {
      const statements = this.#statements;
      return immediateTransaction(this.#db, () => {
        const held = statements.getLease.get(runId) as { owner: string; expires_at: number } | undefined;
        if (held !== undefined && held.owner !== owner && held.expires_at > now)
          return { acquired: false, lease: { owner: held.owner, expiresAt: held.expires_at } };
        statements.putLease.run(runId, owner, expiresAt);
        return { acquired: true, lease: { owner, expiresAt } };
      });
    });
  }

  async renewLease(runId: string, owner: string, expiresAt: number): Promise<boolean> {
    return this.#guard('renewLease', () => Number(this.#statements.renewLease.run(expiresAt, runId, owner).changes) === 1);
  }

  async releaseLease(runId: string, owner: string): Promise<boolean> {
    return this.#guard('releaseLease', () => Number(this.#statements.releaseLease.run(runId, owner).changes) === 1);
  }

  async getLease(runId: string): Promise<Lease | undefined> {
    return this.#guard('getLease', () => {
      const held = this.#statements.getLease.get(runId) as { owner: string; expires_at: number } | undefined;
      return held === undefined ? undefined : { owner: held.owner, expiresAt: held.expires_at };
    });
  }

  async requestApproval(approval: ApprovalRecord): Promise<ApprovalRecord> {
    return this.#guard('requestApproval', () => {
      this.#statements.insertApproval.run(...(approvalValues(approval) as SqliteValue[]));
      return approvalOf(this.#statements.getApproval.get(approval.approvalId) as ApprovalRow);
    });
  }

  async decideApproval(approvalId: string, decision: 'approved' | 'rejected', decidedAt: number): Promise<ApprovalRecord | undefined> {
    return this.#guard('decideApproval', () => {
      this.#statements.decideApproval.run(decision, decidedAt, approvalId);
      const row = this.#statements.getApproval.get(approvalId) as ApprovalRow | undefined;
      return row === undefined ? undefined : approvalOf(row);
    });
  }

  async approvals(runId: string): Promise<ApprovalRecord[]> {
    return this.#guard('approvals', () => (this.#statements.approvalsOf.all(runId) as ApprovalRow[]).map(approvalOf));
  }

  async consumeApproval(approvalId: string, at: number): Promise<boolean> {
    return this.#guard('consumeApproval', () => Number(this.#statements.consumeApproval.run(at, approvalId).changes) === 1);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (--this.#shared.handles === 0) this.#db.close();
  }

  /** Runs one store operation; a driver's storage or damage error becomes the journal's own, naming the file. */
  #guard<T>(operation: string, work: () => T): T {
    this.#assertOpen();
    try {
      return work();
    } catch (error) {
      throw journalFailure(error, this.path, operation);
    }
  }

  #assertOpen(): void {
    if (this.#closed)
      throw new ModeltapeError('journal_closed', `The journal store at ${this.path} is closed: open it again (SqliteJournalStore.open) to read or write it.`);
  }
}

function prepare(db: SqliteConnection) {
  return {
    insertRun: db.prepare('INSERT INTO runs (run_id, agent, input, status, result, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    getRun: db.prepare('SELECT * FROM runs WHERE run_id = ?'),
    updateRun: db.prepare('UPDATE runs SET status = ?, result = ?, updated_at = ? WHERE run_id = ?'),
    recordExists: db.prepare('SELECT run_id, effect_key, type FROM records WHERE id = ?'),
    lastPosition: db.prepare('SELECT MAX(position) AS last FROM records WHERE run_id = ?'),
    insertRecord: db.prepare('INSERT INTO records (id, run_id, position, effect_key, type, data, at) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    readRecords: db.prepare('SELECT * FROM records WHERE run_id = ? ORDER BY position'),
    countRejection: db.prepare('INSERT INTO backstop (run_id, rejections) VALUES (?, 1) ON CONFLICT (run_id) DO UPDATE SET rejections = rejections + 1'),
    rejections: db.prepare('SELECT rejections FROM backstop WHERE run_id = ?'),
    getLease: db.prepare('SELECT owner, expires_at FROM leases WHERE run_id = ?'),
    putLease: db.prepare(
      'INSERT INTO leases (run_id, owner, expires_at) VALUES (?, ?, ?) ON CONFLICT (run_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at',
    ),
    renewLease: db.prepare('UPDATE leases SET expires_at = ? WHERE run_id = ? AND owner = ?'),
    releaseLease: db.prepare('DELETE FROM leases WHERE run_id = ? AND owner = ?'),
    insertApproval: db.prepare(
      'INSERT INTO approvals (approval_id, run_id, effect_key, kind, reason, request, decision, created_at, decided_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (approval_id) DO NOTHING',
    ),
    getApproval: db.prepare('SELECT * FROM approvals WHERE approval_id = ?'),
    decideApproval: db.prepare("UPDATE approvals SET decision = ?, decided_at = ? WHERE approval_id = ? AND decision = 'pending'"),
    approvalsOf: db.prepare('SELECT * FROM approvals WHERE run_id = ? ORDER BY created_at, approval_id'),
    consumeApproval: db.prepare("UPDATE approvals SET decision = 'consumed', decided_at = ? WHERE approval_id = ? AND decision = 'approved'"),
  };
}
