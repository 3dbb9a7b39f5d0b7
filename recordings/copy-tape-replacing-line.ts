import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { openTapeFile } from './open-tape-file.js';
import { TapeNotFoundError } from './tape-reader.js';

// Copied a megabyte at a time: a copy costs one buffer, whatever the tape weighs.
const CHUNK_BYTES = 1 << 20;

/**
 * Writes a copy of the tape `file` to `copy` (a new file, mode 0600) in which line `line`
 * (1-based, without its line break) is `text`: every other byte is copied as it is, a range at a
 * time, so the tape is never held in memory, and the copy is byte-identical to the original
 * except that line. What `modeltape mutate` gives each mutant. A copy that cannot be finished (a
 * full disk) is removed, and the error thrown. (`chunkBytes`: tests lower it to cross chunk edges.)
 */
export function copyTapeReplacingLine(file: string, copy: string, line: number, text: string, chunkBytes = CHUNK_BYTES): void {
  if (!Number.isInteger(line) || line < 1) throw new RangeError(`line ${line} is not a line number (1 or more)`);
  const source = openTapeFile(file, 'r', (error) => new TapeNotFoundError(file, error));
  let target: number | undefined;
  try {
    target = openSync(copy, 'wx', 0o600);
    const chunk = Buffer.allocUnsafe(chunkBytes);
    const replacement = Buffer.from(text, 'utf8');
    // Line breaks seen so far; `lineNumber` is the line the next byte belongs to.
    let lineNumber = 1;
    let replaced = false;
    for (let position = 0; ; ) {
      const read = readSync(source, chunk, 0, chunk.length, position);
      if (read === 0) break;
      position += read;
      let start = 0;
      while (start < read) {
        if (lineNumber > line) {
          writeAll(target, chunk, start, read);
          break;
        }
        if (lineNumber < line) {
          // Up to the line break before the line to replace, or the whole chunk when it is further.
          const passed = passBreaks(chunk, start, read, line - lineNumber);
          writeAll(target, chunk, start, passed.end);
          lineNumber += passed.breaks;
          start = passed.end;
          continue;
        }
        // Inside the line to replace: skip its bytes up to its line break, which is kept.
        if (!replaced) {
          writeAll(target, replacement, 0, replacement.length);
          replaced = true;
        }
        const newline = chunk.indexOf(0x0a, start);
        if (newline < 0 || newline >= read) {
          start = read;
          continue;
        }
        lineNumber++;
        start = newline;
      }
    }
    if (!replaced) throw new RangeError(`${file} has no line ${line}`);
    closeSync(target);
    target = undefined;
  } catch (error) {
    if (target !== undefined) closeSync(target);
    rmSync(copy, { force: true });
    throw error;
  } finally {
    closeSync(source);
  }
}

// Past at most `wanted` line breaks from `start`: where that leaves (one past the last break
// passed, or `end` when the chunk holds fewer) and how many were passed.
function passBreaks(chunk: Buffer, start: number, end: number, wanted: number): { end: number; breaks: number } {
  let at = start;
  for (let breaks = 0; breaks < wanted; breaks++) {
    const newline = chunk.indexOf(0x0a, at);
    if (newline < 0 || newline >= end) return { end, breaks };
    at = newline + 1;
  }
  return { end: at, breaks: wanted };
}

function writeAll(descriptor: number, bytes: Buffer, start: number, end: number): void {
  for (let offset = start; offset < end; ) offset += writeSync(descriptor, bytes, offset, end - offset);
}
