import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runFleet } from '../../../examples/postgres-workers/workers.mjs';
import { freshSchema, postgresAvailability, type PostgresServer } from '../../support/postgres.js';

// Four worker processes share twelve runs on one PostgreSQL journal while one of them, driving a
// run, is killed with SIGKILL again and again; the others take its runs over when its lease
// expires, and an operator in another process approves each send a kill left in doubt. Every run
// completes, and the invariants of the crash harness hold (examples/postgres-workers/workers.mjs,
// which `npm run example:workers` runs).
const postgres = postgresAvailability();
if (!postgres.available) process.stderr.write(`skipping the PostgreSQL workers test: ${postgres.reason}\n`);

describe.runIf(postgres.available)('workers on several processes', () => {
  let server: PostgresServer;
  beforeAll(async () => {
    if (postgres.available) server = await postgres.start();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  for (const seed of [1, 2]) {
    test(`complete every run with every invariant holding while workers are killed (seed ${seed})`, async () => {
      const result = await runFleet({ url: server.url, schema: freshSchema('fleet'), seed, timeoutMs: 50_000 });
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
