import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { CLI } from '../support/cli.js';
import { writeChatSuite, writeChatTape } from '../support/chat-tape.js';
import { tempDir } from '../support/temp-dir.js';

describe('modeltape mutate and SIGTERM', () => {
  const dir = tempDir();

  test('ends at once, stops every running mutant, and tells no outcome of them', { timeout: 60_000 }, async () => {
    writeChatTape(`${dir}/parcels.jsonl`, 5);
    writeChatSuite(`${dir}/suite.mjs`, [1]);
    // The suite passes on the real tape, and hangs on a mutant (writing its pid first).
    writeFileSync(
      `${dir}/hangs.mjs`,
      `import { appendFileSync } from 'node:fs';
if (process.env.MODELTAPE_TAPE_SWAP) { appendFileSync('pids', process.pid + '\\n'); setInterval(() => {}, 1000); }
else await import('./suite.mjs');
`,
    );
    const child = spawn(process.execPath, [CLI, 'mutate', '--tape', 'parcels.jsonl', '--max', '2', '--jobs', '2', '--', process.execPath, 'hangs.mjs'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    // Both mutants are running.
    for (let waited = 0; waited < 30_000; waited += 100) {
      let pids: string[] = [];
      try {
        pids = readFileSync(`${dir}/pids`, 'utf8').trim().split('\n');
      } catch {
        // not yet
      }
      if (pids.length === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const pids = readFileSync(`${dir}/pids`, 'utf8').trim().split('\n').map(Number);
    expect(pids).toHaveLength(2);
    const stopped = Date.now();
    child.kill('SIGTERM');
    expect(await exited).toBe(1);
    expect(Date.now() - stopped).toBeLessThan(10_000);
    expect(stderr).toContain('modeltape mutate was stopped (SIGINT or SIGTERM): every running mutant was stopped, and no report was made.');
    // No outcome is told of a mutant the signal stopped (it was neither killed nor not reached).
    expect(stderr).not.toMatch(/\[\d\/2\] m\d /);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  });
});
