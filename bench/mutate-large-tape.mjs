// modeltape mutate on a large tape: a report, not a test. Writes the tape of bench/tape-open.mjs
// (BENCH_MUTATE_EXCHANGES exchanges, default 50,000), then runs `modeltape mutate --max 4` on it
// with a suite that asks for 4 of its recorded requests through the proxy, and reports the time
// and the peak RSS of the mutate process (whose proxies, one per mutant, run in it), beside one
// `modeltape run` of the same suite. Each mutant's tape is a copy of the original with one line
// changed: mutate should cost about jobs × a replay of the tape, not several tapes held at once.
//
// Run alone: npm run build && node bench/mutate-large-tape.mjs
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeResults } from './results.mjs';
import { benchRequestBody, writeBenchTape } from './tape-open.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..', 'dist', 'cli', 'main.js');
const exchanges = Number(process.env.BENCH_MUTATE_EXCHANGES ?? 50_000);
const folder = mkdtempSync(join(tmpdir(), 'modeltape-bench-mutate-'));
try {
  const tape = join(folder, 'large.jsonl');
  await writeBenchTape(tape, exchanges);
  // The suite: 4 recorded requests (plain answers), each checked to have been answered.
  const asked = [0, 1, Math.floor(exchanges / 2) + 1, exchanges - 2].filter((index) => index % 5 !== 4);
  const suite = join(folder, 'suite.mjs');
  writeFileSync(
    suite,
    `const bodies = ${JSON.stringify(asked.map(benchRequestBody))};
for (const body of bodies) {
  const response = await fetch(process.env.OPENAI_BASE_URL + '/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer fake-bench-key' }, body: JSON.stringify(body) });
  if (response.status !== 200) process.exit(1);
  await response.text();
}
`,
  );
  // Peak RSS of modeltape's own process, as the kernel counts it.
  const measured = (args) => {
    const started = performance.now();
    const { stderr, status } = spawnSync('/usr/bin/time', ['-f', 'modeltape-peak-rss-kb %M', process.execPath, cli, ...args], {
      cwd: folder,
      env: { ...process.env, CI: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    });
    if (status !== 0) throw new Error(`modeltape ${args[0]} exited with ${status}:\n${stderr}`);
    return { ms: performance.now() - started, stderr };
  };
  const rss = (stderr) => Number(/modeltape-peak-rss-kb (\d+)/.exec(stderr)?.[1] ?? Number.NaN) / 1024;
  const run = measured(['run', '--tape', tape, '--', process.execPath, suite]);
  const mutate = measured(['mutate', '--tape', tape, '--max', '4', '--operators', 'text-emptied,server-error', '--', process.execPath, suite]);
  const size = statSync(tape).size / 1024 / 1024;
  writeResults('mutate-large-tape', {
    title: 'modeltape mutate on a large tape',
    command: 'node bench/mutate-large-tape.mjs',
    body: [
      `A ${exchanges.toLocaleString('en-US')}-exchange tape (${size.toFixed(0)} MB), a suite asking for 4 of its recordings; peak RSS of modeltape's own process`,
      '',
      '| command | s | peak RSS (MB) |',
      '|---|---:|---:|',
      `| \`modeltape run\` of the suite | ${(run.ms / 1000).toFixed(1)} | ${rss(run.stderr).toFixed(0)} |`,
      `| \`modeltape mutate --max 4\` | ${(mutate.ms / 1000).toFixed(1)} | ${rss(mutate.stderr).toFixed(0)} |`,
    ].join('\n'),
  });
} finally {
  rmSync(folder, { recursive: true, force: true });
}
