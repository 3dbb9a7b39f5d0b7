import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { PostgresJournalStore } from 'modeltape/runtime';
import { describeOnPostgres, freshSchema } from '../../support/postgres.js';

// Four processes, each with its own connections, appending to one run at once: every batch lands
// at its own consecutive positions, each process's in its order; of four starts of one effect one
// lands and three are counted; of four takes of one lease one wins.

const WORKER = fileURLToPath(new URL('../../support/postgres-append-worker.mjs', import.meta.url));

describeOnPostgres('writers in several processes on one PostgreSQL journal', (server) => {
  test('put every batch at consecutive positions, let one start and one lease through, and count every second start', async () => {
    const schema = freshSchema('processes');
    await (await PostgresJournalStore.open({ connection: server().url, schema })).close();
    const batches = 100;
    const results = await Promise.all(
      [0, 1, 2, 3].map(
        (index) =>
          new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
            const child = spawn(process.execPath, [WORKER, server().url, schema, String(index), String(batches)]);
            let out = '';
            let err = '';
            child.stdout.on('data', (chunk) => (out += chunk));
            child.stderr.on('data', (chunk) => (err += chunk));
            child.on('exit', (code) => resolve({ code, out, err }));
          }),
      ),
    );
    for (const result of results) expect(result.code, result.err).toBe(0);
    const races = results.map((result) => JSON.parse(result.out) as { raced: string; acquired: boolean });
    expect(races.map((race) => race.raced).sort()).toEqual(['appended', 'rejected', 'rejected', 'rejected']);
    expect(races.filter((race) => race.acquired)).toHaveLength(1);

    const store = await PostgresJournalStore.open({ connection: server().url, schema });
    try {
      const records = await store.read('shared-run');
      expect(records).toHaveLength(4 * batches * 2);
      expect(records.map((record) => record.position)).toEqual(records.map((_, index) => index + 1));
      for (let index = 0; index < records.length; index += 2) {
        expect(records[index]!.type).toBe('start');
        expect(records[index + 1]!.effectKey).toBe(records[index]!.effectKey);
      }
      for (const worker of [0, 1, 2, 3]) {
        const own = records.filter((record) => record.type === 'start' && (record.data as { worker: number }).worker === worker);
        expect(own.map((record) => (record.data as { batch: number }).batch)).toEqual([...Array(batches).keys()]);
      }
      expect(await store.backstopRejections('shared-run')).toBe(4 * (batches / 25));
      expect(await store.backstopRejections('race-run')).toBe(3);
      expect(await store.read('race-run')).toHaveLength(1);
    } finally {
      await store.close();
    }
  }, 60_000);
});
