import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { ModeltapeError } from '../core/internal.js';

/** A tape path that names something other than a regular file: a FIFO, a device, a folder, a /proc file. */
export class NotATapeFileError extends ModeltapeError {
  readonly file: string;
  /** What the path names: `a FIFO (named pipe)`, `a character device`, `a folder`, `a /proc or /sys file`. */
  readonly kind: string;

  constructor(file: string, kind: string) {
    super(
      'tape_not_a_file',
      `Tape ${file} is not a regular file: it is ${kind}. A tape is a JSONL file on disk, read and written whole lines at a time; name the file itself.`,
    );
    this.file = file;
    this.kind = kind;
  }
}

/**
 * Opens a tape, refusing anything that is not a regular file before a byte is read: every
 * reader and writer of tapes opens them here, so no command can hang on a FIFO (whose open and
 * read wait for a writer), read a device without end, or take a `/proc` file for an empty tape.
 * `r` throws `TapeNotFoundError` (through `notFound`) for a missing file; `a+` creates it.
 */
export function openTapeFile(file: string, flags: 'r' | 'a+', notFound: (error: unknown) => Error): number {
  let descriptor: number;
  try {
    // O_NONBLOCK: opening a FIFO for reading would wait for a writer; a regular file ignores it.
    descriptor = openSync(file, (flags === 'r' ? constants.O_RDONLY : constants.O_RDWR | constants.O_APPEND | constants.O_CREAT) | constants.O_NONBLOCK, 0o666);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw notFound(error);
    if (code === 'EISDIR') throw new NotATapeFileError(file, 'a folder');
    throw new ModeltapeError('tape_unreadable', `Could not open tape ${file}: ${(error as Error).message}`, { cause: error });
  }
  try {
    const stats = fstatSync(descriptor);
    const kind = stats.isFile() ? pseudoFile(descriptor, stats) : kindOf(stats);
    if (kind !== undefined) throw new NotATapeFileError(file, kind);
  } catch (error) {
    closeSync(descriptor);
    throw error;
  }
  return descriptor;
}

// A file that says it is empty but reads bytes is made by the kernel as it is read (/proc, /sys):
// it is no tape, however its first line reads. A tape a writer filled meanwhile now has a size.
function pseudoFile(descriptor: number, stats: Stats): string | undefined {
  if (stats.size > 0) return undefined;
  const probe = Buffer.alloc(1);
  let read: number;
  try {
    read = readSync(descriptor, probe, 0, 1, 0);
  } catch {
    return undefined;
  }
  return read > 0 && fstatSync(descriptor).size === 0 ? 'a /proc or /sys file (it says it holds 0 bytes, yet reads more)' : undefined;
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  if (stats.isDirectory()) return 'a folder';
  return 'something other than a file';
}
