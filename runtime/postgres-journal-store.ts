import { ModeltapeError } from '../core/internal.js';
import type { AppendOutcome, ApprovalRecord, JournalRecord, JournalStore, Json, Lease, RunRecord, RunStatus, StoredRecord } from './journal-store.js';
import { JournalFileError, JournalStorageError, type JournalStorageProblem } from './errors.js';
import { approvalOf, approvalValues, recordOf, runOf, runValues, type ApprovalRow, type RecordRow, type RunRow } from './journal-rows.js';
import { openPgPool, type PgClient, type PgPool } from './pg-driver.js';
import { RunExistsError } from './sqlite-journal-store.js';

export interface PostgresJournalStoreOptions {
  /**
   * Where the journal is: a connection string (`postgresql://user@host:5432/db`; the store opens
   * its own pool and closes it), or a `pg.Pool` of yours (the store uses it and leaves it open).
   */
  connection: string | PgPool;
  /** The schema the journal's tables live in, created when missing. @default "modeltape" */
  schema?: string;
  /** Connections in the store's own pool. @default 10 */
  maxConnections?: number;
  /**
   * How many times a transaction the server aborted for a serialization failure or a deadlock is
   * run again: it was rolled back, so running it again is safe. @default 5
   */
  retries?: number;
}

/** The journal schema's version in PostgreSQL, kept in `<schema>.journal_meta`. */
export const POSTGRES_JOURNAL_SCHEMA_VERSION = 2;

// Each version's statements, in order: a journal at version N runs MIGRATIONS[N…] to reach the current one.
const MIGRATIONS: ReadonlyArray<(quoted: string, schema: string) => string> = [
  (s) => `
CREATE TABLE ${s}.runs (
  run_id TEXT PRIMARY KEY,
  agent TEXT NOT NULL,
  input TEXT NOT NULL,
  status TEXT NOT NULL,
  result TEXT NOT NULL,
  created_at DOUBLE PRECISION NOT NULL,
  updated_at DOUBLE PRECISION NOT NULL
);
CREATE TABLE ${s}.records (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  position INTEGER NOT NULL,
  effect_key TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('start', 'complete', 'fail')),
  data TEXT NOT NULL,
  at DOUBLE PRECISION NOT NULL,
  UNIQUE (run_id, position)
);
-- The backstop: one start per effect.
CREATE UNIQUE INDEX records_one_start_per_effect ON ${s}.records (run_id, effect_key) WHERE type = 'start';
CREATE TABLE ${s}.backstop (run_id TEXT PRIMARY KEY, rejections INTEGER NOT NULL);
CREATE TABLE ${s}.leases (run_id TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at DOUBLE PRECISION NOT NULL);
CREATE TABLE ${s}.approvals (
  approval_id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  effect_key TEXT NOT NULL,
  kind TEXT NOT NULL,
  reason TEXT NOT NULL,
  request TEXT NOT NULL,
  decision TEXT NOT NULL,
  created_at DOUBLE PRECISION NOT NULL,
  decided_at DOUBLE PRECISION
);
CREATE INDEX approvals_by_run ON ${s}.approvals (run_id);
`,
  // Version 2: an append is one call of a function on the server, one round trip whatever the batch.
  (s, schema) => `
CREATE FUNCTION ${s}.append_records(p_id TEXT[], p_run TEXT[], p_key TEXT[], p_type TEXT[], p_data TEXT[], p_at DOUBLE PRECISION[]) RETURNS TEXT[]
LANGUAGE plpgsql AS $append$
DECLARE
  outcomes TEXT[] := '{}';
  held RECORD;
  run TEXT;
  next_position INTEGER;
  refused TEXT;
BEGIN
  -- Each run's positions are handed out under its advisory lock, held to the commit.
  FOR run IN SELECT DISTINCT r FROM unnest(p_run) AS r ORDER BY r LOOP
    PERFORM pg_advisory_xact_lock(hashtextextended('modeltape-journal-run:${schema}:' || run, 0));
  END LOOP;
  FOR i IN 1 .. coalesce(array_length(p_id, 1), 0) LOOP
    SELECT run_id, effect_key, type INTO held FROM ${s}.records WHERE id = p_id[i];
    IF FOUND THEN
      IF held.run_id = p_run[i] AND held.effect_key = p_key[i] AND held.type = p_type[i] THEN
        outcomes := outcomes || 'duplicate'::TEXT;
        CONTINUE;
      END IF;
      RAISE EXCEPTION USING ERRCODE = 'MT001', MESSAGE = p_id[i], DETAIL = json_build_array(held.run_id, held.effect_key, held.type)::TEXT;
    END IF;
    SELECT coalesce(max(position), 0) + 1 INTO next_position FROM ${s}.records WHERE run_id = p_run[i];
    BEGIN
      INSERT INTO ${s}.records (id, run_id, position, effect_key, type, data, at) VALUES (p_id[i], p_run[i], next_position, p_key[i], p_type[i], p_data[i], p_at[i]);
      outcomes := outcomes || 'appended'::TEXT;
    EXCEPTION WHEN unique_violation THEN
      GET STACKED DIAGNOSTICS refused = CONSTRAINT_NAME;
      IF refused = 'records_pkey' THEN
        -- An id another run's append took meanwhile: a collision, once it can be read.
        SELECT run_id, effect_key, type INTO held FROM ${s}.records WHERE id = p_id[i];
        IF FOUND THEN
          RAISE EXCEPTION USING ERRCODE = 'MT001', MESSAGE = p_id[i], DETAIL = json_build_array(held.run_id, held.effect_key, held.type)::TEXT;
        END IF;
      END IF;
      IF refused <> 'records_one_start_per_effect' THEN
        -- A position (or an id) taken by an append this transaction's snapshot cannot see (an
        -- isolation level above READ COMMITTED): rolled back and run again by the store, never counted.
        RAISE EXCEPTION USING ERRCODE = '40001', MESSAGE = 'another append took this position meanwhile; run the append again';
      END IF;
      -- The backstop: the partial unique index refused a second start of the effect.
      INSERT INTO ${s}.backstop (run_id, rejections) VALUES (p_run[i], 1) ON CONFLICT (run_id) DO UPDATE SET rejections = ${s}.backstop.rejections + 1;
      outcomes := outcomes || 'rejected'::TEXT;
    END;
  END LOOP;
  RETURN outcomes;
END
$append$;
`,
];

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

// The pool's clients given an error listener: each once, for all its checkouts.
const LISTENED = new WeakSet<PgClient>();

// SQLSTATEs: the transaction was rolled back, and running it again is safe.
const ROLLED_BACK = new Set(['40001', '40P01']);

/**
 * The journal on PostgreSQL (node-postgres), for workers on several processes and machines
 * sharing runs. The same journal as on SQLite, created by a versioned migration in a schema you
 * name: runs, records at consecutive positions per run (an append is one call of a function on the
 * server, under the run's advisory lock), the backstop as a partial unique index on start records with its
 * rejection counter, leases by compare-and-set in one statement, approvals decided and consumed
 * once. Record payloads are kept as their JSON text, so they read back exactly as written.
 */
export class PostgresJournalStore implements JournalStore {
  /** Where the journal is, without a password: `postgresql://user@host:5432/db schema modeltape`. */
  readonly path: string;
  readonly schema: string;
  #pool: PgPool;
  #ownsPool: boolean;
  #connection: string | PgPool;
  #maxConnections: number;
  #retries: number;
  #closed = false;
  #q: ReturnType<typeof statements>;
  // Whether a statement on its own runs at READ COMMITTED (the server's default isolation).
  #readCommitted = true;

  private constructor(pool: PgPool, ownsPool: boolean, options: Required<Omit<PostgresJournalStoreOptions, 'connection'>> & { connection: string | PgPool }) {
    this.#pool = pool;
    this.#ownsPool = ownsPool;
    this.#connection = options.connection;
    this.#maxConnections = options.maxConnections;
    this.#retries = options.retries;
    this.schema = options.schema;
    this.path = `${typeof options.connection === 'string' ? withoutPassword(options.connection) : 'a pg.Pool'} schema ${options.schema}`;
    this.#q = statements(`"${options.schema}"`);
  }

  /**
   * Opens the journal, creating its schema and tables (or migrating them) when needed, under an
   * advisory lock so that workers starting at once migrate it once. A schema whose journal is of
   * a newer version is a `JournalFileError` (`journal_newer_schema`), and nothing is changed.
   */
  static async open(options: PostgresJournalStoreOptions | string): Promise<PostgresJournalStore> {
    const { connection, schema = 'modeltape', maxConnections = 10, retries = 5 } = typeof options === 'string' ? { connection: options } : options;
    if (!SCHEMA_NAME.test(schema))
      throw new ModeltapeError(
        'invalid_postgres_schema',
        `The journal's schema name ${JSON.stringify(schema)} is not one the store uses: write lower-case letters, digits and _ (not starting with a digit, at most 63), e.g. "modeltape" or "agents_test".`,
      );
    const ownsPool = typeof connection === 'string';
    const pool = ownsPool ? openPgPool(connection, Math.max(1, Math.floor(maxConnections))) : connection;
    const store = new PostgresJournalStore(pool, ownsPool, { connection, schema, maxConnections, retries });
    try {
      await store.#migrate();
      store.#readCommitted =
        (await pool.query<{ level: string }>("SELECT current_setting('default_transaction_isolation') AS level")).rows[0]?.level === 'read committed';
    } catch (error) {
      if (ownsPool) await pool.end().catch(() => undefined);
      throw error instanceof ModeltapeError ? error : store.#failure(error, 'open');
    }
    return store;
  }

  /** Another handle on the same journal: its own pool for a connection string, the same pool for yours. Each handle is closed on its own. */
  async connect(): Promise<PostgresJournalStore> {
    this.#assertOpen();
    if (typeof this.#connection === 'string')
      return PostgresJournalStore.open({ connection: this.#connection, schema: this.schema, maxConnections: this.#maxConnections, retries: this.#retries });
    return new PostgresJournalStore(this.#pool, false, {
      connection: this.#connection,
      schema: this.schema,
      maxConnections: this.#maxConnections,
      retries: this.#retries,
    });
  }

  async #migrate(): Promise<void> {
    const s = `"${this.schema}"`;
    // A journal at the current version is opened without any DDL, so a role that may only read and
    // write its tables (or a standby, for reading) can open it.
    const meta = (await this.#pool.query<{ meta: string | null }>('SELECT to_regclass($1) AS meta', [`${s}.journal_meta`])).rows[0]?.meta;
    if (meta !== null && meta !== undefined) {
      const found = (await this.#pool.query<{ version: number }>(`SELECT version FROM ${s}.journal_meta`)).rows[0]?.version;
      if (found === POSTGRES_JOURNAL_SCHEMA_VERSION) return;
    }
    await this.#transaction('open', async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`modeltape-journal-migrate:${this.schema}`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${s}.journal_meta (version INTEGER NOT NULL)`);
      const rows = (await client.query<{ version: number }>(`SELECT version FROM ${s}.journal_meta`)).rows;
      const version = rows[0]?.version ?? 0;
      if (version > POSTGRES_JOURNAL_SCHEMA_VERSION)
        throw new JournalFileError(
          this.path,
          'newer_schema',
          `a journal of schema version ${version}, newer than this modeltape's ${POSTGRES_JOURNAL_SCHEMA_VERSION}`,
        );
      if (version === 0 && rows.length === 0) {
        const tables = await client.query(`SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name <> 'journal_meta'`, [this.schema]);
        if (tables.rows.length > 0)
          throw new JournalFileError(this.path, 'not_a_journal', `a schema that holds other tables and no journal (no ${this.schema}.journal_meta version)`);
      }
      for (let next = version; next < POSTGRES_JOURNAL_SCHEMA_VERSION; next++) await client.query(MIGRATIONS[next]!(s, this.schema));
      if (rows.length === 0) await client.query(`INSERT INTO ${s}.journal_meta (version) VALUES ($1)`, [POSTGRES_JOURNAL_SCHEMA_VERSION]);
      else if (version !== POSTGRES_JOURNAL_SCHEMA_VERSION) await client.query(`UPDATE ${s}.journal_meta SET version = $1`, [POSTGRES_JOURNAL_SCHEMA_VERSION]);
    });
  }

  async createRun(run: RunRecord): Promise<void> {
    await this.#query('createRun', async () => {
      const inserted = await this.#pool.query(this.#q.insertRun, runValues(run));
      if (inserted.rowCount === 0) throw new RunExistsError(run.runId);
    });
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    return this.#query('getRun', async () => {
      const row = (await this.#pool.query<RunRow>(this.#q.getRun, [runId])).rows[0];
      return row === undefined ? undefined : runOf(row);
    });
  }

  async updateRun(runId: string, update: { status: RunStatus; result: Json; updatedAt: number }): Promise<void> {
    await this.#query('updateRun', () => this.#pool.query(this.#q.updateRun, [update.status, JSON.stringify(update.result), update.updatedAt, runId]));
  }

  async append(records: readonly JournalRecord[]): Promise<AppendOutcome[]> {
    if (records.length === 0) {
      this.#assertOpen();
      return [];
    }
    const values = [
      records.map((record) => record.id),
      records.map((record) => record.runId),
      records.map((record) => record.effectKey),
      records.map((record) => record.type),
      records.map((record) => JSON.stringify(record.data)),
      records.map((record) => record.at),
    ];
    // A record id stored for another run, effect or type: the batch is not stored.
    const outcomesOf = async (query: PgClient['query']): Promise<AppendOutcome[]> => {
      try {
        return (await query<{ outcomes: AppendOutcome[] }>(this.#q.appendRecords, values)).rows[0]!.outcomes;
      } catch (error) {
        if (sqlState(error) !== 'MT001') throw error;
        const record = records.find((candidate) => candidate.id === (error as Error).message)!;
        const [run_id = '', effect_key = '', type = ''] = JSON.parse(String((error as { detail?: unknown }).detail ?? '[]')) as string[];
        throw collision(record, { run_id, effect_key, type });
      }
    };
    // One statement where the server's default isolation is READ COMMITTED; under another, one
    // transaction that asks for it (the function's reads must see what committed before its lock).
    return this.#readCommitted
      ? this.#query('append', () => outcomesOf((text, params) => this.#pool.query(text, params)))
      : this.#transaction('append', (client) => outcomesOf((text, params) => client.query(text, params)));
  }

  async read(runId: string): Promise<StoredRecord[]> {
    return this.#query('read', async () => (await this.#pool.query<RecordRow>(this.#q.readRecords, [runId])).rows.map(recordOf));
  }

  async backstopRejections(runId: string): Promise<number> {
    return this.#query(
      'backstopRejections',
      async () => (await this.#pool.query<{ rejections: number }>(this.#q.rejections, [runId])).rows[0]?.rejections ?? 0,
    );
  }

  async acquireLease(runId: string, owner: string, expiresAt: number, now: number): Promise<{ acquired: boolean; lease: Lease }> {
    return this.#query('acquireLease', async () => {
      // One statement: taken when free, expired or already ours; otherwise nothing changes.
      const taken = (await this.#pool.query<LeaseRow>(this.#q.takeLease, [runId, owner, expiresAt, now])).rows[0];
      if (taken !== undefined) return { acquired: true, lease: { owner, expiresAt } };
      const held = (await this.#pool.query<LeaseRow>(this.#q.getLease, [runId])).rows[0];
      // Released between the two statements: try once more.
      if (held === undefined) return this.acquireLease(runId, owner, expiresAt, now);
      return { acquired: false, lease: { owner: held.owner, expiresAt: held.expires_at } };
    });
  }

  async renewLease(runId: string, owner: string, expiresAt: number): Promise<boolean> {
    return this.#query('renewLease', async () => (await this.#pool.query(this.#q.renewLease, [expiresAt, runId, owner])).rowCount === 1);
  }

  async releaseLease(runId: string, owner: string): Promise<boolean> {
    return this.#query('releaseLease', async () => (await this.#pool.query(this.#q.releaseLease, [runId, owner])).rowCount === 1);
  }

  async getLease(runId: string): Promise<Lease | undefined> {
    return this.#query('getLease', async () => {
      const held = (await this.#pool.query<LeaseRow>(this.#q.getLease, [runId])).rows[0];
      return held === undefined ? undefined : { owner: held.owner, expiresAt: held.expires_at };
    });
  }

  async requestApproval(approval: ApprovalRecord): Promise<ApprovalRecord> {
    return this.#query('requestApproval', async () => {
      await this.#pool.query(this.#q.insertApproval, approvalValues(approval));
      return approvalOf((await this.#pool.query<ApprovalRow>(this.#q.getApproval, [approval.approvalId])).rows[0]!);
    });
  }

  async decideApproval(approvalId: string, decision: 'approved' | 'rejected', decidedAt: number): Promise<ApprovalRecord | undefined> {
    return this.#query('decideApproval', async () => {
      await this.#pool.query(this.#q.decideApproval, [decision, decidedAt, approvalId]);
      const row = (await this.#pool.query<ApprovalRow>(this.#q.getApproval, [approvalId])).rows[0];
      return row === undefined ? undefined : approvalOf(row);
    });
  }

  async approvals(runId: string): Promise<ApprovalRecord[]> {
    return this.#query('approvals', async () => (await this.#pool.query<ApprovalRow>(this.#q.approvalsOf, [runId])).rows.map(approvalOf));
  }

  async consumeApproval(approvalId: string, at: number): Promise<boolean> {
    return this.#query('consumeApproval', async () => (await this.#pool.query(this.#q.consumeApproval, [at, approvalId])).rowCount === 1);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsPool) await this.#pool.end();
  }

  /** One statement on the pool, run again when the server rolled it back (a deadlock); its errors the journal's own. */
  async #query<T>(operation: string, work: () => Promise<T>): Promise<T> {
    this.#assertOpen();
    for (let attempt = 0; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        if (error instanceof ModeltapeError) throw error;
        if (ROLLED_BACK.has(sqlState(error)) && attempt < this.#retries) {
          // Contending transactions back off, each a different while, before running again.
          await new Promise((resolve) => setTimeout(resolve, (attempt + 1) * (2 + Math.random() * 8)));
          continue;
        }
        throw this.#failure(error, operation);
      }
    }
  }

  /** `work` in one transaction on one connection, run again when the server rolled it back. */
  async #transaction<T>(operation: string, work: (client: PgClient) => Promise<T>): Promise<T> {
    return this.#query(operation, async () => {
      const client = await this.#pool.connect();
      // A connection the server ends mid-transaction (a restart, a failover) says so on the
      // client as well as to the query under way: the query's error is the one reported.
      if (!LISTENED.has(client)) {
        LISTENED.add(client);
        client.on('error', () => undefined);
      }
      let broken: Error | undefined;
      try {
        // Each statement sees what committed before it (the run's lock makes positions safe only so).
        await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        try {
          await client.query('ROLLBACK');
        } catch (rollback) {
          // A connection that cannot roll back is not given back to the pool.
          broken = rollback as Error;
        }
        throw error;
      } finally {
        client.release(broken ?? false);
      }
    });
  }

  /** A server or connection error as the journal's storage error, naming where the journal is. */
  #failure(error: unknown, operation: string): unknown {
    const problem = storageProblem(error);
    if (problem === undefined) return error;
    return new JournalStorageError(
      this.path,
      problem,
      operation,
      sqlState(error) || String((error as { code?: unknown }).code ?? 'pg'),
      error,
      POSTGRES_NEXT[problem],
    );
  }

  #assertOpen(): void {
    if (this.#closed)
      throw new ModeltapeError('journal_closed', `The journal store at ${this.path} is closed: open it again (PostgresJournalStore.open) to read or write it.`);
  }
}

const POSTGRES_NEXT: Record<JournalStorageProblem, string> = {
  full: "Free space on the database server's disk (or raise its quota)",
  read_only:
    'Point the store at the primary: this server takes no writes (a standby, or default_transaction_read_only), or grant this user write access to the schema',
  io: 'Check that the database server is up and reachable (a restart or a failover closes connections; the pool opens new ones)',
  busy: 'Find the session holding a lock on the journal in a long transaction (pg_stat_activity), or raise lock_timeout (a serialization failure that kept coming back: fewer workers on one run)',
};

function storageProblem(error: unknown): JournalStorageProblem | undefined {
  const state = sqlState(error);
  if (state === '53100') return 'full';
  if (state === '25006' || state === '42501') return 'read_only';
  // A lock or statement timeout, or a serialization failure or deadlock still there after the retries.
  if (state === '55P03' || state === '57014' || ROLLED_BACK.has(state)) return 'busy';
  if (state.startsWith('08') || state === '57P01' || state === '57P02' || state === '57P03' || state === '53300') return 'io';
  const code = String((error as { code?: unknown } | null)?.code ?? '');
  if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH'].includes(code)) return 'io';
  if (
    /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect|Query read timeout/i.test(
      (error as Error)?.message ?? '',
    )
  )
    return 'io';
  return undefined;
}

// A PostgreSQL SQLSTATE: five characters, digits and capitals.
function sqlState(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : '';
}

function withoutPassword(connection: string): string {
  try {
    const url = new URL(connection);
    url.password = '';
    return url.toString().replace(/\?.*$/, '');
  } catch {
    return 'a PostgreSQL connection string';
  }
}

function collision(record: JournalRecord, held: { run_id: string; effect_key: string; type: string }): ModeltapeError {
  return new ModeltapeError(
    'record_id_collision',
    `Record id ${record.id} is already in the journal for run ${held.run_id}, ${held.effect_key} ${held.type}; it cannot also be run ${record.runId}, ${record.effectKey} ${record.type}. Record ids must be unique: the runtime derives them from the run, the effect and the writer.`,
  );
}

interface LeaseRow {
  owner: string;
  expires_at: number;
}

function statements(s: string) {
  return {
    insertRun: `INSERT INTO ${s}.runs (run_id, agent, input, status, result, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (run_id) DO NOTHING`,
    getRun: `SELECT * FROM ${s}.runs WHERE run_id = $1`,
    updateRun: `UPDATE ${s}.runs SET status = $1, result = $2, updated_at = $3 WHERE run_id = $4`,
    appendRecords: `SELECT ${s}.append_records($1, $2, $3, $4, $5, $6) AS outcomes`,
    readRecords: `SELECT * FROM ${s}.records WHERE run_id = $1 ORDER BY position`,
    rejections: `SELECT rejections FROM ${s}.backstop WHERE run_id = $1`,
    takeLease: `INSERT INTO ${s}.leases AS held (run_id, owner, expires_at) VALUES ($1, $2, $3)
      ON CONFLICT (run_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
      WHERE held.owner = excluded.owner OR held.expires_at <= $4
      RETURNING owner, expires_at`,
    getLease: `SELECT owner, expires_at FROM ${s}.leases WHERE run_id = $1`,
    renewLease: `UPDATE ${s}.leases SET expires_at = $1 WHERE run_id = $2 AND owner = $3`,
    releaseLease: `DELETE FROM ${s}.leases WHERE run_id = $1 AND owner = $2`,
    insertApproval: `INSERT INTO ${s}.approvals (approval_id, run_id, effect_key, kind, reason, request, decision, created_at, decided_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (approval_id) DO NOTHING`,
    getApproval: `SELECT * FROM ${s}.approvals WHERE approval_id = $1`,
    decideApproval: `UPDATE ${s}.approvals SET decision = $1, decided_at = $2 WHERE approval_id = $3 AND decision = 'pending'`,
    approvalsOf: `SELECT * FROM ${s}.approvals WHERE run_id = $1 ORDER BY created_at, approval_id COLLATE "C"`,
    consumeApproval: `UPDATE ${s}.approvals SET decision = 'consumed', decided_at = $1 WHERE approval_id = $2 AND decision = 'approved'`,
  };
}
