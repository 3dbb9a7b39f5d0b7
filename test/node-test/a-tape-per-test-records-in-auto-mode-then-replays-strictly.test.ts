import { NODE_TEST_JSON_REPORTER } from '../support/node-test-json-reporter.js';
import { describeTapePerTest, type RunnerReport } from '../support/tape-per-test-scenario.js';
import { runNode } from '../support/test-runner-project.js';

// A user's suite under Node's own runner: one line for a tape per test, from modeltape/node-test
// (node:test has no current test to read: its hooks hand the test's context over), and the
// assertions of node:assert and modeltape/replay. Recording goes to the FakeProvider the test
// starts; SHIP_PROMPT and ASK_ONCE change what the replay sends, as an edited prompt or a removed
// call would. The JSON reporter is the project's, in the shape the scenario reads.
const PROJECT = {
  'json-reporter.mjs': NODE_TEST_JSON_REPORTER,
  'checkout.test.mjs': `import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import OpenAI from 'openai';
import { assertNoDrift, REPLAY_PLACEHOLDER_KEY } from 'modeltape/replay';
import { tapePerTest } from 'modeltape/node-test';

const tape = tapePerTest(process.env.FAKE_OPENAI_URL ? { upstreams: { openai: process.env.FAKE_OPENAI_URL } } : {});
const client = new OpenAI({ apiKey: process.env.OPENAI_API_KEY ?? REPLAY_PLACEHOLDER_KEY, fetch: tape.fetch, maxRetries: 0 });
const ask = async (content) => (await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }] })).choices[0].message.content;

test('answers where to ship', async () => {
  assert.equal(await ask(process.env.SHIP_PROMPT ?? 'Where to?'), 'Ship to Paris.');
});

describe('the follow-up', () => {
  test('answers the next stop', async () => {
    assert.equal(await ask('Where to?'), 'Ship to Paris.');
    if (process.env.ASK_ONCE !== '1') assert.equal(await ask('And then?'), 'Then Lyon.');
    assertNoDrift(tape.session);
  });
});
`,
};

describeTapePerTest({
  title: 'modeltape/node-test in a real node --test run',
  project: PROJECT,
  // node:test's context joins a suite's name and its test's with " > " (t.fullName).
  followUpTitle: 'the follow-up > answers the next stop',
  recordCommand: 'MODELTAPE_MODE=auto node --test checkout.test.mjs',
  run: async (cwd, env) => {
    const run = await runNode(['--test', '--test-reporter=./json-reporter.mjs', 'checkout.test.mjs'], { cwd, env });
    return { ...run, report: JSON.parse(run.stdout) as RunnerReport };
  },
});
