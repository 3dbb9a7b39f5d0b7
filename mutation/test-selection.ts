// `modeltape mutate --selective`: the run on the real tapes learns which tests read each exchange
// (a session reports the tests its requests came in, or only their file), and a mutant then runs
// only those, through the command's own runner: `vitest run … FILE -t PATTERN`, `jest … FILE -t
// PATTERN`, `node --test --test-name-pattern=PATTERN FILE`. Where that is not known, or the command
// is no runner it can narrow, the mutant runs the whole command, and its result says why.
import { basename, isAbsolute, relative } from 'node:path';
import type { ReportedTest, RunReport } from '../guard/internal.js';

/** How one mutant's command ran: narrowed to the tests that read its exchange (`file > name`), or whole, and why. */
export type MutantRun = { tests: string[] } | { whole: string };

/** For each line of a tape the run answered from: the tests that read it, or null when that is not known. */
export type LineReaders = Map<number, Map<string, ReportedTest> | null>;

/**
 * Who read each line of the tape at `real` in a run: every session's tests, by its `path`; a line
 * the run's own proxy answered (`proxyLines`), or a session that could not say its tests, is
 * read by tests unknown.
 */
export function lineReaders(report: Pick<RunReport, 'sessions'>, real: string, proxyLines: readonly number[]): LineReaders {
  const readers: LineReaders = new Map();
  for (const line of proxyLines) readers.set(line, null);
  for (const session of report.sessions) {
    if (session.path !== real) continue;
    for (const line of session.used ?? []) {
      const known = readers.get(line);
      if (known === null) continue;
      if (session.tests === undefined) {
        readers.set(line, null);
        continue;
      }
      const tests = known ?? new Map<string, ReportedTest>();
      for (const test of session.tests) tests.set(`${test.runner}\u0000${test.file}\u0000${test.name ?? ''}`, test);
      readers.set(line, tests);
    }
  }
  return readers;
}

/**
 * The command that runs only `tests` (the readers of one exchange), or why the whole `command` must
 * run: the readers are not known, they ran under another runner than the command starts, or the
 * command already chooses its tests by name. A reader known only by its file runs its whole file.
 */
export function narrowCommand(
  command: readonly string[],
  cwd: string,
  tests: ReadonlyMap<string, ReportedTest> | null | undefined,
): { command: readonly string[]; ran: MutantRun } {
  const whole = (why: string) => ({ command, ran: { whole: why } });
  if (tests === null || tests === undefined)
    return whole('which tests read its exchange is not known (it was read where no test file is known, or past the session’s fetch)');
  const readers = [...tests.values()];
  if (readers.length === 0) return whole('no test read its exchange');
  const runner = runnerOf(command);
  if (runner === undefined)
    return whole(`the command is not vitest, jest or node --test run directly (${basename(command[0] ?? '')}), so it cannot be narrowed to a test`);
  const other = readers.find((test) => test.runner !== runner);
  if (other !== undefined) return whole(`a test that read it ran under ${other.runner}, and the command runs ${runner}`);
  if (command.some((argument) => /^(-t|--testNamePattern|--test-name-pattern)(=|$)/.test(argument)))
    return whole('the command chooses its tests by name already (-t)');
  const shown = (file: string) => {
    const path = relative(cwd, file);
    return path.startsWith('..') || isAbsolute(path) ? file : path;
  };
  // Jest takes a file as a pattern of paths; Vitest as a part of one; node --test as a file.
  const files = [...new Set(readers.map((test) => test.file))].sort().map((file) => (runner === 'jest' ? escapeRegExp(shown(file)) : shown(file)));
  const ran = {
    tests: readers.map((test) => (test.name === undefined ? `${shown(test.file)} (the whole file)` : `${shown(test.file)} > ${test.name}`)).sort(),
  };
  // A reader known by its file alone: its files run whole (any other reader's tests in them too).
  const named = readers.every((test) => test.name !== undefined && (runner !== 'node:test' || test.leaf !== undefined));
  if (runner === 'node:test') {
    const options = nodeOptions(command);
    if (typeof options === 'string') return whole(options);
    // Node 20 matches a pattern against a test's own name (Node 22 also against its suites' names
    // joined by spaces): the own name matches on both.
    const pattern = named ? [`--test-name-pattern=^(?:${[...new Set(readers.map((test) => escapeRegExp(test.leaf!)))].sort().join('|')})$`] : [];
    return { command: [...options, ...pattern, ...files], ran };
  }
  if (!named) return { command: [...command, ...files], ran };
  // Vitest matches -t against the suite and test names joined by spaces (after the file's name);
  // its expect.getState() joins them by " > ". Jest matches the name expect.getState() gives.
  const names = [...new Set(readers.map((test) => (runner === 'vitest' ? test.name!.split(' > ').join(' ') : test.name!)))].sort();
  const pattern = `${runner === 'vitest' ? '(?:^| )' : '^'}(?:${names.map(escapeRegExp).join('|')})$`;
  return { command: [...command, ...files, '-t', pattern], ran };
}

// `vitest`, `jest`, or their scripts (node_modules/vitest/vitest.mjs, node_modules/jest/bin/jest.js);
// `node --test`.
function runnerOf(command: readonly string[]): 'vitest' | 'jest' | 'node:test' | undefined {
  for (const argument of command) {
    const name = basename(argument).replace(/\.[cm]?js$/, '');
    if (name === 'vitest' || name === 'jest') return name;
  }
  if (/^node(js)?(\.exe)?$/.test(basename(command[0] ?? '')) && command.includes('--test')) return 'node:test';
  return undefined;
}

// Node's options that take their value as the next argument (`--import x`), as far as a test command uses them.
const NODE_VALUE_OPTIONS = new Set([
  '-r',
  '--require',
  '--import',
  '--loader',
  '--experimental-loader',
  '-C',
  '--conditions',
  '--env-file',
  '--env-file-if-exists',
  '--input-type',
  '--title',
  '--disable-warning',
  '--redirect-warnings',
  '--inspect-port',
  '--watch-path',
  '--experimental-default-type',
  '--test-reporter',
  '--test-reporter-destination',
  '--test-concurrency',
  '--test-timeout',
  '--test-shard',
  '--test-skip-pattern',
  '--test-isolation',
  '--experimental-test-isolation',
  '--test-coverage-include',
  '--test-coverage-exclude',
  '--test-coverage-branches',
  '--test-coverage-functions',
  '--test-coverage-lines',
  '--test-global-setup',
]);

/**
 * A `node --test …` command's binary and options without its files (the files to run replace
 * them), or why it cannot be told which arguments are files: an option Node reads, unknown here,
 * followed by something that may be its value.
 */
function nodeOptions(command: readonly string[]): string[] | string {
  const kept = [command[0]!];
  for (let index = 1; index < command.length; index++) {
    const argument = command[index]!;
    if (argument === '--') return 'the command passes arguments after --, which node --test would read as files';
    if (!argument.startsWith('-') || argument === '-') continue;
    kept.push(argument);
    if (argument.includes('=')) continue;
    const next = command[index + 1];
    if (next === undefined || next.startsWith('-')) continue;
    if (!NODE_VALUE_OPTIONS.has(argument) && !NODE_FLAGS.has(argument))
      return `the command's ${argument} is unknown here, so whether ${JSON.stringify(next)} is its value or a test file cannot be told`;
    if (NODE_VALUE_OPTIONS.has(argument)) kept.push(command[++index]!);
  }
  return kept;
}

// Node's options that take no value, as far as a test command uses them.
const NODE_FLAGS = new Set([
  '--test',
  '--test-only',
  '--test-force-exit',
  '--test-update-snapshots',
  '--experimental-test-coverage',
  '--experimental-test-module-mocks',
  '--experimental-test-snapshots',
  '--experimental-strip-types',
  '--no-experimental-strip-types',
  '--experimental-transform-types',
  '--enable-source-maps',
  '--no-warnings',
  '--no-deprecation',
  '--trace-warnings',
  '--trace-uncaught',
  '--expose-gc',
  '--watch',
  '--experimental-vm-modules',
  '--preserve-symlinks',
  '--experimental-sqlite',
  '--no-experimental-fetch',
]);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
