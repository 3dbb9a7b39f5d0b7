import { readFileSync, writeFileSync } from 'node:fs';
import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { TapeWriter, compileKeyRules, loadTape, sha256Hex, type Exchange } from 'modeltape/recordings';
import { openTape } from 'modeltape/replay';
import { runMain } from '../support/cli.js';
import { recordTape } from '../support/record-tape.js';
import { tempDir } from '../support/temp-dir.js';

const ask = (client: OpenAI, content: string) => client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }] });

describe('modeltape rekey', () => {
  const dir = tempDir();

  test('re-derives the key and fingerprint of a line edited by hand under unchanged rules: verify then passes, and the edited request replays', async () => {
    const tape = `${dir}/edited.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      const client = new OpenAI({ apiKey: 'fake-key', baseURL: openai, maxRetries: 0 });
      await ask(client, 'Ship to Paris');
      await ask(client, 'Ship to Rome');
    });
    const lines = readFileSync(tape, 'utf8').split('\n');
    lines[1] = lines[1]!.replace('"content":"Ship to Paris"', '"content":"Ship to Lyon"');
    writeFileSync(tape, lines.join('\n'));

    const before = await runMain(['verify', tape]);
    expect(before.code).toBe(1);
    expect(before.stdout).toContain(`${tape}:2: the request body was edited by hand`);
    expect(before.stdout).toContain(`Run modeltape rekey ${tape}`);

    const rekeyed = await runMain(['rekey', tape]);
    expect(rekeyed.code, rekeyed.stderr).toBe(0);
    expect(rekeyed.stdout).toContain(`${tape}: 1 of 2 keys changed`);
    expect(rekeyed.stdout).toContain('line 2:');
    expect(rekeyed.stdout).toContain('the line was edited by hand');
    expect(rekeyed.stdout).toContain('1 request body was edited by hand: bodySha256 now fingerprints the body as it reads');
    expect(rekeyed.stdout).toContain(`${tape}: rewritten`);
    // The other line is untouched, byte for byte.
    expect(readFileSync(tape, 'utf8').split('\n')[2]).toBe(lines[2]);
    const [edited] = loadTape(tape).exchanges;
    expect(edited!.exchange.request.bodySha256).toBe(sha256Hex(JSON.stringify((edited!.exchange.request.body as { json: unknown }).json)));

    expect((await runMain(['verify', tape])).stdout).toBe(`${tape}: ok, 2 exchanges\n`);
    const session = await openTape(tape, { config: false });
    try {
      await ask(new OpenAI({ apiKey: 'fake-key', fetch: session.fetch, maxRetries: 0 }), 'Ship to Lyon');
      expect(session.summary()).toMatchObject({ hits: 1, misses: 0 });
    } finally {
      await session.close();
    }
    // A second rekey has nothing left to do.
    expect((await runMain(['rekey', tape])).stdout).toBe(`${tape}: 0 of 2 keys changed\n`);
  });

  test('a re-recording stopped before it was put in place: verify warns, replay still answers, rekey keeps the later in place of the earlier', async () => {
    const tape = `${dir}/stopped.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      const client = new OpenAI({ apiKey: 'fake-key', baseURL: openai, maxRetries: 0 });
      await ask(client, 'first');
      await ask(client, 'second');
    });
    const [first] = loadTape(tape).exchanges;
    const again: Exchange = { ...first!.exchange, response: { ...first!.exchange.response, headers: { ...first!.exchange.response.headers, 'x-again': '1' } } };
    // A recorder killed after it wrote the re-recording, before its close put it in place.
    const writer = TapeWriter.open(tape, { keyRules: compileKeyRules() });
    writer.append(again, { replacing: true });
    writer.flush();
    expect(loadTape(tape).exchanges).toHaveLength(3);

    const verified = await runMain(['verify', tape]);
    expect(verified.code).toBe(0);
    expect(verified.stderr).toContain(`${tape}:4: warning: ordinal 0 of key`);
    expect(verified.stderr).toContain('a re-recording was stopped before it replaced line 2');
    expect(verified.stderr).toContain(`modeltape rekey ${tape} keeps the later one in its place`);

    const rekeyed = await runMain(['rekey', tape]);
    expect(rekeyed.stdout).toContain('line 2: replaced by line 4, a later recording of the same request and ordinal');
    const after = loadTape(tape).exchanges.map(({ exchange }) => exchange);
    expect(after).toHaveLength(2);
    expect(after[0]!.response.headers['x-again']).toBe('1');
    expect(after.map((exchange) => exchange.ordinal)).toEqual([0, 0]);
    expect((await runMain(['verify', tape])).stdout).toBe(`${tape}: ok, 2 exchanges\n`);
    writer.close();
  });
});
