import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect as jestExpect } from 'expect';
import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { modeltapeMatchers, openTape } from 'modeltape/replay';
import { tempDir } from '../support/temp-dir.js';

const EXAMPLE_TAPE = fileURLToPath(new URL('../../examples/tapes/weather.jsonl', import.meta.url));
const EXAMPLE = new URL('../../examples/weather.mjs', import.meta.url).href;

describe('outside Vitest', () => {
  const dir = tempDir({ inProject: true });

  test("the matchers work with Jest's own expect (the package Jest runs)", async () => {
    jestExpect.extend(modeltapeMatchers);
    const session = await openTape(EXAMPLE_TAPE, { config: false });
    const { askForWeather } = (await import(EXAMPLE)) as { askForWeather: (client: OpenAI) => Promise<{ answer: string }> };
    await askForWeather(new OpenAI({ apiKey: 'unused', fetch: session.fetch, maxRetries: 0 }));
    await session.close();
    (jestExpect(session) as unknown as { toHaveReplayedStrictly(): void }).toHaveReplayedStrictly();
    expect(() => (jestExpect(session) as unknown as { not: { toHaveNeverCalledUpstream(): void } }).not.toHaveNeverCalledUpstream()).toThrow(
      /not to have never called upstream/,
    );
  });

  test('the plain functions work under node:test', async () => {
    const file = `${dir}/replay.test.mjs`;
    writeFileSync(
      file,
      `import { test } from 'node:test';
import OpenAI from 'openai';
import { assertReplayedStrictly, openTape } from 'modeltape/replay';
import { askForWeather } from ${JSON.stringify(EXAMPLE)};

test('the weather agent replays strictly', async () => {
  const session = await openTape(${JSON.stringify(EXAMPLE_TAPE)}, { config: false });
  await askForWeather(new OpenAI({ apiKey: 'unused', fetch: session.fetch, maxRetries: 0 }));
  await session.close();
  assertReplayedStrictly(session);
});

test('an unused tape fails', async () => {
  const session = await openTape(${JSON.stringify(EXAMPLE_TAPE)}, { config: false });
  await session.close();
  assertReplayedStrictly(session);
});
`,
    );
    const result = await promisify(execFile)(process.execPath, ['--test', '--test-reporter=tap', file]).catch(
      (error: { stdout: string; code: number }) => error,
    );
    const output = 'stdout' in result ? result.stdout : '';
    expect(output).toMatch(/^ok 1 - the weather agent replays strictly/m);
    expect(output).toMatch(/^not ok 2 - an unused tape fails/m);
    expect(output).toContain('the assertion checked nothing');
  });
});
