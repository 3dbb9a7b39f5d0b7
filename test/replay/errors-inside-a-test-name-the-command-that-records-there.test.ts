import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { openTape } from 'modeltape/replay';
import { closeAfterEach } from '../support/close-after-each.js';
import { recordTape } from '../support/record-tape.js';
import { tempDir } from '../support/temp-dir.js';

const THIS_FILE = 'test/replay/errors-inside-a-test-name-the-command-that-records-there.test.ts';

// Inside a test the way to record is a variable in front of the test command, not a CLI flag
// (`modeltape run --mode record` around a runner would record a tape the test never opens).
describe('errors inside a test', () => {
  const dir = tempDir();
  const started = closeAfterEach();

  test('a missing tape names MODELTAPE_MODE=auto and this very test file, not a modeltape run line', async () => {
    const error = (await openTape(`${dir}/missing.jsonl`, { config: false, env: {} }).catch((caught: unknown) => caught)) as Error;
    expect(error.message).toBe(
      `Tape ${dir}/missing.jsonl does not exist. Record it with MODELTAPE_MODE=auto npx vitest run ${THIS_FILE} (with a real key set), then commit the tape.`,
    );
    expect(error.message).not.toContain('modeltape run');
  });

  test('under CI it says that CI only replays, and where to record', async () => {
    const error = (await openTape(`${dir}/missing.jsonl`, { config: false, env: { CI: 'true' } }).catch((caught: unknown) => caught)) as Error;
    expect(error.message).toContain('CI only replays: record it on your machine with MODELTAPE_MODE=auto npx vitest run');
    const tape = `${dir}/ci-miss.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      await new OpenAI({ apiKey: 'k', baseURL: openai, maxRetries: 0 }).chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'Ship to Paris' }],
      });
    });
    const session = started(await openTape(tape, { config: false, env: { CI: 'true' }, log: () => undefined }));
    const client = new OpenAI({ apiKey: 'k', fetch: session.fetch, maxRetries: 0 });
    const drifted = (await client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Ship to Lyon' }] })
      .catch((caught: unknown) => caught)) as Error;
    expect(drifted.message).toContain(
      `CI only replays: record it on your machine with MODELTAPE_MODE=auto npx vitest run ${THIS_FILE} (with a real key set), then commit the tape. If the differing field is volatile, declare a normalizer instead.`,
    );
  });

  test('a miss names the variable and the option, not the --mode and --repeat flags', async () => {
    const tape = `${dir}/once.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      await new OpenAI({ apiKey: 'k', baseURL: openai, maxRetries: 0 }).chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'Ship to Paris' }],
      });
    });
    const session = started(await openTape(tape, { config: false, env: {}, log: () => undefined }));
    const client = new OpenAI({ apiKey: 'k', fetch: session.fetch, maxRetries: 0 });
    const drifted = (await client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Ship to Lyon' }] })
      .catch((caught: unknown) => caught)) as Error;
    expect(drifted.message).toContain(`Record it with MODELTAPE_MODE=auto npx vitest run ${THIS_FILE} (with a real key set), or declare a normalizer`);
    await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Ship to Paris' }] });
    const again = (await client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Ship to Paris' }] })
      .catch((caught: unknown) => caught)) as Error;
    expect(again.message).toContain("Pass openTape(file, { repeat: 'last' }) to reuse the last answer, or record the extra call with MODELTAPE_MODE=auto");
    for (const message of [drifted.message, again.message]) expect(message).not.toMatch(/--mode|--repeat/);
  });
});
