import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { writeTapeReplacingLines } from './write-tape-replacing-lines.js';

const dir = mkdtempSync(join(tmpdir(), 'modeltape-replace-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('writeTapeReplacingLines', () => {
  test('replaces the named lines and copies every other byte: CRLF, an invalid line, an unterminated last line', () => {
    const file = join(dir, 'tape.jsonl');
    writeFileSync(file, 'header\n{"a":1}\r\nnot json\n{"c":3}\n{"d":4}');
    const target = join(dir, 'out.jsonl');
    writeTapeReplacingLines(
      file,
      target,
      new Map([
        [2, '{"a":2}'],
        [5, '{"d":5}'],
      ]),
    );
    expect(readFileSync(target, 'utf8')).toBe('header\n{"a":2}\nnot json\n{"c":3}\n{"d":5}\n');
    // Over an older copy, renamed into place: nothing is left aside.
    writeTapeReplacingLines(file, target, new Map());
    expect(readFileSync(target, 'utf8')).toBe(readFileSync(file, 'utf8'));
    expect(readdirSync(dir).sort()).toEqual(['out.jsonl', 'tape.jsonl']);
  });

  test('a line the tape does not have, or the header, writes nothing', () => {
    const file = join(dir, 'short.jsonl');
    writeFileSync(file, 'header\n{"a":1}\n');
    const target = join(dir, 'short-out.jsonl');
    expect(() => writeTapeReplacingLines(file, target, new Map([[3, '{}']]))).toThrow(RangeError);
    expect(() => writeTapeReplacingLines(file, target, new Map([[1, '{}']]))).toThrow(RangeError);
    expect(readdirSync(dir).filter((name) => name.includes('short'))).toEqual(['short.jsonl']);
  });
});
