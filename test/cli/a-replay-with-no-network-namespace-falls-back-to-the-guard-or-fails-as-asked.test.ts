import { spawn } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { CLI, runMain } from '../support/cli.js';
import { writeChatSuite, writeChatTape } from '../support/chat-tape.js';
import { tempDir } from '../support/temp-dir.js';

// Where no network namespace can be made (not Linux, user namespaces refused, no unshare), a replay
// asked for `namespace-or-guard` says why and is kept offline by the guard alone; one asked for
// `namespace` fails before its command runs. The namespace is made unavailable here as a kernel
// that refuses it would: MODELTAPE_UNSHARE names an `unshare` that fails as util-linux's does then.
// `modeltape ARGS…` spawned, killed if it has not ended within `ms`.
function runCliWithin(
  ms: number,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; stderr: string; killed: boolean }> {
  const env = { ...process.env, ...options.env };
  delete env.CI;
  const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  let killed = false;
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, ms);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, killed });
    }),
  );
}

describe('a replay where no network namespace can be made', () => {
  const dir = tempDir();
  const refusal = 'unshare: unshare failed: Operation not permitted';

  function prepare(): { tape: string; env: NodeJS.ProcessEnv } {
    const unshare = `${dir}/unshare`;
    writeFileSync(unshare, `#!/bin/sh\necho '${refusal}' >&2\nexit 1\n`);
    chmodSync(unshare, 0o755);
    writeChatTape(`${dir}/parcels.jsonl`, 1);
    writeChatSuite(`${dir}/suite.mjs`, [0]);
    // Whether the command ran at all.
    appendFileSync(`${dir}/suite.mjs`, `(await import('node:fs')).writeFileSync('ran', '');\n`);
    return { tape: `${dir}/parcels.jsonl`, env: { MODELTAPE_UNSHARE: unshare } };
  }

  test('--network namespace-or-guard says why there is none, and the guard keeps the replay offline', async () => {
    const { tape, env } = prepare();
    const result = await runMain(['run', '--tape', tape, '--network', 'namespace-or-guard', '--', process.execPath, 'suite.mjs'], { cwd: dir, env });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(`${dir}/ran`)).toBe(true);
    expect(result.stderr).toMatch(
      new RegExp(
        `^modeltape: No network namespace for this run: the kernel refused it \\([^)]*--net: ${refusal}\\)\\. The guard alone keeps this replay offline \\(--network namespace-or-guard\\)\\.$`,
        'm',
      ),
    );
    expect(result.stderr).toContain('offline: guard. 1 request reached the tapes (1 answered), and no guarded process reached a provider.');
    expect(result.stderr).not.toContain('offline: network namespace');
  });

  // Spawned, as a CI runs it: the process must end, not only say so (it once hung on the run's
  // report pipe, left open when the run failed before its command started).
  test('--network namespace fails, naming why there is none, runs nothing, and exits', async () => {
    const { tape, env } = prepare();
    const result = await runCliWithin(15_000, ['run', '--tape', tape, '--network', 'namespace', '--', process.execPath, 'suite.mjs'], { cwd: dir, env });
    expect(result.killed, `still running after 15 s:\n${result.stderr}`).toBe(false);
    expect(result.code).toBe(1);
    expect(existsSync(`${dir}/ran`)).toBe(false);
    expect(result.stderr).toContain(`No network namespace for this run: the kernel refused it (`);
    expect(result.stderr).toContain(`--net: ${refusal}). --network namespace requires one; --network namespace-or-guard falls back to the guard`);
    expect(result.stderr).not.toContain('offline:');
  });

  test('MODELTAPE_UNSHARE that is not an absolute path is a usage error naming it', async () => {
    const { tape } = prepare();
    const result = await runMain(['run', '--tape', tape, '--network', 'namespace', '--', process.execPath, 'suite.mjs'], {
      cwd: dir,
      env: { MODELTAPE_UNSHARE: 'unshare' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Invalid MODELTAPE_UNSHARE "unshare": expected the absolute path of the unshare program (util-linux).');
    expect(existsSync(`${dir}/ran`)).toBe(false);
  });
});
