import { fstatSync, ftruncateSync, mkdtempSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { captureRequest } from './capture-request.js';
import { ModeltapeError } from '../core/internal.js';
import { compileKeyRules, exchangeKey } from './exchange-key.js';
import type { Exchange } from './tape-format.js';
import { loadTape } from './tape-reader.js';
import { TAPE_FILE_SYSTEM, TapeWriter, type TapeFileSystem, type TapeWriteFailure } from './tape-writer.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'modeltape-writer-faults-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function exchange(content: string): Exchange {
  const rules = compileKeyRules();
  const request = captureRequest(
    {
      method: 'POST',
      path: '/v1/chat/completions',
      query: '',
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content }] })),
    },
    rules,
  );
  return {
    key: exchangeKey('openai', request, rules),
    ordinal: 0,
    upstream: 'openai',
    source: 'live',
    request,
    response: { status: 200, headers: { 'content-type': 'application/json' }, body: { json: { answer: content } } },
  };
}

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected`), { code });
}

/** A disk with `room` bytes left: a write takes what fits, then fails with ENOSPC (as Linux does). */
function fillingDisk(room: { bytes: number }, code = 'ENOSPC'): TapeFileSystem {
  return {
    write(descriptor, bytes, offset, length) {
      if (room.bytes <= 0) throw errno(code);
      const taken = Math.min(length, room.bytes);
      room.bytes -= taken;
      return writeSync(descriptor, bytes, offset, taken);
    },
    size: (descriptor) => fstatSync(descriptor).size,
    truncate: (descriptor, length) => ftruncateSync(descriptor, length),
  };
}

describe('a tape writer whose write fails', () => {
  for (const code of ['ENOSPC', 'EIO', 'EROFS']) {
    test(`leaves the tape byte-identical to before a failed append (${code}), reports it, and writes later appends`, async () => {
      const file = join(dir, 'tape.jsonl');
      const room = { bytes: Number.POSITIVE_INFINITY };
      const failures: TapeWriteFailure[] = [];
      const writer = TapeWriter.open(file, {
        keyRules: compileKeyRules(),
        onWriteError: (failure) => failures.push(failure),
        [TAPE_FILE_SYSTEM]: fillingDisk(room, code),
      });
      writer.append(exchange('first'));
      writer.flush();
      const before = readFileSync(file);

      // A partial write: 40 bytes of the next line fit, then the disk refuses.
      room.bytes = 40;
      writer.append(exchange('lost one'));
      writer.append(exchange('lost two'));
      await new Promise((resolve) => setImmediate(resolve));
      expect(failures).toHaveLength(1);
      expect(failures[0]!.exchanges.map((lost) => (lost.response.body as { json: { answer: string } }).json.answer)).toEqual(['lost one', 'lost two']);
      expect(failures[0]!.error).toBeInstanceOf(ModeltapeError);
      expect(failures[0]!.error.code).toBe('tape_write_failed');
      expect(failures[0]!.error.message).toContain(code);
      expect(failures[0]!.error.message).toContain('the tape was left as it was before');
      expect(readFileSync(file).equals(before)).toBe(true);
      expect(writer.failed).toBe(2);

      // Space came back: the next append is written, on its own whole line.
      room.bytes = Number.POSITIVE_INFINITY;
      writer.append(exchange('after'));
      writer.close();
      const tape = loadTape(file);
      expect(tape.exchanges.map((entry) => (entry.exchange.response.body as { json: { answer: string } }).json.answer)).toEqual(['first', 'after']);
      expect(tape.warnings).toEqual([]);
      expect(writer.written).toBe(2);
    });
  }

  test('without a handler, an explicit flush throws tape_write_failed and close still closes the file', () => {
    const file = join(dir, 'tape.jsonl');
    const writer = TapeWriter.open(file, { keyRules: compileKeyRules(), [TAPE_FILE_SYSTEM]: fillingDisk({ bytes: 0 }) });
    const before = readFileSync(file);
    writer.append(exchange('lost'));
    expect(() => writer.flush()).toThrow(/Could not write 1 exchange to .*the disk is full \(ENOSPC/);
    writer.append(exchange('lost again'));
    expect(() => writer.close()).toThrow(/ENOSPC/);
    expect(() => writer.append(exchange('closed'))).toThrow(/is closed/);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  test('a scheduled flush that fails without a handler is not an uncaught exception', async () => {
    const file = join(dir, 'tape.jsonl');
    const writer = TapeWriter.open(file, { keyRules: compileKeyRules(), [TAPE_FILE_SYSTEM]: fillingDisk({ bytes: 0 }) });
    writer.append(exchange('lost'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(writer.failed).toBe(1);
    writer.close();
  });
});

describe('a tape writer that cannot cut a partial write back off', () => {
  test('continues on a fresh line, so the torn bytes stay one skipped line and every later exchange loads', () => {
    const file = join(dir, 'tape.jsonl');
    const room = { bytes: Number.POSITIVE_INFINITY };
    const failures: TapeWriteFailure[] = [];
    const disk = fillingDisk(room);
    const writer = TapeWriter.open(file, {
      keyRules: compileKeyRules(),
      onWriteError: (failure) => failures.push(failure),
      [TAPE_FILE_SYSTEM]: {
        ...disk,
        truncate: () => {
          throw errno('EIO');
        },
      },
    });
    room.bytes = 30;
    writer.append(exchange('torn'));
    writer.flush();
    expect(failures[0]?.error.message).toContain('30 bytes of a partial line may remain');
    room.bytes = Number.POSITIVE_INFINITY;
    writer.append(exchange('after'));
    writer.close();
    const tape = loadTape(file);
    expect(tape.exchanges.map(({ exchange: kept }) => (kept.response.body as { json: { answer: string } }).json.answer)).toEqual(['after']);
    expect(tape.warnings.map((warning) => warning.message).join('\n')).toMatch(/torn/);
  });
});
