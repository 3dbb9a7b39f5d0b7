// modeltape mutate benchmark: a report, not a test. Mutants per minute on the example suite
// (examples/weather.test.mjs, node:test, the official openai SDK, examples/tapes/weather.jsonl),
// against the baseline measured in the same run: one `modeltape run` of the same suite.
//   run       `modeltape run --tape T -- node --test examples/weather.test.mjs`, one after another
//   mutate 1  `modeltape mutate --jobs 1`: every mutant of the tape, one at a time
//   mutate N  `modeltape mutate` with its default --jobs (the cores)
// Rows: ms per run and per mutant; a mutant's cost over a run's (what mutate adds: the tape copy,
// its own proxy, the outcome); mutants a minute. Env: BENCH_MUTATE_ROUNDS (default 3).
// Then mutate-selective.md: a suite of 40 test files, a tape per test (tapePerTest()), under Vitest
// and under node --test, the same mutants run with the whole command and with --selective (each
// mutant with only the test that read its exchange), in one run each; mutants a minute of each,
// the first run on the real tapes left out. BENCH_MUTATE_SELECTIVE_ONLY=1 runs only this part.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileKeyRules, createHeader, exchangeKey, safeFileName, serializeLine, sha256Hex } from '../dist/recordings/internal.js';
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

function exampleSuite() {
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
}

// A Vitest suite of FILES test files, one test each, each reading its own recorded answer through
// tapePerTest() and checking its text; in a project folder under test-output/ (so vitest and
// modeltape resolve as a user's would).
// The suite under each runner: its config, a test file, the command, and how a mutant's narrowed command reads.
const SELECTIVE_RUNNERS = [
  {
    name: 'Vitest',
    config: { 'vitest.config.mjs': "export default { test: { setupFiles: ['modeltape/vitest'] } };\n" },
    imports: "import { expect, test } from 'vitest';\nimport { tapePerTest } from 'modeltape/vitest';",
    check: (answer, index) => `expect(${answer}).toBe('Order ${index} is on its way.');`,
    command: () => [process.execPath, join(dirname(createRequire(join(root, 'package.json')).resolve('vitest/package.json')), 'vitest.mjs'), 'run'],
    whole: '`vitest run`',
    narrowed: '`vitest run FILE -t NAME`',
  },
  {
    name: 'node:test',
    config: {},
    imports: "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { tapePerTest } from 'modeltape/node-test';",
    check: (answer, index) => `assert.equal(${answer}, 'Order ${index} is on its way.');`,
    command: () => [process.execPath, '--test'],
    whole: '`node --test`',
    narrowed: '`node --test --test-name-pattern=NAME FILE`',
  },
];

function selectiveSuite() {
  const FILES = 40;
  const MUTANTS = 6;
  const measured = SELECTIVE_RUNNERS.map((runner) => ({ runner, ...selectiveRuns(runner, FILES, MUTANTS) }));
  const perMutant = (run) => (run.ms - run.baselineMs) / run.report.mutants.length;
  const row = (label, run) => `| ${label} | ${run.ms.toFixed(0)} | ${perMutant(run).toFixed(0)} | ${(60_000 / perMutant(run)).toFixed(1)} |`;
  writeResults('mutate-selective', {
    title: 'modeltape mutate --selective on a suite with a tape per test',
    command: 'npm run bench:mutate',
    body: [
      `A suite of ${FILES} test files, one test and one tape (tapePerTest()) each, under each runner; ${MUTANTS} mutants (text-emptied, --max ${MUTANTS}), ${availableParallelism()} at a time; one run of each. A mutant's ms leaves out the first run on the real tapes (as each mutate timed it).`,
      ...measured.map(
        ({ runner, whole, selective }) =>
          `${runner.name}: first runs ${whole.baselineMs.toFixed(0)} ms and ${selective.baselineMs.toFixed(0)} ms; with --selective ${selective.narrowed} of ${selective.report.mutants.length} mutants ran only the test that read their exchange; the outcomes were ${whole.outcomes === selective.outcomes ? 'the same' : 'NOT the same'} as the whole command's.`,
      ),
      '',
      '| mutants run with | ms in all | ms a mutant | mutants a minute |',
      '|---|---:|---:|---:|',
      ...measured.flatMap(({ runner, whole, selective }) => [
        row(`${runner.name}: the whole command (${runner.whole}, ${FILES} files)`, whole),
        row(`${runner.name}: \`--selective\` (${runner.narrowed})`, selective),
      ]),
      '',
      ...measured.map(
        ({ runner, whole, selective }) => `${runner.name}: selective over whole, mutants a minute: ${(perMutant(whole) / perMutant(selective)).toFixed(1)}×.`,
      ),
    ].join('\n'),
  });
}

// One suite under `runner`, mutated with the whole command and with --selective, in one run.
function selectiveRuns(runner, FILES, MUTANTS) {
  const dir = mkdtempSync(join(root, 'test-output', 'bench-selective-'));
  try {
    const installed = join(dir, 'node_modules', 'modeltape');
    mkdirSync(installed, { recursive: true });
    copyFileSync(join(root, 'package.json'), join(installed, 'package.json'));
    symlinkSync(join(root, 'dist'), join(installed, 'dist'));
    writeFileSync(join(dir, 'package.json'), '{ "name": "bench-selective", "private": true, "type": "module" }\n');
    for (const [file, text] of Object.entries(runner.config)) writeFileSync(join(dir, file), text);
    const rules = compileKeyRules();
    for (let index = 0; index < FILES; index++) {
      const name = `answers order ${index}`;
      const body = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: `Where is order ${index}?` }] };
      writeFileSync(
        join(dir, `order-${index}.test.mjs`),
        `${runner.imports}
const tape = tapePerTest();
test(${JSON.stringify(name)}, async () => {
  const response = await tape.fetch('https://api.openai.com/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer fake-bench-key' }, body: ${JSON.stringify(JSON.stringify(body))} });
  ${runner.check('(await response.json()).choices[0].message.content', index)}
});
`,
      );
      const request = {
        method: 'POST',
        path: '/v1/chat/completions',
        query: [],
        headers: { 'content-type': 'application/json' },
        body: { json: body },
        bodySha256: sha256Hex(JSON.stringify(body)),
      };
      const json = {
        id: `chatcmpl-bench${index}`,
        object: 'chat.completion',
        created: 1730000000,
        model: 'gpt-4o-mini-2024-07-18',
        choices: [{ index: 0, message: { role: 'assistant', content: `Order ${index} is on its way.`, refusal: null }, logprobs: null, finish_reason: 'stop' }],
        usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 },
      };
      const exchange = {
        key: exchangeKey('openai', request, rules),
        ordinal: 0,
        upstream: 'openai',
        source: 'live',
        request,
        response: { status: 200, headers: { 'content-type': 'application/json' }, body: { json, sha256: sha256Hex(JSON.stringify(json)) } },
      };
      const tape = join(dir, '__tapes__', `order-${index}.test`, `${safeFileName(name)}.jsonl`);
      mkdirSync(dirname(tape), { recursive: true });
      writeFileSync(tape, serializeLine(createHeader(rules.rules)) + serializeLine(exchange));
    }
    const measure = (selective) => {
      const started = performance.now();
      const args = [
        'mutate',
        '--tape',
        '__tapes__/**/*.jsonl',
        '--operators',
        'text-emptied',
        '--max',
        String(MUTANTS),
        '--json',
        ...(selective ? ['--selective'] : []),
        '--',
        ...runner.command(),
      ];
      const result = spawnSync(process.execPath, [cli, ...args], { cwd: dir, env: { ...env, FORCE_COLOR: '0' }, encoding: 'utf8', maxBuffer: 1 << 26 });
      const ms = performance.now() - started;
      if (result.status !== 0) throw new Error(`modeltape mutate exited ${result.status}:\n${result.stderr}`);
      // The first run on the real tapes, as mutate timed it in this same run: left out of a mutant's time.
      const baselineMs = Number(/passed on the real tapes in ([\d.]+) s/.exec(result.stderr)[1]) * 1000;
      const report = JSON.parse(result.stdout);
      return {
        ms,
        baselineMs,
        report,
        narrowed: report.mutants.filter((mutant) => mutant.ran && 'tests' in mutant.ran).length,
        outcomes: JSON.stringify(report.mutants.map((mutant) => mutant.outcome)),
      };
    };
    return { whole: measure(false), selective: measure(true) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.env.BENCH_MUTATE_SELECTIVE_ONLY !== '1') exampleSuite();
selectiveSuite();
