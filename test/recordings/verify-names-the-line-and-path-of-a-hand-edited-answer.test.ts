import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import OpenAI from 'openai';
import { beforeAll, describe, expect, test } from 'vitest';
import { startProxy } from 'modeltape/proxy';
import { recordTape } from '../support/record-tape.js';
import { runMain } from '../support/cli.js';
import { sample } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// OpenAI's real answer with a number beyond 2^53, which the tape keeps as a literal.
const ANSWER = Buffer.from(
  sample('openai/chat-completion.json').toString('utf8').replace('  "created": 1770933883,\n', '  "created": 1770933883,\n  "seed": 9007199254740993,\n'),
  'utf8',
);
const sha256 = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

describe('modeltape verify on JSON answers', () => {
  const dir = tempDir({ scope: 'file' });
  let lines: string[];
  beforeAll(async () => {
    const tape = `${dir}/recorded.jsonl`;
    await recordTape(
      tape,
      async ({ openai }) => {
        const client = new OpenAI({ apiKey: 'fake-key', baseURL: openai, maxRetries: 0 });
        await client.chat.completions.create({ model: 'gpt-4.1-nano', messages: [{ role: 'user', content: 'one' }] });
        await client.chat.completions.create({ model: 'gpt-4.1-nano', messages: [{ role: 'user', content: 'two' }] });
      },
      { reply: () => ({ body: ANSWER }) },
    );
    lines = readFileSync(tape, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(3);
  });

  const tapeWith = (name: string, edit: (lines: string[]) => void): string => {
    const edited = [...lines];
    edit(edited);
    const file = `${dir}/${name}.jsonl`;
    writeFileSync(file, `${edited.join('\n')}\n`);
    return file;
  };

  test('accepts a recorded tape: every answer gives back its recorded bytes', async () => {
    expect(lines[1]).toContain(`"sha256":"${sha256(ANSWER)}"`);
    const result = await runMain(['verify', tapeWith('untouched', () => undefined)]);
    expect(result.stdout).toMatch(/: ok, 2 exchanges\n$/);
    expect(result.code).toBe(0);
  });

  test('names file:line and .response.body.json for an edited answer, and the sha256 that accepts the edit', async () => {
    const file = tapeWith('edited', (edited) => (edited[2] = edited[2]!.replace('Galaxy Day', 'Nebula Day')));
    const result = await runMain(['verify', file]);
    expect(result.code).toBe(1);
    const problem = result.stdout.split('\n').find((line) => line.startsWith(`${file}:3: `));
    expect(problem).toContain('the response body no longer gives back the bytes it was recorded from');
    expect(problem).toContain('at .response.body.json: edited by hand');
    expect(result.stdout).not.toContain(`${file}:2:`);

    // The fix it suggests makes the edit the recorded answer.
    const accepted = /set "\.response\.body\.sha256" to "([0-9a-f]{64})"/.exec(problem!)![1]!;
    const fixed = tapeWith('fixed', (edited) => (edited[2] = edited[2]!.replace('Galaxy Day', 'Nebula Day').replace(sha256(ANSWER), accepted)));
    const again = await runMain(['verify', fixed]);
    expect(again.stdout).toMatch(/: ok, 2 exchanges\n$/);
    expect(again.code).toBe(0);
    expect(accepted).toBe(sha256(ANSWER.toString('utf8').replace('Galaxy Day', 'Nebula Day')));
  });

  test('names the member when an edited number no longer fits its recorded literal, and replay serves the edit', async () => {
    const file = tapeWith('seed', (edited) => (edited[1] = edited[1]!.replace('"seed":9007199254740992', '"seed":42')));
    const result = await runMain(['verify', file]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      `${file}:2: the response body no longer gives back the bytes it was recorded from (sha256 ${sha256(ANSWER).slice(0, 12)}…): at .response.body.json.seed: json holds 42; layout.literals[".seed"] was recorded as 9007199254740993.`,
    );

    const proxy = await startProxy({ tape: file });
    try {
      const served = await new OpenAI({ apiKey: 'fake-key', baseURL: proxy.baseUrls.openai, maxRetries: 0 }).chat.completions
        .create({ model: 'gpt-4.1-nano', messages: [{ role: 'user', content: 'one' }] })
        .asResponse();
      expect(await served.text()).toBe(ANSWER.toString('utf8').replace('"seed": 9007199254740993', '"seed": 42'));
    } finally {
      await proxy.close();
    }
  });
});
