import { writeFileSync } from 'node:fs';
import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { recordTape } from '../support/record-tape.js';
import { runMain } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

// modeltape run --chaos SEED: the run's tape replayed with faults; the schedule is printed with the
// summary so a failing seed can be run again, and a client that does not retry fails the run.
describe('modeltape run --chaos', () => {
  const dir = tempDir({ inProject: true });

  const client = (retries: number) => `import OpenAI from 'openai';
const client = new OpenAI({ maxRetries: ${retries} });
const completion = await client.chat.completions.create({ model: 'gpt-4.1-nano', messages: [{ role: 'user', content: 'hi' }] });
console.log(completion.choices[0].message.content);
`;

  test('a retrying client passes and the schedule names the fault; a client that does not retry fails the run; the same seed, the same fault', async () => {
    const tape = `${dir}/chaos.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      await new OpenAI({ apiKey: 'fake-key', baseURL: openai, maxRetries: 0 }).chat.completions.create({
        model: 'gpt-4.1-nano',
        messages: [{ role: 'user', content: 'hi' }],
      });
    });
    writeFileSync(`${dir}/retrying.mjs`, client(2));
    writeFileSync(`${dir}/fragile.mjs`, client(0));
    const chaos = ['--chaos', '42', '--chaos-kinds', 'rate-limited,server-error'];

    const passed = await runMain(['run', '--tape', tape, ...chaos, '--', process.execPath, `${dir}/retrying.mjs`]);
    expect(passed.code, passed.stderr).toBe(0);
    const schedule =
      /modeltape: chaos seed 42 \(rate 0\.25, kinds rate-limited, server-error\): 1 fault, 1 fired\n {2}\S+chaos\.jsonl:2 POST \/v1\/chat\/completions \(openai\) \(ordinal 0\): (rate-limited|server-error), (retried|never retried)\n/;
    expect(passed.stderr).toMatch(schedule);
    expect(schedule.exec(passed.stderr)?.[2]).toBe('retried');

    const failed = await runMain(['run', '--tape', tape, ...chaos, '--', process.execPath, `${dir}/fragile.mjs`]);
    expect(failed.code).not.toBe(0);
    expect(failed.stderr).toMatch(/modeltape: chaos seed 42 .*: 1 fault, 1 fired/);
    expect(schedule.exec(failed.stderr)?.[1]).toBe(schedule.exec(passed.stderr)?.[1]);
    expect(schedule.exec(failed.stderr)?.[2]).toBe('never retried');

    const unseeded = await runMain(['run', '--tape', tape, '--chaos-rate', '0.5', '--', process.execPath, `${dir}/retrying.mjs`]);
    expect(unseeded.code).toBe(2);
    expect(unseeded.stderr).toContain('give its seed too (--chaos SEED)');
  });
});
