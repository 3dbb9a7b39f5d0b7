import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { compileKeyRules, createHeader, serializeLine } from 'modeltape/recordings';
import { safeFileName } from 'modeltape/replay';
import { mutateSuite, type MutationReport } from 'modeltape/testkit';
import { chatExchange, chatRequestBody } from '../support/chat-tape.js';
import { binOf, userProject } from '../support/test-runner-project.js';
import { tempDir } from '../support/temp-dir.js';

// mutateSuite({ selective: true }): the run on the real tapes learns which Vitest test read each
// exchange (sessions opened inside tests say so), and each mutant runs only those tests; where that
// is not known (a session opened in a beforeAll) the whole command runs. On the same seed the
// verdicts are those of the whole command, mutant for mutant: a test that reads two tapes, and a
// tape two tests read, whose mutants only one of the two tests notices.

// Each test asks for recorded exchanges by index (chatRequestBody) through a session's fetch.
const ASK = `export const BODIES = ${JSON.stringify([0, 1, 2, 3, 4].map(chatRequestBody))};
export async function ask(fetch, index) {
  const response = await fetch('https://api.openai.com/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer fake-test-key' },
    body: JSON.stringify(BODIES[index]),
  });
  return response.status === 200 ? await response.json() : undefined;
}
`;

const PROJECT = {
  'vitest.config.mjs': `export default { test: { setupFiles: ['modeltape/vitest'] } };\n`,
  'ask.mjs': ASK,
  // Exchange 0: its text is checked.
  'a.test.mjs': `import { expect, test } from 'vitest';
import { tapePerTest } from 'modeltape/vitest';
import { ask } from './ask.mjs';
const tape = tapePerTest();
test('capital', async () => {
  expect((await ask(tape.fetch, 0))?.choices[0].message.content).toMatch(/^Order 0 left/);
});
`,
  // One test, two tapes: its own (exchange 2) and the shared one (exchange 3); it checks why each stopped.
  'b.test.mjs': `import { describe, expect, test } from 'vitest';
import { openTape } from 'modeltape/replay';
import { tapePerTest } from 'modeltape/vitest';
import { ask } from './ask.mjs';
const tape = tapePerTest();
describe('orders', () => {
  test('two tapes', async () => {
    const shared = await openTape('shared/shared.jsonl');
    try {
      expect((await ask(tape.fetch, 2))?.choices[0].finish_reason).toBe('stop');
      expect((await ask(shared.fetch, 3))?.choices[0].finish_reason).toBe('stop');
    } finally {
      await shared.close();
    }
  });
});
`,
  // The shared tape's second reader: it checks the text, not why it stopped.
  'c.test.mjs': `import { expect, test } from 'vitest';
import { openTape } from 'modeltape/replay';
import { ask } from './ask.mjs';
test('shared too', async () => {
  const shared = await openTape('shared/shared.jsonl');
  try {
    expect((await ask(shared.fetch, 3))?.choices[0].message.content).toMatch(/^Order 3 left/);
  } finally {
    await shared.close();
  }
});
`,
  // An answer asked for outside any test (in a beforeAll): which test reads it is not known.
  'd.test.mjs': `import { beforeAll, expect, test } from 'vitest';
import { openTape } from 'modeltape/replay';
import { ask } from './ask.mjs';
let answer;
beforeAll(async () => {
  const session = await openTape('shared/file-level.jsonl');
  answer = await ask(session.fetch, 4);
  await session.close();
});
test('file level', () => {
  expect(answer?.choices[0].message.content).toMatch(/^Order 4 left/);
});
`,
};

// Where each exchange is recorded: a tape of one exchange each.
const TAPES: Record<string, number> = {
  [join('__tapes__', 'a.test', `${safeFileName('capital')}.jsonl`)]: 0,
  [join('__tapes__', 'b.test', `${safeFileName('orders > two tapes')}.jsonl`)]: 2,
  [join('shared', 'shared.jsonl')]: 3,
  [join('shared', 'file-level.jsonl')]: 4,
};

function writeTape(file: string, index: number): void {
  mkdirSync(dirname(file), { recursive: true });
  const descriptor = openSync(file, 'w');
  writeSync(descriptor, serializeLine(createHeader(compileKeyRules().rules)) + serializeLine(chatExchange(index)));
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

describe('mutateSuite({ selective: true })', () => {
  const dir = tempDir({ inProject: true });

  test("runs each mutant with only the tests that read it, and gives the whole command's verdicts on the same seed", { timeout: 400_000 }, async () => {
    userProject(dir, PROJECT);
    for (const [file, index] of Object.entries(TAPES)) writeTape(join(dir, file), index);
    const run = (selective: boolean): Promise<MutationReport> =>
      mutateSuite({
        tapes: Object.keys(TAPES),
        command: [process.execPath, binOf('vitest'), 'run'],
        cwd: dir,
        env: shellEnv(),
        operators: ['text-emptied', 'finish-length'],
        seed: 'selective',
        jobs: 2,
        selective,
      });
    const whole = await run(false);
    const selective = await run(true);
    const outcomes = (report: MutationReport) => report.mutants.map((mutant) => `${mutant.tape}:${mutant.line} ${mutant.operator} ${mutant.outcome}`);
    const tapeOf = (index: number) => Object.keys(TAPES)[index]!;
    // What each test checks decides each verdict; the shared tape's mutants are noticed by one reader each.
    expect(outcomes(whole)).toEqual([
      `${tapeOf(0)}:2 text-emptied killed`,
      `${tapeOf(0)}:2 finish-length survived`,
      `${tapeOf(1)}:2 text-emptied survived`,
      `${tapeOf(1)}:2 finish-length killed`,
      `${tapeOf(2)}:2 text-emptied killed`,
      `${tapeOf(2)}:2 finish-length killed`,
      `${tapeOf(3)}:2 text-emptied killed`,
      `${tapeOf(3)}:2 finish-length survived`,
    ]);
    expect(outcomes(selective)).toEqual(outcomes(whole));
    expect(selective.mutants.map((mutant) => mutant.detail)).toEqual(whole.mutants.map((mutant) => mutant.detail));
    // How each ran: the whole run says nothing of it; the selective one names the tests, or why not.
    expect(whole.mutants.every((mutant) => mutant.ran === undefined)).toBe(true);
    const ran = selective.mutants.map((mutant) => mutant.ran);
    expect(ran.slice(0, 2)).toEqual([{ tests: ['a.test.mjs > capital'] }, { tests: ['a.test.mjs > capital'] }]);
    expect(ran.slice(2, 4)).toEqual([{ tests: ['b.test.mjs > orders > two tapes'] }, { tests: ['b.test.mjs > orders > two tapes'] }]);
    expect(ran.slice(4, 6)).toEqual([
      { tests: ['b.test.mjs > orders > two tapes', 'c.test.mjs > shared too'] },
      { tests: ['b.test.mjs > orders > two tapes', 'c.test.mjs > shared too'] },
    ]);
    expect(ran.slice(6)).toHaveLength(2);
    for (const unknown of ran.slice(6)) expect(unknown).toEqual({ whole: expect.stringContaining('which tests read its exchange is not known') });
  });
});
