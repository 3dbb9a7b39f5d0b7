import { describeTapePerTest, type RunnerReport } from '../support/tape-per-test-scenario.js';
import { binOf, runNode } from '../support/test-runner-project.js';

// A user's suite under Jest: the setup file in the config, one line for a tape per test, and the
// test file an ES module (modeltape is one), which Jest runs with Node's --experimental-vm-modules.
// Recording goes to the FakeProvider the test starts; SHIP_PROMPT and ASK_ONCE change what the
// replay sends, as an edited prompt or a removed call would.
const PROJECT = {
  'jest.config.json': `{ "testEnvironment": "node", "setupFilesAfterEnv": ["modeltape/jest"], "transform": {} }\n`,
  'checkout.test.js': `import OpenAI from 'openai';
import { REPLAY_PLACEHOLDER_KEY } from 'modeltape/replay';
import { tapePerTest } from 'modeltape/jest';

const tape = tapePerTest(process.env.FAKE_OPENAI_URL ? { upstreams: { openai: process.env.FAKE_OPENAI_URL } } : {});
const client = new OpenAI({ apiKey: process.env.OPENAI_API_KEY ?? REPLAY_PLACEHOLDER_KEY, fetch: tape.fetch, maxRetries: 0 });
const ask = async (content) => (await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }] })).choices[0].message.content;

test('answers where to ship', async () => {
  expect(await ask(process.env.SHIP_PROMPT ?? 'Where to?')).toBe('Ship to Paris.');
});

describe('the follow-up', () => {
  test('answers the next stop', async () => {
    expect(await ask('Where to?')).toBe('Ship to Paris.');
    if (process.env.ASK_ONCE !== '1') expect(await ask('And then?')).toBe('Then Lyon.');
    expect(tape.session).toHaveNoDrift();
  });
});
`,
};

describeTapePerTest({
  title: 'modeltape/jest in a real Jest run',
  project: PROJECT,
  // Jest joins a describe block's title and its test's with a space.
  followUpTitle: 'the follow-up answers the next stop',
  recordCommand: 'MODELTAPE_MODE=auto npx jest checkout.test.js',
  run: async (cwd, env) => {
    const run = await runNode(['--experimental-vm-modules', '--no-warnings', binOf('jest'), '--json'], { cwd, env });
    return { ...run, report: JSON.parse(run.stdout) as RunnerReport };
  },
});
