import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { compileKeyRules, createHeader, serializeLine } from 'modeltape/recordings';
import { safeFileName } from 'modeltape/replay';
import { formatMutationReport, mutateSuite, type MutationReport } from 'modeltape/testkit';
import { chatExchange, chatRequestBody } from './chat-tape.js';
import { tempDir } from './temp-dir.js';
import { userProject } from './test-runner-project.js';

/** Each test asks for recorded exchanges by index (chatRequestBody) through a `fetch`: a session's, or the global one. */
export const ASK_MODULE = `export const BODIES = ${JSON.stringify([0, 1, 2, 3, 4, 5].map(chatRequestBody))};
export async function ask(fetch, index, url = 'https://api.openai.com/v1') {
  const response = await fetch(url + '/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer fake-test-key' },
    body: JSON.stringify(BODIES[index]),
  });
  return response.status === 200 ? await response.json() : undefined;
}
`;

/**
 * A suite under one runner, in the same shape for every runner (file names by the runner's habit):
 * - `a`: test `capital`, on its own tape (exchange 0), checks the answer's text;
 * - `b`: test `orders` › `two tapes`, on its own tape (exchange 2: checks why it stopped) and the
 *   shared one (exchanges 3 and 5: checks why the first stopped and the second's text);
 * - `c`: test `shared too`, the shared tape's second reader (exchanges 3 and 5: the first's text, why the second stopped);
 * - `d`: exchange 4 asked for around the tests (a `beforeAll`), its text checked by a test: its file is known, not its test;
 * - `e`: exchange 1 asked for where no test file can be known (past the session's fetch, or a process the test started), its text checked.
 */
export interface SelectiveRunner {
  title: string;
  /** The project's files: config, `ask.mjs` is added. */
  project: Record<string, string>;
  /** The five test files, a to e, as the project names them. */
  files: [string, string, string, string, string];
  /** The name `b`'s test is filed under (its tape's name). */
  twoTapesName: string;
  /** The command that runs the suite. */
  command: string[];
}

// Where each exchange is recorded: the shared tape holds two, the others one each.
function tapesOf(runner: SelectiveRunner): Array<[string, number[]]> {
  const folder = (file: string) => join('__tapes__', file.replace(/\.[cm]?[jt]s$/, ''));
  return [
    [join(folder(runner.files[0]), `${safeFileName('capital')}.jsonl`), [0]],
    [join(folder(runner.files[1]), `${safeFileName(runner.twoTapesName)}.jsonl`), [2]],
    [join('shared', 'shared.jsonl'), [3, 5]],
    [join('shared', 'file-level.jsonl'), [4]],
    [join('shared', 'unknown.jsonl'), [1]],
  ];
}

function writeTape(file: string, indexes: number[]): void {
  mkdirSync(dirname(file), { recursive: true });
  const descriptor = openSync(file, 'w');
  writeSync(descriptor, serializeLine(createHeader(compileKeyRules().rules)) + indexes.map((index) => serializeLine(chatExchange(index))).join(''));
  closeSync(descriptor);
}

// A developer's shell: none of the variables of the Vitest running this test.
function shellEnv(): NodeJS.ProcessEnv {
  return {
    ...Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !/^(VITEST|JEST|MODELTAPE_|NODE_TEST_CONTEXT$|CI$|OPENAI_API_KEY$|TEST$|NODE_OPTIONS$)/.test(name)),
    ),
    FORCE_COLOR: '0',
    NO_COLOR: '1',
  };
}

/**
 * mutateSuite({ selective: true }) on the runner's suite: the run on the real tapes learns which
 * test (or file) read each exchange, and each mutant runs only those; where that is not known the
 * whole command runs. On the same seed the verdicts are those of the whole command, mutant for
 * mutant: a test that reads two tapes, and a tape two tests read, whose mutants only one of the
 * two tests notices.
 */
export function describeSelectiveMutation(runner: SelectiveRunner): void {
  describe(runner.title, () => {
    const dir = tempDir({ inProject: true });

    test("runs each mutant with only the tests that read it, and gives the whole command's verdicts on the same seed", { timeout: 400_000 }, async () => {
      userProject(dir, { ...runner.project, 'ask.mjs': ASK_MODULE });
      const tapes = tapesOf(runner);
      for (const [file, indexes] of tapes) writeTape(join(dir, file), indexes);
      const run = (selective: boolean): Promise<MutationReport> =>
        mutateSuite({
          tapes: tapes.map(([file]) => file),
          command: runner.command,
          cwd: dir,
          env: shellEnv(),
          // One operator: each exchange one mutant, which only the tests that check its text notice.
          operators: ['text-emptied'],
          seed: 'selective',
          jobs: 2,
          selective,
        });
      const whole = await run(false);
      const selective = await run(true);
      const outcomes = (report: MutationReport) => report.mutants.map((mutant) => `${mutant.tape}:${mutant.line} ${mutant.operator} ${mutant.outcome}`);
      const tape = (index: number) => tapes[index]![0];
      // What each test checks decides each verdict: b checks only why its own answer stopped, and
      // each of the shared tape's two mutants is noticed by one of its two readers.
      expect(outcomes(whole)).toEqual([
        `${tape(0)}:2 text-emptied killed`,
        `${tape(1)}:2 text-emptied survived`,
        `${tape(2)}:2 text-emptied killed`,
        `${tape(2)}:3 text-emptied killed`,
        `${tape(3)}:2 text-emptied killed`,
        `${tape(4)}:2 text-emptied killed`,
      ]);
      expect(outcomes(selective)).toEqual(outcomes(whole));
      expect(selective.mutants.map((mutant) => mutant.detail)).toEqual(whole.mutants.map((mutant) => mutant.detail));
      // How each ran: the whole run says nothing of it; the selective one names the tests, or why not.
      expect(whole.mutants.every((mutant) => mutant.ran === undefined)).toBe(true);
      const [a, b, c, d] = runner.files;
      const ran = selective.mutants.map((mutant) => mutant.ran);
      expect(ran).toEqual([
        { tests: [`${a} > capital`] },
        { tests: [`${b} > ${runner.twoTapesName}`] },
        { tests: [`${b} > ${runner.twoTapesName}`, `${c} > shared too`].sort() },
        { tests: [`${b} > ${runner.twoTapesName}`, `${c} > shared too`].sort() },
        { tests: [`${d} (the whole file)`] },
        { whole: expect.stringContaining('which tests read its exchange is not known') },
      ]);
      // The terminal report counts them, and says why the whole one ran whole.
      expect(formatMutationReport(selective)).toContain(
        `  5 ran only the tests (or files) that read their exchange, 1 the whole command (${selective.mutants[5]!.id}: which tests read its exchange is not known`,
      );
      expect(formatMutationReport(whole)).not.toContain('ran only the tests');
    });
  });
}

/**
 * The five files of a suite whose tests assert with `expect` (Vitest's or Jest's): the same cases
 * for both. `entry` gives `tapePerTest()`; `runner(names)` is the line that brings the runner's
 * functions in (Vitest's import; nothing under Jest, which gives them as globals). `d` asks for its
 * answer in a beforeAll (its file known); `e` reaches the session's base URL with the global fetch
 * (past the session's fetch: which test read it is not known).
 */
export function expectStyleFiles(entry: string, extension: string, runner: (names: string) => string): Record<string, string> {
  const aroundTests = (index: number, tape: string) => `${runner('beforeAll, expect, test')}import { openTape } from 'modeltape/replay';
import { ask } from './ask.mjs';
let answer;
beforeAll(async () => {
  const session = await openTape('shared/${tape}.jsonl');
  answer = await ask(${index === 1 ? 'fetch' : 'session.fetch'}, ${index}${index === 1 ? ', session.baseUrls.openai' : ''});
  await session.close();
});
test('${tape}', () => {
  expect(answer?.choices[0].message.content).toMatch(/^Order ${index} left/);
});
`;
  return {
    [`a${extension}`]: `${runner('expect, test')}import { tapePerTest } from '${entry}';
import { ask } from './ask.mjs';
const tape = tapePerTest();
test('capital', async () => {
  expect((await ask(tape.fetch, 0))?.choices[0].message.content).toMatch(/^Order 0 left/);
});
`,
    [`b${extension}`]: `${runner('describe, expect, test')}import { openTape } from 'modeltape/replay';
import { tapePerTest } from '${entry}';
import { ask } from './ask.mjs';
const tape = tapePerTest();
describe('orders', () => {
  test('two tapes', async () => {
    const shared = await openTape('shared/shared.jsonl');
    try {
      expect((await ask(tape.fetch, 2))?.choices[0].finish_reason).toBe('stop');
      expect((await ask(shared.fetch, 3))?.choices[0].finish_reason).toBe('stop');
      expect((await ask(shared.fetch, 5))?.choices[0].message.content).toMatch(/^Order 5 left/);
    } finally {
      await shared.close();
    }
  });
});
`,
    [`c${extension}`]: `${runner('expect, test')}import { openTape } from 'modeltape/replay';
import { ask } from './ask.mjs';
test('shared too', async () => {
  const shared = await openTape('shared/shared.jsonl');
  try {
    expect((await ask(shared.fetch, 3))?.choices[0].message.content).toMatch(/^Order 3 left/);
    expect((await ask(shared.fetch, 5))?.choices[0].finish_reason).toBe('stop');
  } finally {
    await shared.close();
  }
});
`,
    [`d${extension}`]: aroundTests(4, 'file-level'),
    [`e${extension}`]: aroundTests(1, 'unknown'),
  };
}
