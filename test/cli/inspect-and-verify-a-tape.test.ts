import { readFileSync, writeFileSync } from 'node:fs';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { beforeAll, describe, expect, test } from 'vitest';
import { recordTape } from '../support/record-tape.js';
import { runMain } from '../support/cli.js';
import { fakeOpenAiKey } from '../support/fake-keys.js';
import { tempDir } from '../support/temp-dir.js';

describe('modeltape inspect and verify', () => {
  const dir = tempDir({ scope: 'file' });
  let tape: string;
  beforeAll(async () => {
    tape = `${dir}/mixed.jsonl`;
    await recordTape(tape, async ({ openai, anthropic }) => {
      const client = new OpenAI({ apiKey: 'fake-key', baseURL: openai, maxRetries: 0 });
      await client.chat.completions.create({ model: 'gpt-4.1-nano', messages: [{ role: 'user', content: 'one' }] });
      await client.chat.completions.create({ model: 'gpt-4.1-nano', messages: [{ role: 'user', content: 'two' }] });
      await client.chat.completions.stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'three' }] }).finalChatCompletion();
      await new Anthropic({ apiKey: 'fake-key', baseURL: anthropic, maxRetries: 0 }).messages.create({
        model: 'claude-opus-4-8',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'four' }],
      });
    });
  });

  test('inspect lists exchanges by upstream, endpoint and model, with streamed counts, sizes and sources', async () => {
    const result = await runMain(['inspect', tape]);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe(`${tape}: 4 exchanges (tape schemaVersion 4, written by modeltape@0.1.0)`);
    expect(lines[1]).toMatch(/upstream\s+endpoint\s+model\s+exchanges\s+streamed\s+request\s+response\s+source/);
    expect(lines.find((line) => line.includes('gpt-4.1-nano'))).toMatch(
      /openai\s+POST \/v1\/chat\/completions\s+gpt-4\.1-nano\s+2\s+0\s+[\d.]+ B\s+[\d.]+ KB\s+2 live/,
    );
    expect(lines.find((line) => line.includes('gpt-4o '))).toMatch(/\s1\s+1\s/);
    expect(lines.find((line) => line.includes('claude-opus-4-8'))).toMatch(/anthropic\s+POST \/v1\/messages/);
    const json = JSON.parse((await runMain(['inspect', tape, '--json'])).stdout) as { groups: Array<{ exchanges: number }> };
    expect(json.groups.map((group) => group.exchanges)).toEqual([2, 1, 1]);
  });

  test('verify accepts a good tape', async () => {
    const result = await runMain(['verify', tape]);
    expect(result.stdout).toBe(`${tape}: ok, 4 exchanges\n`);
    expect(result.code).toBe(0);
  });

  test('verify exits non-zero with line-numbered errors for an unknown field, a stale key and a secret', async () => {
    const broken = `${dir}/broken.jsonl`;
    const lines = readFileSync(tape, 'utf8').trimEnd().split('\n');
    lines[1] = lines[1]!.replace('"bodySha256"', '"bodySha265"');
    lines[2] = lines[2]!.replace('"content":"two"', '"content":"two, edited by hand"');
    lines[3] = lines[3]!.replace('"content":"three"', `"content":"${fakeOpenAiKey(`${'FAKE'.repeat(6)}-leaked`)}"`);
    writeFileSync(broken, `${lines.join('\n')}\n`);
    const result = await runMain(['verify', broken]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`${broken}:2: unknown field ".request.bodySha265" in exchange; did you mean ".request.bodySha256"?`);
    expect(result.stdout).toContain(`${broken}:3: the request body was edited by hand`);
    expect(result.stdout).toContain(`Run modeltape rekey ${broken} to derive both from the body as it reads`);
    expect(result.stdout).toContain(`${broken}:4: holds a credential at .request.body.json.messages[0].content`);
    expect(result.stdout).not.toContain('leaked');
  });

  test('replaying a tape with a schema error fails with file:line, the field and the nearest known field', async () => {
    const broken = `${dir}/typo.jsonl`;
    const lines = readFileSync(tape, 'utf8').trimEnd().split('\n');
    lines[4] = lines[4]!.replace('"ordinal"', '"ordinl"');
    writeFileSync(broken, `${lines.join('\n')}\n`);
    const result = await runMain(['run', '--tape', broken, '--', process.execPath, '-e', '']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${broken}:5: unknown field ".ordinl" in exchange; did you mean ".ordinal"?`);
  });
});
