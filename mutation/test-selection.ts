// `modeltape mutate --selective`: the run on the real tapes learns which tests read each exchange
// (a session opened inside a Vitest or Jest test reports the tests its requests came in), and a
// mutant then runs only those tests, through the command's own runner: `vitest run … FILE -t
// PATTERN`, `jest … FILE -t PATTERN`. Where that is not known, or the command is no runner it can
// narrow, the mutant runs the whole command, and its result says why.
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
      for (const test of session.tests) tests.set(`${test.runner}\u0000${test.file}\u0000${test.name}`, test);
      readers.set(line, tests);
    }
  }
  return readers;
}

/**
 * The command that runs only `tests` (the readers of one exchange), or why the whole `command` must
 * run: the readers are not known, they ran under another runner than the command starts, or the
 * command already chooses its tests by name.
 */
export function narrowCommand(
  command: readonly string[],
  cwd: string,
  tests: ReadonlyMap<string, ReportedTest> | null | undefined,
): { command: readonly string[]; ran: MutantRun } {
  const whole = (why: string) => ({ command, ran: { whole: why } });
  if (tests === null || tests === undefined)
    return whole('which tests read its exchange is not known (it was read outside a Vitest or Jest test, or past the session’s fetch)');
  const readers = [...tests.values()];
  if (readers.length === 0) return whole('no test read its exchange');
  const runner = runnerOf(command);
  if (runner === undefined) return whole(`the command is not vitest or jest run directly (${basename(command[0] ?? '')}), so it cannot be narrowed to a test`);
  const other = readers.find((test) => test.runner !== runner);
  if (other !== undefined) return whole(`a test that read it ran under ${other.runner}, and the command runs ${runner}`);
  if (command.some((argument) => /^(-t|--testNamePattern|--test-name-pattern)(=|$)/.test(argument)))
    return whole('the command chooses its tests by name already (-t)');
  const files = [...new Set(readers.map((test) => test.file))].sort().map((file) => {
    const shown = relative(cwd, file);
    const path = shown.startsWith('..') || isAbsolute(shown) ? file : shown;
    // Jest takes a file as a pattern of paths; Vitest as a part of one.
    return runner === 'jest' ? escapeRegExp(path) : path;
  });
  // Vitest matches -t against the suite and test names joined by spaces (after the file's name);
  // its expect.getState() joins them by " > ". Jest matches the name expect.getState() gives.
  const names = [...new Set(readers.map((test) => (runner === 'vitest' ? test.name.split(' > ').join(' ') : test.name)))].sort();
  const pattern = `${runner === 'vitest' ? '(?:^| )' : '^'}(?:${names.map(escapeRegExp).join('|')})$`;
  return {
    command: [...command, ...files, '-t', pattern],
    ran: { tests: readers.map((test) => `${relative(cwd, test.file)} > ${test.name}`).sort() },
  };
}

// `vitest`, `jest`, or their scripts (node_modules/vitest/vitest.mjs, node_modules/jest/bin/jest.js).
function runnerOf(command: readonly string[]): 'vitest' | 'jest' | undefined {
  for (const argument of command) {
    const name = basename(argument).replace(/\.[cm]?js$/, '');
    if (name === 'vitest' || name === 'jest') return name;
  }
  return undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
