import { relative } from 'node:path';
import { writeFileSync } from 'node:fs';
import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { formatSummary, startProxy } from 'modeltape/proxy';
import { assertReplayedStrictly, modeltapeMatchers, openTape } from 'modeltape/replay';
import { runMain } from '../support/cli.js';
import { recordTape } from '../support/record-tape.js';
import { tempDir } from '../support/temp-dir.js';

const ask = (client: OpenAI, content: string) => client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }] });

describe('what a replay left unused, and a miss under CI', () => {
  const dir = tempDir({ inProject: true });

  const recordTwo = (tape: string) =>
    recordTape(tape, async ({ openai }) => {
      const client = new OpenAI({ apiKey: 'fake-key', baseURL: openai, maxRetries: 0 });
      await ask(client, 'used');
      await ask(client, 'left over');
    });

  test('the proxy summary, openTape close and modeltape run each say how many recordings went unused and where, without failing; the strict assertion still fails', async () => {
    const tape = `${dir}/two.jsonl`;
    const shown = relative(process.cwd(), tape);
    await recordTwo(tape);

    const proxy = await startProxy({ tape, log: () => undefined });
    await ask(new OpenAI({ apiKey: 'fake-key', baseURL: proxy.baseUrls.openai, maxRetries: 0 }), 'used');
    const summary = await proxy.close();
    expect(summary.unused).toEqual({ count: 1, total: 2, lines: [3] });
    expect(formatSummary(summary)).toContain(`\n  1 of 2 recordings unused: ${shown}:3 (modeltape inspect ${shown} --unused -- CMD lists them)`);

    const logged: string[] = [];
    const session = await openTape(tape, { config: false, log: (line) => logged.push(line) });
    await ask(new OpenAI({ apiKey: 'fake-key', fetch: session.fetch, maxRetries: 0 }), 'used');
    expect(() => assertReplayedStrictly(session)).toThrow(/1 recorded exchange was never used/);
    await session.close();
    expect(logged).toContain(`modeltape: tape session: 1 of 2 recordings unused: ${shown}:3 (modeltape inspect ${shown} --unused -- CMD lists them)`);

    // Two test processes on one tape under a run: unused is what neither used.
    writeFileSync(
      `${dir}/asks.mjs`,
      `import OpenAI from 'openai';
import { openTape } from 'modeltape/replay';
const session = await openTape(${JSON.stringify(tape)}, { config: false });
await new OpenAI({ apiKey: 'k', fetch: session.fetch, maxRetries: 0 }).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: process.argv[2] }] });
await session.close();
`,
    );
    writeFileSync(
      `${dir}/both.mjs`,
      `import { execFileSync } from 'node:child_process';\nexecFileSync(process.execPath, ['${dir}/asks.mjs', 'used'], { stdio: 'inherit' });\n`,
    );
    const one = await runMain(['run', '--', process.execPath, `${dir}/both.mjs`]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stderr).toContain(`  1 of 2 recordings unused: ${shown}:3`);
    writeFileSync(
      `${dir}/both.mjs`,
      `import { execFileSync } from 'node:child_process';\nfor (const question of ['used', 'left over']) execFileSync(process.execPath, ['${dir}/asks.mjs', question], { stdio: 'inherit' });\n`,
    );
    const all = await runMain(['run', '--', process.execPath, `${dir}/both.mjs`]);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stderr).not.toContain('unused');
  });

  test('under CI, a miss from modeltape run, from openTape and from a matcher ends with the same sentence', async () => {
    const tape = `${dir}/ci.jsonl`;
    await recordTwo(tape);
    const sentence = /CI only replays: record it on your machine with .+, then commit the tape\./;

    writeFileSync(
      `${dir}/drifted.mjs`,
      `import OpenAI from 'openai';
await new OpenAI({ maxRetries: 0 }).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'drifted' }] });
`,
    );
    const run = await runMain(['run', '--tape', tape, '--', process.execPath, `${dir}/drifted.mjs`], { env: { CI: 'true' } });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(sentence);
    expect(run.stderr).toContain('CI only replays: record it on your machine with --mode auto, then commit the tape.');

    const session = await openTape(tape, { config: false, env: { CI: 'true' }, log: () => undefined });
    const error = (await ask(new OpenAI({ apiKey: 'k', fetch: session.fetch, maxRetries: 0 }), 'drifted').catch((caught: unknown) => caught)) as Error;
    expect(error.message).toMatch(sentence);
    const matched = modeltapeMatchers.toHaveNoDrift.call({ isNot: false }, session);
    expect(matched.pass).toBe(false);
    expect(matched.message()).toMatch(sentence);
    await session.close();

    const missing = (await openTape(`${dir}/missing.jsonl`, { config: false, env: { CI: 'true' } }).catch((caught: unknown) => caught)) as Error;
    expect(missing.message).toMatch(sentence);
    const missingRun = await runMain(['run', '--tape', `${dir}/missing.jsonl`, '--', process.execPath, '-e', ''], { env: { CI: 'true' } });
    expect(missingRun.stderr).toMatch(sentence);
  });
});
