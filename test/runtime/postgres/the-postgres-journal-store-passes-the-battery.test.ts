import { afterAll, expect, test } from 'vitest';
import { checkJournalStore, FaultSchedule, Faulty, Latency, PostgresJournalStore, type JournalStore } from 'modeltape/runtime';
import { describeOnPostgres, freshSchema } from '../../support/postgres.js';

// The PostgreSQL journal store against a real server (.ci/run's, or one started from this
// machine's PostgreSQL binaries), held to the same battery as the SQLite store, unchanged.

describeOnPostgres('PostgresJournalStore', (server) => {
  const opened: JournalStore[] = [];
  afterAll(async () => {
    for (const store of opened.splice(0)) await store.close().catch(() => undefined);
  });
  // Each store the battery opens is a fresh, empty journal: its own schema.
  const fresh = async (): Promise<PostgresJournalStore> => {
    const store = await PostgresJournalStore.open({ connection: server().url, schema: freshSchema('battery') });
    opened.push(store);
    return store;
  };

  test('passes the battery, racing appends from two connections included', async () => {
    const report = await checkJournalStore({
      open: fresh,
      connect: async (store) => {
        const other = await (store as PostgresJournalStore).connect();
        opened.push(other);
        return other;
      },
    });
    report.assertConforms('PostgresJournalStore');
    expect(report.checks).toHaveLength(9);
    expect(report.checks.reduce((sum, check) => sum + check.expectations, 0)).toBeGreaterThan(50);
  }, 60_000);

  test('passes wrapped in Faulty (no faults, and latency only)', async () => {
    (await checkJournalStore(async () => new Faulty(await fresh(), FaultSchedule.explicit()))).assertConforms('Faulty(PostgresJournalStore), no faults');
    (await checkJournalStore(async () => new Faulty(await fresh(), FaultSchedule.seeded(3, { rate: 0.5, faults: [Latency(1)] })))).assertConforms(
      'Faulty(PostgresJournalStore), latency',
    );
  }, 60_000);
});
