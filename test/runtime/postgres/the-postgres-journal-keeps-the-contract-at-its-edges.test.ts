import { afterAll, beforeAll, expect, test } from 'vitest';
import { PostgresJournalStore, type PgPool } from 'modeltape/runtime';
import { describeOnPostgres, freshSchema, pgPool } from '../../support/postgres.js';

// Where a PostgreSQL server differs from a SQLite file, the store keeps the contract all the same:
// a server whose default isolation is above READ COMMITTED, clock readings that are not whole
// milliseconds, a role that may only read and write the journal's tables, ids with spaces.

const start = (id: string, runId: string, effectKey: string, at = 1) => ({ id, runId, effectKey, type: 'start' as const, data: { id }, at });

describeOnPostgres('the PostgreSQL journal at its edges', (server) => {
  let admin: PgPool;
  beforeAll(async () => {
    admin = pgPool(server().url);
  });
  afterAll(async () => {
    await admin?.end();
  });

  test('eight writers on a server whose default isolation is REPEATABLE READ append every distinct start, at consecutive positions', async () => {
    const schema = freshSchema('repeatable');
    const url = `${server().url}?options=${encodeURIComponent('-c default_transaction_isolation=repeatable\\ read')}`;
    const stores = await Promise.all(Array.from({ length: 8 }, () => PostgresJournalStore.open({ connection: url, schema, maxConnections: 1 })));
    try {
      const outcomes = (
        await Promise.all(
          stores.map(async (store, writer) => {
            const mine = [];
            for (let index = 0; index < 20; index++) mine.push(...(await store.append([start(`w${writer}-${index}`, 'shared', `${index}.${writer}.tool`)])));
            return mine;
          }),
        )
      ).flat();
      expect(outcomes.filter((outcome) => outcome !== 'appended')).toEqual([]);
      const records = await stores[0]!.read('shared');
      expect(records.map((record) => record.position)).toEqual([...Array(160).keys()].map((index) => index + 1));
      expect(await stores[0]!.backstopRejections('shared')).toBe(0);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  test('clock readings that are not whole milliseconds read back exactly, as on SQLite', async () => {
    const store = await PostgresJournalStore.open({ connection: server().url, schema: freshSchema('fractions') });
    try {
      await store.createRun({ runId: 'r', agent: 'a', input: null, status: 'running', result: null, createdAt: 1_700_000_000_000.5, updatedAt: 0.25 });
      await store.append([start('s1', 'r', '0.0.now', 1_700_000_000_001.75)]);
      expect(await store.acquireLease('r', 'w', 10.125, 0.5)).toEqual({ acquired: true, lease: { owner: 'w', expiresAt: 10.125 } });
      const approval = {
        approvalId: 'r/0.0.tool',
        runId: 'r',
        effectKey: '0.0.tool',
        kind: 'k',
        reason: 'why',
        request: {},
        decision: 'pending' as const,
        createdAt: 2.5,
        decidedAt: null,
      };
      await store.requestApproval(approval);
      expect((await store.decideApproval('r/0.0.tool', 'approved', 3.0625))?.decidedAt).toBe(3.0625);
      expect(await store.getRun('r')).toMatchObject({ createdAt: 1_700_000_000_000.5, updatedAt: 0.25 });
      expect((await store.read('r'))[0]!.at).toBe(1_700_000_000_001.75);
      expect((await store.getLease('r'))?.expiresAt).toBe(10.125);
      expect((await store.approvals('r'))[0]!.createdAt).toBe(2.5);
    } finally {
      await store.close();
    }
  });

  test('a role that may only read and write the journal (no CREATE) opens a current journal and appends to it', async () => {
    const schema = freshSchema('granted');
    const role = freshSchema('journal_user');
    await (await PostgresJournalStore.open({ connection: server().url, schema })).close();
    await admin.query(`CREATE ROLE "${role}" LOGIN`);
    // A new role has no CREATE on the database (PostgreSQL grants PUBLIC only CONNECT and TEMP).
    await admin.query(`GRANT USAGE ON SCHEMA "${schema}" TO "${role}"; GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "${schema}" TO "${role}"`);
    const url = new URL(server().url);
    url.username = role;
    const store = await PostgresJournalStore.open({ connection: url.toString(), schema });
    try {
      await store.createRun({ runId: 'r', agent: 'a', input: 'x', status: 'running', result: null, createdAt: 1, updatedAt: 1 });
      expect(await store.append([start('s1', 'r', '0.0.tool'), start('s2', 'r', '0.0.tool')])).toEqual(['appended', 'rejected']);
      expect(await store.backstopRejections('r')).toBe(1);
    } finally {
      await store.close();
    }
  });

  test('a record id another run holds is a collision naming that run exactly, spaces and all; nothing of the batch is stored', async () => {
    const store = await PostgresJournalStore.open({ connection: server().url, schema: freshSchema('collision') });
    try {
      await store.append([start('same-id', 'run with spaces', '0.0.tool')]);
      const error = await store
        .append([start('fresh', 'other run', '0.0.now'), start('same-id', 'other run', '1.0.tool')])
        .catch((failure: unknown) => failure);
      expect(error).toMatchObject({ code: 'record_id_collision' });
      expect((error as Error).message).toContain(
        'Record id same-id is already in the journal for run run with spaces, 0.0.tool start; it cannot also be run other run, 1.0.tool start.',
      );
      expect(await store.read('other run')).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
