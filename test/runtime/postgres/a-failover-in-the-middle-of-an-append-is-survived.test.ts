import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ForwardingJournalStore,
  PostgresJournalStore,
  assertReplayWasNotBackstopped,
  type AppendOutcome,
  type JournalRecord,
  type PgPool,
} from 'modeltape/runtime';
import { parcelRuntime } from '../../support/parcel-agent.js';
import { freshSchema, pgPool, postgresAvailability, type PostgresServer } from '../../support/postgres.js';

// The server ends the store's connections while an append is in flight, as a restart or a
// failover does: whether the append committed or not, the runtime is told it failed (a retryable
// storage error), reads back what was stored, appends the rest, and the run completes with each
// effect journaled once; the strict replay that follows reads every effect back.
const postgres = postgresAvailability();
if (!postgres.available) process.stderr.write(`skipping the PostgreSQL failover test: ${postgres.reason}\n`);

/** Ends every connection of the store's pool while each chosen append is under way. */
class FailingOver extends ForwardingJournalStore {
  appends = 0;
  failedOver = 0;
  errors: unknown[] = [];
  constructor(
    inner: PostgresJournalStore,
    private readonly admin: PgPool,
    private readonly at: ReadonlySet<number>,
  ) {
    super(inner);
  }
  override async append(records: readonly JournalRecord[]): Promise<AppendOutcome[]> {
    const appending = super.append(records);
    if (this.at.has(++this.appends)) {
      this.failedOver++;
      await this.admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'modeltape' AND pid <> pg_backend_pid()`);
    }
    return appending.catch((error: unknown) => {
      this.errors.push(error);
      throw error;
    });
  }
}

describe.runIf(postgres.available)('a PostgreSQL failover during a run', () => {
  let server: PostgresServer;
  let admin: PgPool;
  beforeAll(async () => {
    if (!postgres.available) return;
    server = await postgres.start();
    admin = pgPool(server.url, { applicationName: 'failover-admin' });
  }, 60_000);
  afterAll(async () => {
    await admin?.end();
    await server?.stop();
  });

  test('an append whose connection the server ends is retried, and the run journals each effect once', async () => {
    const inner = await PostgresJournalStore.open({ connection: server.url, schema: freshSchema('failover') });
    const store = new FailingOver(inner, admin, new Set([2, 5, 9]));
    const { runtime, runs } = parcelRuntime({ store });
    try {
      const outcome = await runtime.run('parcel-desk', 'Where is parcel P-1?');
      expect(outcome.status).toBe('completed');
      expect(outcome.output).toBe('Parcel P-1 is in Lyon; I told the customer.');
      expect(store.failedOver).toBe(3);
      // At least one append was cut short; each came back as a retryable storage error.
      expect(store.errors.length).toBeGreaterThanOrEqual(1);
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
