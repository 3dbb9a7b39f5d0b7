import { closeSync, fstatSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { openTapeFile } from './open-tape-file.js';
import { CHUNK_BYTES, fileLines } from './tape-reader.js';

/**
 * Writes a copy of the tape `file` to `target` in which each line named in `replacements`
 * (1-based line number → its new text, without a line break) is replaced; every other byte (the
 * header, lines not named, torn or invalid lines, line endings) is copied as it is, a line at a
 * time, so the tape is never held in memory. The copy is written aside in `target`'s folder and
 * renamed into place: a reader of `target` sees the old file or the whole new one, never a part,
 * and a copy that cannot be finished is removed and the error thrown. What `modeltape recheck
 * --write` gives each tape. Throws a RangeError, writing nothing, when a named line is not in the tape.
 */
export function writeTapeReplacingLines(file: string, target: string, replacements: ReadonlyMap<number, string>): void {
  for (const line of replacements.keys()) if (!Number.isInteger(line) || line < 2) throw new RangeError(`line ${line} is not an exchange's line (2 or more)`);
  const source = openTapeFile(file, 'r', (error) => error as Error);
  const temporary = join(dirname(target), `.${basename(target)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  let output: number | undefined;
  try {
    const { size, mode } = fstatSync(source);
    output = openSync(temporary, 'wx', mode & 0o777);
    let lineNumber = 0;
    let lineStart = 0;
    let placed = 0;
    for (const { bytes, bytesDone } of fileLines(source, CHUNK_BYTES, file, size)) {
      lineNumber++;
      const start = lineStart;
      lineStart = bytesDone;
      const replacement = replacements.get(lineNumber);
      if (replacement !== undefined) {
        placed++;
        writeAll(output, Buffer.from(`${replacement}\n`, 'utf8'));
      } else if ('tooLong' in bytes) copyRange(source, output, start, bytesDone);
      else {
        writeAll(output, bytes.buffer.subarray(bytes.start, bytes.end));
        if (!bytes.unterminated) writeAll(output, NEWLINE);
      }
    }
    if (placed !== replacements.size) throw new RangeError(`${file} has ${lineNumber} lines; not every line to replace is in it`);
    closeSync(output);
    output = undefined;
    renameSync(temporary, target);
  } catch (error) {
    if (output !== undefined) closeSync(output);
    rmSync(temporary, { force: true });
    throw error;
  } finally {
    closeSync(source);
  }
}

const NEWLINE = Buffer.from('\n');

function copyRange(source: number, output: number, start: number, end: number): void {
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  for (let position = start; position < end; ) {
    const read = readSync(source, chunk, 0, Math.min(chunk.length, end - position), position);
    if (read === 0) break;
    writeAll(output, chunk.subarray(0, read));
    position += read;
  }
}

function writeAll(descriptor: number, bytes: Buffer): void {
  for (let offset = 0; offset < bytes.length; ) offset += writeSync(descriptor, bytes, offset, bytes.length - offset);
}
