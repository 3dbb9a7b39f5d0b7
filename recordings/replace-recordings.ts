import { closeSync, fstatSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import { CHUNK_BYTES, fileLines, lineIdentity } from './tape-reader.js';
import { withTapeLock } from './tape-lock.js';
import { openTapeFile } from './open-tape-file.js';

/** The identity a re-recording replaces: `<key>#<ordinal>`. */
export function recordingId(exchange: { key: string; ordinal: number }): string {
  return `${exchange.key}#${exchange.ordinal}`;
}

/**
 * Puts re-recorded exchanges in place of the recordings they replace. `replacements` maps a
 * recording's identity ({@link recordingId}) to the line (with its newline) that was appended to
 * the tape to replace it: the first line of the tape with that identity becomes that line, and
 * the appended copy further down goes. Every other byte stays as it was, in order: the header,
 * lines of other writers, torn or invalid lines, line endings. Written aside and renamed into
 * place under the tape's lock, so a crash leaves the tape as it was (both lines, the older
 * first). Returns how many recordings were replaced in place.
 */
export function replaceRecordings(file: string, replacements: ReadonlyMap<string, string>): number {
  if (replacements.size === 0) return 0;
  return withTapeLock(file, () => {
    const source = openTapeFile(file, 'r', (error) => error as Error);
    const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.replace.tmp`;
    let target: number | undefined;
    try {
      const { size, mode } = fstatSync(source);
      target = openSync(temporary, 'wx', mode & 0o777);
      const output = new ChunkedWriter(target);
      const placed = new Set<string>();
      let replaced = 0;
      let lineNumber = 0;
      let lineStart = 0;
      for (const { bytes, bytesDone } of fileLines(source, CHUNK_BYTES, file, size)) {
        lineNumber++;
        const start = lineStart;
        lineStart = bytesDone;
        if ('tooLong' in bytes) {
          // Too long to hold as one string: copied from the file as it stands.
          output.copyRange(source, start, bytesDone);
          continue;
        }
        const identity = lineNumber === 1 || bytes.unterminated ? undefined : lineIdentity(bytes.buffer, bytes.start, bytes.end);
        const id = identity === undefined ? undefined : recordingId(identity);
        const replacement = id === undefined ? undefined : replacements.get(id);
        if (replacement === undefined) {
          output.write(bytes.buffer, bytes.start, bytes.end, !bytes.unterminated);
        } else if (!placed.has(id!)) {
          placed.add(id!);
          // The first line with its identity is the recording it replaces, unless that one was
          // gone from the tape by now and the first is its own appended line.
          if (!sameLine(bytes, replacement)) replaced++;
          output.writeText(replacement);
        } else if (!sameLine(bytes, replacement)) {
          // Another writer's recording of the same request: kept where it is.
          output.write(bytes.buffer, bytes.start, bytes.end, !bytes.unterminated);
        }
      }
      output.end();
      closeSync(target);
      target = undefined;
      renameSync(temporary, file);
      return replaced;
    } catch (error) {
      if (target !== undefined) closeSync(target);
      rmSync(temporary, { force: true });
      throw error;
    } finally {
      closeSync(source);
    }
  });
}

function sameLine(bytes: { buffer: Buffer; start: number; end: number }, line: string): boolean {
  const text = line.endsWith('\n') ? line.slice(0, -1) : line;
  return bytes.end - bytes.start === Buffer.byteLength(text) && bytes.buffer.toString('utf8', bytes.start, bytes.end) === text;
}

const NEWLINE = Buffer.from('\n');

// Buffers what is written into writes of about a chunk each.
class ChunkedWriter {
  readonly #descriptor: number;
  #parts: Buffer[] = [];
  #length = 0;

  constructor(descriptor: number) {
    this.#descriptor = descriptor;
  }

  write(buffer: Buffer, start: number, end: number, newline: boolean): void {
    this.#push(buffer.subarray(start, end));
    if (newline) this.#push(NEWLINE);
  }

  writeText(text: string): void {
    this.#push(Buffer.from(text, 'utf8'));
  }

  copyRange(source: number, start: number, end: number): void {
    this.end();
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    for (let position = start; position < end; ) {
      const read = readSync(source, chunk, 0, Math.min(chunk.length, end - position), position);
      if (read === 0) break;
      writeAll(this.#descriptor, chunk.subarray(0, read));
      position += read;
    }
  }

  end(): void {
    if (this.#length === 0) return;
    writeAll(this.#descriptor, this.#parts.length === 1 ? this.#parts[0]! : Buffer.concat(this.#parts, this.#length));
    this.#parts = [];
    this.#length = 0;
  }

  #push(bytes: Buffer): void {
    this.#parts.push(bytes);
    this.#length += bytes.length;
    if (this.#length >= CHUNK_BYTES) this.end();
  }
}

function writeAll(descriptor: number, bytes: Buffer): void {
  for (let offset = 0; offset < bytes.length; ) offset += writeSync(descriptor, bytes, offset, bytes.length - offset);
}
