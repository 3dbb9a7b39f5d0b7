import { expect, test } from 'vitest';
import { runFleet } from '../../../examples/postgres-workers/workers.mjs';
import { describeOnPostgres, freshSchema } from '../../support/postgres.js';

// Four worker processes share twelve runs on one PostgreSQL journal while one of them, driving a
// run, is killed with SIGKILL again and again; the others take its runs over when its lease
// expires, and an operator in another process approves each send a kill left in doubt. Every run
// completes, and the invariants of the crash harness hold (examples/postgres-workers/workers.mjs,
// which `npm run example:workers` runs).

describeOnPostgres('workers on several processes', (server) => {
  for (const seed of [1, 2]) {
    test(`complete every run with every invariant holding while workers are killed (seed ${seed})`, async () => {
      const result = await runFleet({ url: server().url, schema: freshSchema('fleet'), seed, timeoutMs: 50_000 });
      expect(result.violations).toEqual([]);
      expect(result.runs.map((run) => run.status)).toEqual(Array(12).fill('completed'));
      expect(result.killed).toHaveLength(8);
      expect(result.workers).toBe(12);
      // Killed while driving: their runs were finished by others.
      expect(result.takenOver).toBeGreaterThanOrEqual(1);
      // Each send happened once, and once more only under an operator's approval.
      expect(result.sends).toBeGreaterThanOrEqual(12);
      expect(result.sends).toBeLessThanOrEqual(12 + result.approved);
    }, 60_000);
  }
});
