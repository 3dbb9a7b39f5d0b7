import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  ForwardingJournalStore,
  PostgresJournalStore,
  assertReplayWasNotBackstopped,
  type AppendOutcome,
  type JournalRecord,
  type PgPool,
} from 'modeltape/runtime';
import { parcelRuntime } from '../../support/parcel-agent.js';
import { describeOnPostgres, freshSchema, pgPool } from '../../support/postgres.js';

// The server ends the store's connection while an append is in flight, as a restart or a failover
// does: the runtime is told it failed (a retryable storage error), reads back what was stored,
// appends the rest, and the run completes with each effect journaled once; the strict replay that
// follows reads every effect back. (A write that committed and was reported lost is the
// battery's CommittedThenLost check.)

/**
 * Ends the store's connection while each chosen append is under way: the test holds the run's
 * advisory lock, so the append waits on the server, uncommitted; the test ends the waiting
 * connection, then lets the lock go.
 */
class FailingOver extends ForwardingJournalStore {
  appends = 0;
  failedOver = 0;
  errors: unknown[] = [];
  constructor(
    private readonly store: PostgresJournalStore,
    private readonly admin: PgPool,
    private readonly at: ReadonlySet<number>,
  ) {
    super(store);
  }
  override async append(records: readonly JournalRecord[]): Promise<AppendOutcome[]> {
    if (!this.at.has(++this.appends)) return super.append(records);
    const holder = await this.admin.connect();
    const lock = [`modeltape-journal-run:${this.store.schema}:${records[0]!.runId}`];
    await holder.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', lock);
    const appending = super.append(records).catch((error: unknown) => {
      this.errors.push(error);
      throw error;
    });
    appending.catch(() => undefined);
    for (let waited = 0; waited < 5000; waited += 10) {
      const ended = await holder.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'modeltape' AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
      );
      if (ended.rows.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    this.failedOver++;
    await holder.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', lock);
    holder.release();
    return appending;
  }
}

describeOnPostgres('a PostgreSQL failover during a run', (server) => {
  let admin: PgPool;
  beforeAll(async () => {
    admin = pgPool(server().url, { applicationName: 'failover-admin' });
  });
  afterAll(async () => {
    await admin?.end();
  });

  test('an append whose connection the server ends is retried, and the run journals each effect once', async () => {
    const inner = await PostgresJournalStore.open({ connection: server().url, schema: freshSchema('failover') });
    const store = new FailingOver(inner, admin, new Set([2, 5, 9]));
    const { runtime, runs } = parcelRuntime({ store });
    try {
      const outcome = await runtime.run('parcel-desk', 'Where is parcel P-1?');
      expect(outcome.status).toBe('completed');
      expect(outcome.output).toBe('Parcel P-1 is in Lyon; I told the customer.');
      expect(store.failedOver).toBe(3);
      // Each append cut short came back as a retryable storage error, and was appended again.
      expect(store.errors).toHaveLength(3);
      for (const error of store.errors) expect(error).toMatchObject({ code: 'journal_io_error', retryable: true });
      const journal = await inner.read(outcome.runId);
      const starts = journal.filter((record) => record.type === 'start').map((record) => record.effectKey);
      expect(new Set(starts).size).toBe(starts.length);
      expect(journal.map((record) => record.position)).toEqual(journal.map((_, index) => index + 1));
      expect(runs.send).toHaveLength(1);
      expect(await inner.backstopRejections(outcome.runId)).toBe(0);
      const replayed = await runtime.replay(outcome.runId, 'strict');
      assertReplayWasNotBackstopped(replayed, 'replay after a failover');
      expect(replayed.output).toBe(outcome.output);
    } finally {
      await inner.close();
    }
  });
});
