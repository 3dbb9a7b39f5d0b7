import { describeSelectiveMutation } from '../support/selective-mutation-scenario.js';

// A node:test suite run by `node --test`: tapes per test from modeltape/node-test, tapes opened by
// hand inside tests and told the test (`{ test: t }`), one asked for in a before hook (any session
// in a test file's own process knows its file), and one asked for by a process the test started
// (which file read it is not known there: node:test's variable reaches it, node:test does not).
describeSelectiveMutation({
  title: 'mutateSuite({ selective: true }) under node --test',
  files: ['a.test.mjs', 'b.test.mjs', 'c.test.mjs', 'd.test.mjs', 'e.test.mjs'],
  // node:test's context joins a suite's name and its test's with " > " (t.fullName).
  twoTapesName: 'orders > two tapes',
  command: [process.execPath, '--test'],
  project: {
    'a.test.mjs': `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tapePerTest } from 'modeltape/node-test';
import { ask } from './ask.mjs';
const tape = tapePerTest();
test('capital', async () => {
  assert.match((await ask(tape.fetch, 0))?.choices[0].message.content ?? '', /^Order 0 left/);
});
`,
    'b.test.mjs': `import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openTape } from 'modeltape/replay';
import { tapePerTest } from 'modeltape/node-test';
import { ask } from './ask.mjs';
const tape = tapePerTest();
describe('orders', () => {
  test('two tapes', async (t) => {
    const shared = await openTape('shared/shared.jsonl', { test: t });
    try {
      assert.equal((await ask(tape.fetch, 2))?.choices[0].finish_reason, 'stop');
      assert.equal((await ask(shared.fetch, 3))?.choices[0].finish_reason, 'stop');
      assert.match((await ask(shared.fetch, 5))?.choices[0].message.content ?? '', /^Order 5 left/);
    } finally {
      await shared.close();
    }
  });
});
`,
    'c.test.mjs': `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openTape } from 'modeltape/replay';
import { ask } from './ask.mjs';
test('shared too', async (t) => {
  const shared = await openTape('shared/shared.jsonl', { test: t });
  try {
    assert.match((await ask(shared.fetch, 3))?.choices[0].message.content ?? '', /^Order 3 left/);
    assert.equal((await ask(shared.fetch, 5))?.choices[0].finish_reason, 'stop');
  } finally {
    await shared.close();
  }
});
`,
    'd.test.mjs': `import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { openTape } from 'modeltape/replay';
import { ask } from './ask.mjs';
let answer;
before(async () => {
  const session = await openTape('shared/file-level.jsonl');
  answer = await ask(session.fetch, 4);
  await session.close();
});
test('file-level', () => {
  assert.match(answer?.choices[0].message.content ?? '', /^Order 4 left/);
});
`,
    'e.test.mjs': `import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
test('unknown', () => {
  assert.match(execFileSync(process.execPath, ['read-unknown.mjs'], { encoding: 'utf8' }), /^Order 1 left/);
});
`,
    'read-unknown.mjs': `import { openTape } from 'modeltape/replay';
import { ask } from './ask.mjs';
const session = await openTape('shared/unknown.jsonl');
const answer = await ask(session.fetch, 1);
await session.close();
process.stdout.write(answer?.choices[0].message.content ?? '');
`,
  },
});
