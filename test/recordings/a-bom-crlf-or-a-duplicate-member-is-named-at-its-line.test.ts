import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { readTape, serializeLine } from 'modeltape/recordings';
import { ReplayEngine } from '../../lookup/internal.js';
import { runMain } from '../support/cli.js';
import { chatExchange } from '../support/exchanges.js';
import { HEADER_LINE, RULES } from '../support/tape-lines.js';
import { tempDir } from '../support/temp-dir.js';

const dir = tempDir();
const BOM = '\uFEFF';
const one = serializeLine(chatExchange('one'));
const two = serializeLine(chatExchange('two'));

test('a byte order mark at the start of the tape is a warning naming line 1; every exchange loads, replays and verifies', async () => {
  const file = join(dir, 'bom.jsonl');
  writeFileSync(file, BOM + HEADER_LINE + one + two);
  const contents = readTape(file);
  expect(contents.problems).toEqual([]);
  expect(contents.exchanges).toHaveLength(2);
  expect(contents.warnings).toEqual([{ file, line: 1, message: expect.stringContaining('the tape starts with a UTF-8 byte order mark') }]);
  expect(contents.warnings[0]!.message).toContain('save the file as UTF-8 without BOM');
  expect(ReplayEngine.fromTape(file, { keyRules: RULES }).engine.lookup(chatExchange('two').key).kind).toBe('hit');
  const verify = await runMain(['verify', file]);
  expect(verify.code).toBe(0);
  expect(verify.stderr).toContain(`${file}:1: warning: the tape starts with a UTF-8 byte order mark`);
});

test('a byte order mark at the start of a later line (two files joined) is a warning naming that line, and the line is kept', async () => {
  const file = join(dir, 'joined.jsonl');
  writeFileSync(file, HEADER_LINE + one + BOM + two);
  const contents = readTape(file);
  expect(contents.problems).toEqual([]);
  expect(contents.exchanges.map(({ line }) => line)).toEqual([2, 3]);
  expect(contents.warnings).toEqual([
    { file, line: 3, message: expect.stringContaining('line 3 starts with a UTF-8 byte order mark, probably from joining two files') },
  ]);
  expect(ReplayEngine.fromTape(file, { keyRules: RULES }).engine.lookup(chatExchange('two').key).kind).toBe('hit');
  expect((await runMain(['verify', file])).stderr).toContain(`${file}:3: warning: line 3 starts with a UTF-8 byte order mark`);
});

test('CRLF line endings are one warning naming the first such line and how many more, with what to do; every exchange loads', async () => {
  const file = join(dir, 'crlf.jsonl');
  writeFileSync(file, [HEADER_LINE, one, two].map((line) => line.replace('\n', '\r\n')).join(''));
  const contents = readTape(file);
  expect(contents.problems).toEqual([]);
  expect(contents.exchanges).toHaveLength(2);
  expect(contents.warnings).toHaveLength(1);
  expect(contents.warnings[0]).toMatchObject({ file, line: 1 });
  expect(contents.warnings[0]!.message).toContain('line 1 and 2 more lines end with CRLF');
  expect(contents.warnings[0]!.message).toContain(`dos2unix ${file}`);
  expect(ReplayEngine.fromTape(file, { keyRules: RULES }).engine.lookup(chatExchange('one').key).kind).toBe('hit');
  const verify = await runMain(['verify', file]);
  expect(verify.code).toBe(0);
  // Read without the \r, the lines are canonical: one warning, not one per line.
  expect(verify.stderr.trim().split('\n')).toEqual([expect.stringContaining(`${file}:1: warning: line 1 and 2 more lines end with CRLF`)]);
});

test('verify names a member given twice (JSON.parse keeps the last silently), with the object holding it and what to do', async () => {
  const file = join(dir, 'twice.jsonl');
  // A hand edit that added a second "content" to the prompt, and a second "key".
  const editedPrompt = one.replace('"content":"one"', '"content":"one","content":"edited"');
  const editedKey = two.replace('{"key":', `{"key":"${'0'.repeat(64)}","key":`);
  writeFileSync(file, HEADER_LINE + editedPrompt + editedKey);
  const verify = await runMain(['verify', file]);
  expect(verify.code).toBe(1);
  expect(verify.stdout).toContain(
    `${file}:2: the member "content" appears twice in .request.body.json.messages[0] (a hand edit?): JSON readers keep only the last one, so the first is silently ignored. Delete the one you do not mean.`,
  );
  expect(verify.stdout).toContain(`${file}:3: the member "key" appears twice in the line`);
});

test('a tape read a few bytes at a time gives what reading it whole gives: lines across chunk edges, blank, torn, BOM and CRLF lines', () => {
  const file = join(dir, 'chunks.jsonl');
  const text = `${BOM}${HEADER_LINE}${one}\n${two.replace('\n', '\r\n')}${BOM}${serializeLine(chatExchange('é ünïcödé 🎉'))}${serializeLine(chatExchange('torn')).slice(0, 90)}`;
  writeFileSync(file, text);
  const whole = readTape(file);
  expect(whole.exchanges).toHaveLength(3);
  expect(whole.warnings.map(({ line }) => line)).toEqual([1, 3, 5, 6, 4]);
  for (const chunkBytes of [1, 2, 3, 7, 64, 1000]) {
    const chunked = readTape(file, { chunkBytes });
    expect(chunked, `chunks of ${chunkBytes} bytes`).toEqual(whole);
    const lazy = readTape(file, { chunkBytes, lazy: true });
    expect(
      lazy.exchanges.map(({ line, exchange }) => [line, exchange]),
      `lazily, chunks of ${chunkBytes} bytes`,
    ).toEqual(whole.exchanges.map(({ line, exchange }) => [line, exchange]));
  }
});
