// The replay guard's preload: what `modeltape run` adds to the start of every Node process of a
// replay (`--import` of dist/guard/preload.js, with the run's guard variables set). Starts
// `node -e 0` ROUNDS times without and with it, interleaved, and reports the medians.
// Env: BENCH_GUARD_ROUNDS (default 20).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { writeResults } from './results.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const preload = pathToFileURL(join(here, '..', 'dist', 'guard', 'preload.js')).href;
const rounds = Math.max(3, Number(process.env.BENCH_GUARD_ROUNDS ?? 20));
const folder = mkdtempSync(join(tmpdir(), 'modeltape-bench-guard-'));
const plain = { PATH: process.env.PATH ?? '' };
const guarded = {
  ...plain,
  NODE_OPTIONS: `--import=${preload}`,
  MODELTAPE_URL: 'http://127.0.0.1:9',
  MODELTAPE_MODE: 'replay',
  MODELTAPE_GUARD_HOSTS: 'api.openai.com,api.anthropic.com,generativelanguage.googleapis.com',
  MODELTAPE_REPORT: join(folder, 'escapes.jsonl'),
};

function start(env) {
  const started = performance.now();
  const { status, stderr } = spawnSync(process.execPath, ['-e', '0'], { env, encoding: 'utf8' });
  if (status !== 0) throw new Error(`node -e 0 exited with ${status}: ${stderr}`);
  return performance.now() - started;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const without = [];
const withGuard = [];
try {
  start(plain);
  start(guarded);
  for (let round = 0; round < rounds; round++) {
    without.push(start(plain));
    withGuard.push(start(guarded));
  }
} finally {
  rmSync(folder, { recursive: true, force: true });
}
const a = median(without);
const b = median(withGuard);
writeResults('guard-preload', {
  title: "The replay guard's preload",
  command: 'npm run bench',
  body: [
    `\`node -e 0\` started ${rounds} times each way, interleaved; medians`,
    '',
    '| start | ms | × without |',
    '|---|---:|---:|',
    `| without the guard | ${a.toFixed(1)} | 1.00 |`,
    `| with the guard's preload | ${b.toFixed(1)} | ${(b / a).toFixed(2)} |`,
    '',
    `The preload adds ${(b - a).toFixed(1)} ms to the start of each Node process of a replay.`,
  ].join('\n'),
});
