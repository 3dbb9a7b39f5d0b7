// The slowest test files of the suite, so that CI's time budget can be kept: runs `vitest run`
// with its JSON reporter (or reads a report it wrote before) and prints the N slowest files, each
// with its share of the whole, and the sum. A file's time is from its start to its end in its
// worker (imports aside), so on a machine with W workers the suite takes about sum / W.
//   node bench/slowest-tests.mjs                 run the suite, list the 20 slowest
//   node bench/slowest-tests.mjs report.json     list them from a report of `vitest run --reporter=json`
//   SLOWEST=40 node bench/slowest-tests.mjs …    another count
// `npm run test:slowest` builds first and runs the suite.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const COUNT = Number(process.env.SLOWEST ?? 20);

/** The report at `file`, or that of a fresh `vitest run` when none is named. */
function report(file) {
  if (file !== undefined) return JSON.parse(readFileSync(file, 'utf8'));
  const dir = mkdtempSync(join(tmpdir(), 'modeltape-slowest-'));
  try {
    const output = join(dir, 'report.json');
    const run = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--reporter=json', `--outputFile=${output}`], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    if (run.status !== 0) process.stderr.write(`slowest-tests: vitest exited with status ${run.status}; the times below include the failed files\n`);
    return JSON.parse(readFileSync(output, 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Each file's seconds, slowest first. */
function slowest(json) {
  return json.testResults
    .map((result) => ({ file: relative(process.cwd(), result.name), seconds: (result.endTime - result.startTime) / 1000, status: result.status }))
    .sort((a, b) => b.seconds - a.seconds || a.file.localeCompare(b.file));
}

const files = slowest(report(process.argv[2]));
const sum = files.reduce((total, file) => total + file.seconds, 0);
const lines = [`The ${Math.min(COUNT, files.length)} slowest of ${files.length} test files (${sum.toFixed(0)} s in all, imports aside):`];
for (const { file, seconds, status } of files.slice(0, COUNT)) {
  lines.push(`${seconds.toFixed(1).padStart(7)} s ${((100 * seconds) / sum).toFixed(1).padStart(5)} %  ${file}${status === 'passed' ? '' : ` (${status})`}`);
}
const top = files.slice(0, COUNT).reduce((total, file) => total + file.seconds, 0);
lines.push(`These ${Math.min(COUNT, files.length)} take ${((100 * top) / sum).toFixed(0)} % of the suite's time.`);
process.stdout.write(`${lines.join('\n')}\n`);
