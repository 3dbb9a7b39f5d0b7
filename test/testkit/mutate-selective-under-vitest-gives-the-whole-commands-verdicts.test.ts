import { describeSelectiveMutation } from '../support/selective-mutation-scenario.js';
import { binOf } from '../support/test-runner-project.js';

// A Vitest suite: tapes per test from modeltape/vitest, tapes opened by hand inside tests, one asked
// for in a beforeAll (its file known), and one reached through the session's base URL with the
// global fetch (past its fetch: which test read it is not known).
const open = (index: number, tape: string) => `const session = await openTape('shared/${tape}.jsonl');
  answer = await ask(${index === 1 ? 'fetch' : 'session.fetch'}, ${index}${index === 1 ? ', session.baseUrls.openai' : ''});
  await session.close();`;

describeSelectiveMutation({
  title: 'mutateSuite({ selective: true }) under Vitest',
  files: ['a.test.mjs', 'b.test.mjs', 'c.test.mjs', 'd.test.mjs', 'e.test.mjs'],
  twoTapesName: 'orders > two tapes',
  command: [process.execPath, binOf('vitest'), 'run'],
  project: {
    // One worker thread that keeps its modules between files: each mutant's run starts one process, not five.
    'vitest.config.mjs': `export default { test: { setupFiles: ['modeltape/vitest'], pool: 'threads', maxWorkers: 1, isolate: false } };\n`,
    'a.test.mjs': `import { expect, test } from 'vitest';
import { tapePerTest } from 'modeltape/vitest';
import { ask } from './ask.mjs';
const tape = tapePerTest();
test('capital', async () => {
  expect((await ask(tape.fetch, 0))?.choices[0].message.content).toMatch(/^Order 0 left/);
});
`,
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
      expect((await ask(shared.fetch, 5))?.choices[0].message.content).toMatch(/^Order 5 left/);
    } finally {
      await shared.close();
    }
  });
});
`,
    'c.test.mjs': `import { expect, test } from 'vitest';
import { openTape } from 'modeltape/replay';
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
        ['d.test.mjs', 4, 'file-level'],
        ['e.test.mjs', 1, 'unknown'],
      ].map(([file, index, tape]) => [
        file,
        `import { beforeAll, expect, test } from 'vitest';
import { openTape } from 'modeltape/replay';
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
