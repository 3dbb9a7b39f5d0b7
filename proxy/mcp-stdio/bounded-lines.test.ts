import { PassThrough } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { readBoundedLines, type LongLine } from './bounded-lines.js';

// Feeds `chunks` and collects what was told, in order.
async function read(chunks: Array<string | Buffer>, limit: number): Promise<string[]> {
  const input = new PassThrough();
  const told: string[] = [];
  const long = (kind: string) => (line: LongLine) => told.push(`${kind} ${line.bytes} ${line.head.slice(0, 6)}…${line.tail.slice(-6)}`);
  const ended = new Promise<void>((resolve) =>
    readBoundedLines(input, limit, {
      line: (text) => told.push(`line ${JSON.stringify(text)}`),
      overLimit: long('over'),
      longLineEnded: long('ended'),
      end: () => {
        told.push('end');
        resolve();
      },
    }),
  );
  for (const chunk of chunks) input.write(chunk);
  input.end();
  await ended;
  return told;
}

describe('readBoundedLines', () => {
  test('splits lines across chunks, drops a \\r before a line break, and tells a last line without one', async () => {
    expect(await read(['{"a"', ':1}\r', '\n{"b":2}\n\n{"c"', ':3}'], 100)).toEqual([
      'line "{\\"a\\":1}"',
      'line "{\\"b\\":2}"',
      'line ""',
      'line "{\\"c\\":3}"',
      'end',
    ]);
  });

  test('a line over the limit is told as it passes it and when it ends, by its ends; the next line is whole', async () => {
    const long = `HEAD--${'x'.repeat(20_000)}--TAIL`;
    expect(await read([long.slice(0, 7), long.slice(7, 15_000), `${long.slice(15_000)}\nnext\n`], 1000)).toEqual([
      'over 15000 HEAD--…',
      `ended ${long.length} HEAD--…--TAIL`,
      'line "next"',
      'end',
    ]);
  });

  test('a line exactly at the limit is a line; one byte more is not', async () => {
    expect(await read([`${'a'.repeat(10)}\n${'b'.repeat(11)}\n`], 10)).toEqual([
      `line "${'a'.repeat(10)}"`,
      'over 11 bbbbbb…',
      'ended 11 bbbbbb…bbbbbb',
      'end',
    ]);
  });

  test('a multi-byte character split across chunks is read whole', async () => {
    const bytes = Buffer.from('{"city":"Zürich"}\n', 'utf8');
    expect(await read([bytes.subarray(0, 11), bytes.subarray(11)], 100)).toEqual(['line "{\\"city\\":\\"Zürich\\"}"', 'end']);
  });
});
