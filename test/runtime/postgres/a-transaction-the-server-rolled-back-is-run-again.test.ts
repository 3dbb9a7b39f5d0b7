import { afterAll, beforeAll, expect, test } from 'vitest';
import { PostgresJournalStore, type PgPool } from 'modeltape/runtime';
import { describeOnPostgres, freshSchema, pgPool } from '../../support/postgres.js';

// A statement the server aborted for a serialization failure (40001) or a deadlock (40P01) was
// rolled back, so the store runs it again, up to `retries` times, backing off; past them it is a
// retryable storage error (journal_busy), and any other error is the caller's.

/** A pool whose next `failures` queries on the journal's tables fail with `code`, as the server would abort them. */
function aborting(pool: PgPool, code: string, failures: number): PgPool & { failed: number } {
  const wrapped = {
    failed: 0,
    query: (text: string, values?: readonly unknown[]) => {
      if (wrapped.failed < failures && /append_records|leases/.test(text)) {
        wrapped.failed++;
        return Promise.reject(Object.assign(new Error(`canceling statement (${code})`), { code }));
      }
      return pool.query(text, values);
    },
    connect: () => pool.connect(),
    end: () => pool.end(),
    on: (event: 'error', listener: (error: Error) => void) => pool.on(event, listener),
  };
  return wrapped as PgPool & { failed: number };
}

describeOnPostgres('a transaction the server rolled back', (server) => {
  let pool: PgPool;
  beforeAll(async () => {
    pool = pgPool(server().url, { max: 4 });
  });
  afterAll(async () => {
    await pool?.end();
  });

  test('is run again after a serialization failure or a deadlock, and lands once', async () => {
    for (const code of ['40001', '40P01']) {
      const flaky = aborting(pool, code, 2);
      const store = await PostgresJournalStore.open({ connection: flaky, schema: freshSchema('rolled_back'), retries: 5 });
      expect(await store.append([{ id: 'a1', runId: 'r', effectKey: '0.0.now', type: 'start', data: 1, at: 1 }])).toEqual(['appended']);
      expect(flaky.failed).toBe(2);
      expect((await store.read('r')).map((record) => record.id)).toEqual(['a1']);
      await store.close();
    }
  });

  test('past its retries it is a retryable journal_busy, and another error is the caller’s', async () => {
    const store = await PostgresJournalStore.open({ connection: aborting(pool, '40001', 10), schema: freshSchema('rolled_back'), retries: 2 });
    await expect(store.acquireLease('r', 'w', 10, 0)).rejects.toMatchObject({ code: 'journal_busy', retryable: true, sqliteCode: '40001' });
    const other = await PostgresJournalStore.open({ connection: aborting(pool, '23514', 1), schema: freshSchema('rolled_back') });
    await expect(other.acquireLease('r', 'w', 10, 0)).rejects.toMatchObject({ code: '23514' });
    expect(await other.acquireLease('r', 'w', 10, 0)).toEqual({ acquired: true, lease: { owner: 'w', expiresAt: 10 } });
    await store.close();
    await other.close();
  });
});
