import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { copyTapeReplacingLine } from './copy-tape-replacing-line.js';

const dir = mkdtempSync(join(tmpdir(), 'modeltape-copy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// What the copy must be: the original's bytes with line `line` (1-based, without its break) swapped.
function expected(original: Buffer, line: number, text: string): Buffer {
  const lines = original.toString('latin1').split('\n');
  lines[line - 1] = Buffer.from(text, 'utf8').toString('latin1');
  return Buffer.from(lines.join('\n'), 'latin1');
}

describe('copyTapeReplacingLine', () => {
  let count = 0;
  const copyOf = (original: Buffer, line: number, text: string, chunkBytes?: number): Buffer => {
    const file = join(dir, `original-${++count}.jsonl`);
    const copy = join(dir, `copy-${count}.jsonl`);
    writeFileSync(file, original);
    copyTapeReplacingLine(file, copy, line, text, chunkBytes);
    expect(statSync(copy).mode & 0o777).toBe(0o600);
    return readFileSync(copy);
  };

  test('copies every byte but the one line, whatever the chunk size, line endings and the last line', () => {
    const shapes = [
      'header\n{"a":1}\n{"b":2}\n{"c":3}\n',
      'header\n{"a":1}\n{"b":2}\n{"c":3}', // no break after the last line
      'header\r\n{"a":1}\r\n{"b":"é ü 日本"}\r\n{"c":3}\r\n', // CRLF, multi-byte UTF-8
      'header\n\n{"a":1}\n\n\n{"b":2}\n', // blank lines
      `header\n${'x'.repeat(5000)}\n{"b":2}\n${'y'.repeat(3000)}\n`, // lines longer than a chunk
    ];
    let checked = 0;
    for (const shape of shapes) {
      const original = Buffer.from(shape, 'utf8');
      const lines = shape.split('\n').length - (shape.endsWith('\n') ? 1 : 0);
      for (let line = 1; line <= lines; line++) {
        for (const chunkBytes of [1, 2, 3, 7, 64, 1 << 20]) {
          const text = `{"mutated":${line},"text":"ä"}`;
          expect(copyOf(original, line, text, chunkBytes)).toEqual(expected(original, line, text));
          checked++;
        }
      }
    }
    expect(checked).toBe(6 * (4 + 4 + 4 + 6 + 4));
  });

  test('refuses a line the tape does not have, and leaves no copy behind', () => {
    const file = join(dir, 'short.jsonl');
    writeFileSync(file, 'header\n{"a":1}\n');
    for (const line of [3, 4, 0, 1.5]) {
      expect(() => copyTapeReplacingLine(file, join(dir, `none-${line}.jsonl`), line, '{}')).toThrow(RangeError);
      expect(existsSync(join(dir, `none-${line}.jsonl`))).toBe(false);
    }
  });
});
