import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { describeOnPostgres } from '../support/postgres.js';

// `npm run example:workers` as a user runs it: its summary, and exit 0 only when every invariant held.
const DEMO = fileURLToPath(new URL('../../examples/postgres-workers/workers.mjs', import.meta.url));

describeOnPostgres('npm run example:workers', (server) => {
  test('completes every run while workers are killed, says every invariant held, and exits when they are done', () => {
    const began = Date.now();
    const result = spawnSync(process.execPath, [DEMO], {
      env: { ...process.env, MODELTAPE_PG_URL: server().url, SEED: '7' },
      encoding: 'utf8',
      timeout: 90_000,
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^12 of 12 runs completed by 12 worker processes \(8 killed with SIGKILL, \d+ runs? taken over from a killed one\), \d+ sends, \d+ approved re-sends, in \d+ ms \(seed 7\)$/m,
    );
    // It exits when the fleet is done, not at the fleet's 60-second deadline (a timer left running held it open).
    const fleetMs = Number(/ in (\d+) ms \(seed 7\)/.exec(result.stdout)![1]);
    expect(Date.now() - began).toBeLessThan(fleetMs + 30_000);
    expect(result.stdout).toContain('every invariant held: no send ran twice on its own, no approval left or used twice, no lease left, nothing backstopped');
  }, 100_000);
});
