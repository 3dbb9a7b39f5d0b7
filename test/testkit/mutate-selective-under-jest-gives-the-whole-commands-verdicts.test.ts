import { describeSelectiveMutation } from '../support/selective-mutation-scenario.js';
import { binOf } from '../support/test-runner-project.js';

// A Jest suite (ES modules, so Node's --experimental-vm-modules): tapes per test from
// modeltape/jest, tapes opened by hand inside tests, one asked for in a beforeAll (its file known),
// and one reached through the session's base URL with the global fetch (which test read it is not known).
const open = (index: number, tape: string) => `const session = await openTape('shared/${tape}.jsonl');
  answer = await ask(${index === 1 ? 'fetch' : 'session.fetch'}, ${index}${index === 1 ? ', session.baseUrls.openai' : ''});
  await session.close();`;

describeSelectiveMutation({
  title: 'mutateSuite({ selective: true }) under Jest',
  files: ['a.test.js', 'b.test.js', 'c.test.js', 'd.test.js', 'e.test.js'],
  // Jest joins a describe block's title and its test's with a space.
  twoTapesName: 'orders two tapes',
  command: [process.execPath, '--experimental-vm-modules', '--no-warnings', binOf('jest')],
  project: {
    // In band: each mutant's run starts one process, not a worker per core.
    'jest.config.json': `{ "testEnvironment": "node", "setupFilesAfterEnv": ["modeltape/jest"], "transform": {}, "maxWorkers": 1 }\n`,
    'a.test.js': `import { tapePerTest } from 'modeltape/jest';
import { ask } from './ask.mjs';
const tape = tapePerTest();
test('capital', async () => {
  expect((await ask(tape.fetch, 0))?.choices[0].message.content).toMatch(/^Order 0 left/);
});
`,
    'b.test.js': `import { openTape } from 'modeltape/replay';
import { tapePerTest } from 'modeltape/jest';
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
    'c.test.js': `import { openTape } from 'modeltape/replay';
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
    ...Object.fromEntries(
      [
        ['d.test.js', 4, 'file-level'],
        ['e.test.js', 1, 'unknown'],
      ].map(([file, index, tape]) => [
        file,
        `import { openTape } from 'modeltape/replay';
import { ask } from './ask.mjs';
let answer;
beforeAll(async () => {
  ${open(index as number, tape as string)}
});
test('${tape}', () => {
  expect(answer?.choices[0].message.content).toMatch(/^Order ${index} left/);
});
`,
      ]),
    ),
  },
});
