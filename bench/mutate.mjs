// modeltape mutate benchmark: a report, not a test. Mutants per minute on the example suite
// (examples/weather.test.mjs, node:test, the official openai SDK, examples/tapes/weather.jsonl),
// against the baseline measured in the same run: one `modeltape run` of the same suite.
//   run       `modeltape run --tape T -- node --test examples/weather.test.mjs`, one after another
//   mutate 1  `modeltape mutate --jobs 1`: every mutant of the tape, one at a time
//   mutate N  `modeltape mutate` with its default --jobs (the cores)
// Rows: ms per run and per mutant; a mutant's cost over a run's (what mutate adds: the tape copy,
// its own proxy, the outcome); mutants a minute. Env: BENCH_MUTATE_ROUNDS (default 3).
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeResults } from './results.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist/cli/main.js');
const tape = 'examples/tapes/weather.jsonl';
const suite = [process.execPath, '--test', 'examples/weather.test.mjs'];
const rounds = Math.max(1, Number(process.env.BENCH_MUTATE_ROUNDS ?? 3));
const env = { ...process.env, CI: '' };

function timed(args) {
  const started = performance.now();
  const output = execFileSync(process.execPath, [cli, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  return { ms: performance.now() - started, output };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const runs = [];
const perMutantSerial = [];
const perMutantParallel = [];
let mutants = 0;
for (let round = 0; round < rounds; round++) {
  // Back to back, so each ratio's two sides see the same machine.
  runs.push(timed(['run', '--tape', tape, '--', ...suite]).ms);
  for (const [jobs, into] of [
    [1, perMutantSerial],
    [availableParallelism(), perMutantParallel],
  ]) {
    const { ms, output } = timed(['mutate', '--tape', tape, '--jobs', String(jobs), '--json', '--', ...suite]);
    const report = JSON.parse(output);
    mutants = report.mutants.length;
    // The first run on the real tapes is part of what mutate costs; it is counted in.
    into.push(ms / mutants);
  }
}
const run = median(runs);
const serial = median(perMutantSerial);
const parallel = median(perMutantParallel);
writeResults('mutate', {
  title: 'modeltape mutate on the example suite',
  command: 'npm run bench:mutate',
  body: [
    `${mutants} mutants of ${tape}; median of ${rounds} rounds, ${availableParallelism()} cores`,
    '',
    '| target | ms | × one run | mutants a minute |',
    '|---|---:|---:|---:|',
    `| \`modeltape run\` of the suite (baseline) | ${run.toFixed(0)} | 1.00 | |`,
    `| a mutant, \`--jobs 1\` | ${serial.toFixed(0)} | ${(serial / run).toFixed(2)} | ${(60_000 / serial).toFixed(0)} |`,
    `| a mutant, \`--jobs ${availableParallelism()}\` (the default) | ${parallel.toFixed(0)} | ${(parallel / run).toFixed(2)} | ${(60_000 / parallel).toFixed(0)} |`,
  ].join('\n'),
});
