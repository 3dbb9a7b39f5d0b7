import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { TapeFormatError } from './errors.js';
import { ModeltapeError } from '../core/internal.js';
import { compileKeyRules } from './exchange-key.js';
import type { Exchange } from './tape-format.js';
import { createHeader, serializeLine } from './tape-line.js';
import { closeTapeLines, LazyLoadedExchange, TapeNotFoundError, loadTape, parseTape, readTape } from './tape-reader.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'modeltape-reader-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const HEADER = serializeLine(createHeader(compileKeyRules().rules));

function exchange(content: string, ordinal = 0): Exchange {
  return {
    key: 'c'.repeat(64),
    ordinal,
    upstream: 'openai',
    source: 'live',
    request: {
      method: 'POST',
      path: '/v1/chat/completions',
      query: [],
      headers: { 'content-type': 'application/json' },
      body: { json: { messages: [{ role: 'user', content }], stream: true, temperature: 0.25, tools: null } },
      bodySha256: 'd'.repeat(64),
    },
    response: {
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      stream: {
        format: 'sse',
        frames: [
          { atMs: 0, text: 'data: {"choices":[{"delta":{"content":"héllo \\u00e9"}}]}\n\n' },
          { atMs: 1.5, text: 'data: [DONE]\n\n' },
        ],
      },
    },
  };
}

function tape(...lines: string[]): string {
  return HEADER + lines.join('');
}

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('torn lines', () => {
  test('a tape whose last line was cut mid-write loads with a warning naming that line, keeping every earlier exchange', () => {
    const last = serializeLine(exchange('three', 2));
    const file = write('torn.jsonl', tape(serializeLine(exchange('one')), serializeLine(exchange('two', 1)), last.slice(0, 100)));
    const contents = loadTape(file);
    expect(contents.exchanges.map(({ line, exchange: { ordinal } }) => [line, ordinal])).toEqual([
      [2, 0],
      [3, 1],
    ]);
    expect(contents.problems).toEqual([]);
    expect(contents.warnings).toHaveLength(1);
    expect(contents.warnings[0]).toMatchObject({ file, line: 4 });
    expect(contents.warnings[0]!.message).toContain('line 4 is torn (100 bytes');
  });

  test('a torn line in the middle, continued by another writer on a new line, is skipped with a warning', () => {
    const torn = serializeLine(exchange('torn')).slice(0, 57);
    const contents = parseTape(tape(serializeLine(exchange('one')), `${torn}\n`, serializeLine(exchange('after', 1))), 'mid.jsonl');
    expect(contents.problems).toEqual([]);
    expect(contents.exchanges.map(({ line }) => line)).toEqual([2, 4]);
    expect(contents.warnings.map(({ line }) => line)).toEqual([3]);
  });

  test('every way of cutting an exchange line short is recognised as torn, at the end or in the middle', () => {
    const line = serializeLine(exchange('quote " backslash \\ newline \n unicode ✓ 👋')).slice(0, -1);
    let checked = 0;
    for (let length = 1; length < line.length; length++) {
      const prefix = line.slice(0, length);
      const atEnd = parseTape(tape(prefix), 'cut.jsonl');
      const inMiddle = parseTape(tape(`${prefix}\n`, serializeLine(exchange('next'))), 'cut.jsonl');
      expect({ length, problems: atEnd.problems, warnings: atEnd.warnings.length }).toEqual({ length, problems: [], warnings: 1 });
      expect({ length, problems: inMiddle.problems, warnings: inMiddle.warnings.length, kept: inMiddle.exchanges.length }).toEqual({
        length,
        problems: [],
        warnings: 1,
        kept: 1,
      });
      checked++;
    }
    expect(checked).toBe(line.length - 1);
  });

  test('a line with a syntax error in its middle is a problem, not a warning', () => {
    const whole = serializeLine(exchange('x'));
    const broken = whole.replace('"ordinal":0,', '"ordinal":0,,');
    expect(broken).not.toBe(whole);
    const text = tape(serializeLine(exchange('one')), broken);
    const contents = parseTape(text, 'bad.jsonl');
    expect(contents.warnings).toEqual([]);
    expect(contents.problems).toHaveLength(1);
    expect(contents.problems[0]).toMatchObject({ file: 'bad.jsonl', line: 3, field: '' });
    expect(contents.problems[0]!.message).toMatch(/^not valid JSON: /);
    expect(() => loadTape(write('bad.jsonl', text))).toThrow(TapeFormatError);
  });

  test('a syntax error in the middle of the last line is a problem even without a trailing newline', () => {
    const whole = serializeLine(exchange('x')).slice(0, -1);
    const contents = parseTape(tape(`${whole.slice(0, 30)}]${whole.slice(30)}`), 'bad.jsonl');
    expect(contents.problems.map(({ line }) => line)).toEqual([2]);
    expect(contents.warnings).toEqual([]);
  });

  test('a complete line followed by stray characters is a problem, not a torn line', () => {
    const whole = serializeLine(exchange('x')).slice(0, -1);
    const contents = parseTape(tape(`${whole}}\n`, serializeLine(exchange('y', 1))), 'stray.jsonl');
    expect(contents.warnings).toEqual([]);
    expect(contents.problems.map(({ line }) => line)).toEqual([2]);
  });

  test('a torn header is a problem', () => {
    const contents = parseTape(HEADER.slice(0, 30), 'h.jsonl');
    expect(contents.header).toBeUndefined();
    expect(contents.problems).toEqual([{ file: 'h.jsonl', line: 1, field: '', message: 'the header line is torn; delete the tape and record again' }]);
  });
});

describe('parseTape', () => {
  test('reads the header and each exchange with its line number', () => {
    const contents = parseTape(tape(serializeLine(exchange('a')), serializeLine(exchange('b', 1))), 'ok.jsonl');
    expect(contents.header).toEqual(JSON.parse(HEADER));
    expect(contents.exchanges.map(({ line }) => line)).toEqual([2, 3]);
    expect(contents.exchanges[1]!.exchange).toEqual(exchange('b', 1));
    expect(contents.lineCount).toBe(3);
    expect(contents.problems).toEqual([]);
    expect(contents.warnings).toEqual([]);
  });

  test('calls back with progress, ending with every line read', () => {
    const calls: Array<[number, number]> = [];
    parseTape(tape(serializeLine(exchange('a')), serializeLine(exchange('b'))), 'p.jsonl', { onProgress: (done, total) => calls.push([done, total]) });
    expect(calls[0]).toEqual([0, 3]);
    expect(calls.at(-1)).toEqual([3, 3]);
  });

  test('warns about a blank line in the middle and ignores a trailing one', () => {
    const contents = parseTape(tape(serializeLine(exchange('a')), '\n', serializeLine(exchange('b')), '\n'), 'blank.jsonl');
    expect(contents.exchanges).toHaveLength(2);
    expect(contents.warnings).toEqual([{ file: 'blank.jsonl', line: 3, message: 'blank line skipped' }]);
  });

  test('reports an empty tape as a problem at line 1', () => {
    const contents = parseTape('', 'empty.jsonl');
    expect(contents.header).toBeUndefined();
    expect(contents.problems).toHaveLength(1);
    expect(contents.problems[0]!.message).toContain('the tape is empty');
  });

  test('collects the problems of every line without stopping at the first', () => {
    const one = { ...exchange('a'), ordinl: 1 };
    const two = { ...exchange('b'), source: 'recorded' };
    const contents = parseTape(tape(`${JSON.stringify(one)}\n`, serializeLine(exchange('c')), `${JSON.stringify(two)}\n`), 'many.jsonl');
    expect(contents.problems.map(({ line, field }) => [line, field])).toEqual([
      [2, '.ordinl'],
      [4, '.source'],
    ]);
    expect(contents.exchanges.map(({ line }) => line)).toEqual([3]);
  });
});

describe('loadTape and readTape', () => {
  test('throw TapeNotFoundError, telling how to record, for a missing file', () => {
    const file = join(dir, 'missing.jsonl');
    for (const read of [() => loadTape(file), () => readTape(file)]) {
      let caught: unknown;
      try {
        read();
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(TapeNotFoundError);
      expect((caught as TapeNotFoundError).code).toBe('tape_not_found');
      expect((caught as TapeNotFoundError).file).toBe(file);
      expect((caught as Error).message).toContain(`modeltape run --tape ${file} --mode record`);
    }
  });

  test('wraps any other read failure with its cause', () => {
    let caught: unknown;
    try {
      // A file where a folder should be (ENOTDIR).
      readTape(`${write('plain.jsonl', tape(''))}/inside.jsonl`);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ModeltapeError);
    expect((caught as ModeltapeError).code).toBe('tape_unreadable');
    expect((caught as ModeltapeError).cause).toBeDefined();
  });

  test('refuses a folder as not a regular file', () => {
    expect(() => readTape(dir)).toThrow(expect.objectContaining({ code: 'tape_not_a_file', kind: 'a folder' }));
  });

  test('loadTape throws every problem with file:line while readTape returns them', () => {
    const file = write('bad.jsonl', tape(`${JSON.stringify({ ...exchange('a'), ordinl: 0 })}\n`));
    expect(readTape(file).problems).toHaveLength(1);
    let caught: unknown;
    try {
      loadTape(file);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TapeFormatError);
    expect((caught as TapeFormatError).problems).toHaveLength(1);
    expect((caught as Error).message).toContain(`${file}:2: unknown field ".ordinl" in exchange; did you mean ".ordinal"?`);
    expect((caught as Error).message).toContain(`modeltape verify FILE`);
  });

  test('loadTape refuses a tape without a valid header', () => {
    const file = write('nohead.jsonl', serializeLine(exchange('a')));
    expect(() => loadTape(file)).toThrow(TapeFormatError);
  });
});

describe('recordedAt (tape schema 3)', () => {
  test('a dated line is still found from its two ends, lazily, and a bad date is named when it is parsed', () => {
    const file = write(
      'dated.jsonl',
      tape(serializeLine({ ...exchange('hi'), recordedAt: '2026-12-03' }), serializeLine({ ...exchange('yo', 1), recordedAt: '2026-13-01' })),
    );
    const { exchanges, problems } = readTape(file, { lazy: true });
    expect(problems).toEqual([]);
    expect(exchanges.map((loaded) => loaded.constructor.name)).toEqual(['LazyLoadedExchange', 'LazyLoadedExchange']);
    expect(exchanges[0]!.exchange.recordedAt).toBe('2026-12-03');
    expect(() => exchanges[1]!.exchange).toThrow(/dated\.jsonl:3: "\.recordedAt"/);
    expect(readTape(file).problems).toEqual([expect.objectContaining({ line: 3, field: '.recordedAt' })]);
  });
});

describe('a large tape read lazily keeps none of its lines (spillAboveBytes)', () => {
  const lines = Array.from({ length: 40 }, (_, index) => serializeLine(exchange(`question ${index} ${'x'.repeat(index * 7)}`, index)));

  test('each line is read again from the file when used, equal to what a tape kept in memory gives, across windows and a closed descriptor', () => {
    const file = write('spilled.jsonl', tape(...lines));
    const kept = readTape(file, { lazy: true });
    const spilled = readTape(file, { lazy: true, spillAboveBytes: 0 });
    expect(spilled.problems).toEqual([]);
    // Nothing left to give back: each line was spilled as it was read.
    expect(spilled.exchanges.map((loaded) => (loaded as LazyLoadedExchange).spill())).toEqual(Array(40).fill(false));
    expect(kept.exchanges.map((loaded) => (loaded as LazyLoadedExchange).spill())).toEqual(Array(40).fill(false));
    // Out of order: each read outside the window reads another.
    for (const at of [39, 0, 20, 21, 5]) {
      const loaded = spilled.exchanges[at] as LazyLoadedExchange;
      expect(loaded.requestRoute()).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
      expect(loaded.uncheckedRequest()).toEqual(exchange(`question ${at} ${'x'.repeat(at * 7)}`, at).request);
      expect(loaded.exchange).toEqual(kept.exchanges[at]!.exchange);
    }
    closeTapeLines(spilled.exchanges);
    closeTapeLines(spilled.exchanges);
    // After close, a line is read by opening the file again: it holds none of its bytes.
    expect(spilled.exchanges[30]!.exchange).toEqual(kept.exchanges[30]!.exchange);
    rmSync(file);
    expect(() => spilled.exchanges[10]!.exchange).toThrow(TapeNotFoundError);
    expect(kept.exchanges[31]!.exchange.ordinal).toBe(31);
  });

  test('a re-record renaming another file over the tape changes nothing it reads; a line changed in place is an error naming it, never another answer', () => {
    const file = write('replaced.jsonl', tape(...lines));
    const spilled = readTape(file, { lazy: true, spillAboveBytes: 0 });
    // Renamed over (as modeltape's writers do), every request changed (so is every key): the open
    // descriptor still reads the tape it indexed.
    const other = write('other.jsonl', tape(...lines.map((line) => line.replace(/question/g, 'answered').replace('c'.repeat(64), 'e'.repeat(64)))));
    renameSync(other, file);
    expect(JSON.stringify(spilled.exchanges[3]!.exchange)).toContain('question 3');
    closeTapeLines(spilled.exchanges);
    // Closed, then the file on disk differs where line 12 was: refused, naming the line.
    expect(() => spilled.exchanges[10]!.exchange).toThrow(/replaced\.jsonl:12.*changed on disk while the tape was open/);
  });

  test('a small tape keeps its lines in memory, and keeps no descriptor', () => {
    const file = write('small.jsonl', tape(...lines.slice(0, 3)));
    const { exchanges } = readTape(file, { lazy: true });
    rmSync(file);
    expect(exchanges[2]!.exchange.ordinal).toBe(2);
  });
});
