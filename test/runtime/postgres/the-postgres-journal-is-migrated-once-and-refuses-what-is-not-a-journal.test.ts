import { afterAll, beforeAll, expect, test } from 'vitest';
import { JournalFileError, JournalStorageError, PostgresJournalStore, POSTGRES_JOURNAL_SCHEMA_VERSION, type PgPool, type RunRecord } from 'modeltape/runtime';
import { describeOnPostgres, freshSchema, pgPool } from '../../support/postgres.js';

// Opening a PostgreSQL journal: the schema and tables created by a versioned migration, once
// however many workers open it at once; a schema that holds something else, or a newer journal,
// refused before anything is written; the server's errors as the journal's own, without the
// password; a user's pool left open.

const run = (runId: string): RunRecord => ({ runId, agent: 'a', input: { q: 'x' }, status: 'running', result: null, createdAt: 1, updatedAt: 1 });

describeOnPostgres('opening a PostgreSQL journal', (server) => {
  let admin: PgPool;
  beforeAll(async () => {
    admin = pgPool(server().url);
  });
  afterAll(async () => {
    await admin?.end();
  });

  test('eight workers opening one new journal at once migrate it once, and what one writes the others read', async () => {
    const schema = freshSchema('migrate');
    const stores = await Promise.all(Array.from({ length: 8 }, () => PostgresJournalStore.open({ connection: server().url, schema, maxConnections: 1 })));
    try {
      const versions = await admin.query(`SELECT version FROM "${schema}".journal_meta`);
      expect(versions.rows).toEqual([{ version: POSTGRES_JOURNAL_SCHEMA_VERSION }]);
      await stores[0]!.createRun(run('r1'));
      expect((await stores[7]!.getRun('r1'))?.input).toEqual({ q: 'x' });
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
    const again = await PostgresJournalStore.open({ connection: server().url, schema });
    expect((await again.getRun('r1'))?.runId).toBe('r1');
    await again.close();
  });

  test('a journal of version 1 is migrated to the current version, keeping what it holds', async () => {
    const schema = freshSchema('older');
    const first = await PostgresJournalStore.open({ connection: server().url, schema });
    await first.createRun(run('kept'));
    await first.close();
    // Back to version 1: its tables, without the append function version 2 added.
    await admin.query(`DROP FUNCTION "${schema}".append_records; UPDATE "${schema}".journal_meta SET version = 1`);
    const store = await PostgresJournalStore.open({ connection: server().url, schema });
    try {
      expect((await admin.query(`SELECT version FROM "${schema}".journal_meta`)).rows).toEqual([{ version: POSTGRES_JOURNAL_SCHEMA_VERSION }]);
      expect((await store.getRun('kept'))?.runId).toBe('kept');
      expect(await store.append([{ id: 'r1', runId: 'kept', effectKey: '0.0.now', type: 'start', data: null, at: 1 }])).toEqual(['appended']);
    } finally {
      await store.close();
    }
  });

  test('a journal of a newer version, or a schema of other tables, is refused and left as it was', async () => {
    const newer = freshSchema('newer');
    (await PostgresJournalStore.open({ connection: server().url, schema: newer })).close();
    await admin.query(`UPDATE "${newer}".journal_meta SET version = 99`);
    const refused = await PostgresJournalStore.open({ connection: server().url, schema: newer }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(JournalFileError);
    expect(refused).toMatchObject({ code: 'journal_newer_schema' });
    expect((refused as Error).message).toContain(
      `schema ${newer} as the journal: it is a journal of schema version 99, newer than this modeltape's ${POSTGRES_JOURNAL_SCHEMA_VERSION}`,
    );

    const shop = freshSchema('shop');
    await admin.query(`CREATE SCHEMA "${shop}"; CREATE TABLE "${shop}".customers (id int)`);
    await expect(PostgresJournalStore.open({ connection: server().url, schema: shop })).rejects.toMatchObject({ code: 'journal_not_a_journal' });
    const tables = await admin.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`, [shop]);
    // The migration ran in one transaction, rolled back: nothing was added.
    expect(tables.rows.map((row) => (row as { table_name: string }).table_name)).toEqual(['customers']);
  });

  test('a schema name that is no plain identifier is refused before connecting', async () => {
    for (const schema of ['Journal', 'a-b', '1st', 'x"; DROP TABLE y; --', '']) {
      await expect(PostgresJournalStore.open({ connection: server().url, schema }), schema).rejects.toMatchObject({ code: 'invalid_postgres_schema' });
    }
  });

  test('a server that cannot be reached is a retryable storage error naming where, never the password', async () => {
    const error = await PostgresJournalStore.open({ connection: 'postgresql://modeltape:FAKE-pass-0000@127.0.0.1:1/journal', schema: 'modeltape' }).catch(
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(JournalStorageError);
    expect(error).toMatchObject({ code: 'journal_io_error', retryable: true, operation: 'open' });
    expect((error as Error).message).toContain('postgresql://modeltape@127.0.0.1:1/journal schema modeltape');
    expect((error as Error).message).toContain('the connection to the database server failed');
    expect((error as Error).message).not.toContain('FAKE-pass-0000');
  });

  test("a server that drops the store's connections (a restart) costs one reconnect, and a pool of yours stays open after close()", async () => {
    const pool = pgPool(server().url, { applicationName: 'users-pool' });
    const store = await PostgresJournalStore.open({ connection: pool, schema: freshSchema('dropped') });
    await store.createRun(run('r1'));
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'users-pool'`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await store.getRun('r1'))?.runId).toBe('r1');
    await store.close();
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await expect(store.getRun('r1')).rejects.toMatchObject({ code: 'journal_closed' });
    await pool.end();
  });
});
