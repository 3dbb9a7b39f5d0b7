import { describeTapePerTest, type RunnerReport } from '../support/tape-per-test-scenario.js';
import { binOf, runNode } from '../support/test-runner-project.js';

// A user's suite: the setup file in the config, and one line for a tape per test. Recording goes to
// the FakeProvider the test starts (with a real key the upstream is left out); SHIP_PROMPT and
// ASK_ONCE change what the replay sends, as an edited prompt or a removed call would.
const PROJECT = {
  'vitest.config.ts': `import { defineConfig } from 'vitest/config';
export default defineConfig({ test: { setupFiles: ['modeltape/vitest'] } });
`,
  'checkout.test.ts': `import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { REPLAY_PLACEHOLDER_KEY } from 'modeltape/replay';
import { tapePerTest } from 'modeltape/vitest';

const tape = tapePerTest(process.env.FAKE_OPENAI_URL ? { upstreams: { openai: process.env.FAKE_OPENAI_URL } } : {});
const client = new OpenAI({ apiKey: process.env.OPENAI_API_KEY ?? REPLAY_PLACEHOLDER_KEY, fetch: tape.fetch, maxRetries: 0 });
const ask = async (content: string) => (await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }] })).choices[0]!.message.content;

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
  title: 'modeltape/vitest in a real Vitest run',
  project: PROJECT,
  // Vitest joins a describe block's title and its test's with " > ".
  followUpTitle: 'the follow-up > answers the next stop',
  recordCommand: 'MODELTAPE_MODE=auto npx vitest run checkout.test.ts',
  run: async (cwd, env) => {
    const run = await runNode([binOf('vitest'), 'run', '--reporter=json'], { cwd, env });
    return { ...run, report: JSON.parse(run.stdout) as RunnerReport };
  },
});
