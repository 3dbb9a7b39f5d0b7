import {
  accessSync,
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  linkSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { canonicalJson } from './canonical-json.js';
import { SecretInTapeError, TapeFormatError } from './errors.js';
import { findSecrets, ModeltapeError } from '../core/internal.js';
import { exchangeKey, type CompiledKeyRules } from './exchange-key.js';
import type { Exchange, TapeHeader } from './tape-format.js';
import { createHeader, describeExchange, serializeLine } from './tape-line.js';
import { parseTape, readTape } from './tape-reader.js';
import { checkExchangeLine } from './tape-schema.js';
import { withTapeLock } from './tape-lock.js';
import { openTapeFile } from './open-tape-file.js';
import { recordingId, replaceRecordings } from './replace-recordings.js';

export interface TapeWriterOptions {
  /**
   * The key rules of the exchanges that will be appended. An existing tape keyed with other rules
   * is taken over only if none of its keys changes under these (its header then names these);
   * otherwise opening it is refused.
   */
  keyRules: CompiledKeyRules;
  /** Notes (fields starting with `_`) for the header of a tape this writer creates. */
  headerNotes?: Record<`_${string}`, unknown>;
  /** The config file `keyRules` came from, for the advice of a refusal (`modeltape rekey FILE --config CONFIG`). */
  configFile?: string;
  /**
   * Called when a batch of lines could not be written (a full disk, an I/O error, a read-only
   * tape). The file was left as it was before the batch; later appends are tried again. Without
   * it, a failed write made by the scheduled flush is lost silently, and an explicit
   * {@link TapeWriter.flush} throws.
   */
  onWriteError?: (failure: TapeWriteFailure) => void;
  /**
   * Create a tape that does not exist when the first exchange is written, not at open, so a
   * writer that writes nothing (every exchange refused) leaves no header-only tape behind.
   * @default false
   */
  createOnFirstWrite?: boolean;
  /**
   * Called at {@link TapeWriter.close} when the re-recordings appended with `replacing` could not
   * be put in place of the recordings they replace (a full disk): the tape keeps both lines, the
   * older first. Without it, close throws the error (`tape_write_failed`).
   */
  onReplaceError?: (error: ModeltapeError) => void;
  /** Internal: the file operations a write goes through (a test injects faults here). */
  [TAPE_FILE_SYSTEM]?: TapeFileSystem;
}

/** What a failed append lost: the exchanges it was writing, and why. */
export interface TapeWriteFailure {
  /** The exchanges of the batch, none of which is on the tape. */
  exchanges: Exchange[];
  /** `tape_write_failed`, with the system error as its cause. */
  error: ModeltapeError;
}

/** The file operations of an append, so a test can make them fail as a full disk does. */
export interface TapeFileSystem {
  write(descriptor: number, bytes: Buffer, offset: number, length: number): number;
  size(descriptor: number): number;
  truncate(descriptor: number, length: number): void;
}

/**
 * The key of the internal file-system seam of {@link TapeWriterOptions} (and of the proxy's
 * options): not exported from any entry point.
 */
export const TAPE_FILE_SYSTEM: unique symbol = Symbol.for('modeltape.internal.tapeFileSystem') as never;

const NODE_FILE_SYSTEM: TapeFileSystem = {
  write: (descriptor, bytes, offset, length) => writeSync(descriptor, bytes, offset, length),
  size: (descriptor) => fstatSync(descriptor).size,
  truncate: (descriptor, length) => ftruncateSync(descriptor, length),
};

/**
 * Appends exchanges to a tape, whole lines at a time.
 *
 * - Creating a tape is atomic: the header is written to a private file and hard-linked into
 *   place, so of several processes starting at once exactly one header wins and nobody appends
 *   before it exists.
 * - Every write goes through one file descriptor opened with O_APPEND, and each write holds only
 *   whole lines, so parallel writers (test workers recording into one tape) never interleave
 *   inside a line.
 * - Lines are queued and written in a batch at the end of the current turn of the event loop,
 *   or at once by {@link flush}.
 * - A tape whose last line was torn by a killed writer is continued on a fresh line; the torn
 *   line stays in the file (readers skip it with a warning).
 */
export class TapeWriter {
  readonly file: string;
  #header: TapeHeader;
  #options: TapeWriterOptions;
  // Undefined before a deferred tape is made (createOnFirstWrite) and after close.
  #descriptor: number | undefined;
  #closed = false;
  #pending: Array<{ line: string; exchange: Exchange; replacing: boolean }> = [];
  #scheduled = false;
  #needsNewline: boolean;
  #written = 0;
  #failed = 0;
  // Lines written to replace a recording already on the tape, by identity, put in place at close.
  #replacements = new Map<string, string>();
  #fileSystem: TapeFileSystem;
  #onWriteError: ((failure: TapeWriteFailure) => void) | undefined;

  private constructor(file: string, header: TapeHeader, descriptor: number | undefined, needsNewline: boolean, options: TapeWriterOptions) {
    this.file = file;
    this.#header = header;
    this.#options = options;
    this.#descriptor = descriptor;
    this.#needsNewline = needsNewline;
    this.#fileSystem = options[TAPE_FILE_SYSTEM] ?? NODE_FILE_SYSTEM;
    this.#onWriteError = options.onWriteError;
  }

  /** The tape's header: the one it has, or the one a tape not made yet will get. */
  get header(): TapeHeader {
    return this.#header;
  }

  /**
   * Opens a tape for appending, creating it with a header if it does not exist (with
   * `createOnFirstWrite`, when the first exchange is written). A tape keyed with other rules is
   * taken over when none of its keys changes under `keyRules`: its header is rewritten once to
   * name them (atomically, under a lock, every other byte kept), so every line stays keyed by the
   * rules its header names. When some keys change, throws `key_rules_mismatch` naming them, and
   * writes nothing.
   */
  static open(file: string, options: TapeWriterOptions): TapeWriter {
    if (options.createOnFirstWrite === true && statSync(file, { throwIfNoEntry: false }) === undefined) {
      // Nothing is made yet, but a place that could never take the tape (a read-only file system,
      // a folder without write permission) is refused now, before any request.
      accessSync(nearestFolder(dirname(file)), constants.W_OK);
      return new TapeWriter(file, createHeader(options.keyRules.rules, options.headerNotes), undefined, false, options);
    }
    const { header, descriptor, torn } = attach(file, options);
    return new TapeWriter(file, header, descriptor, torn, options);
  }

  /** How many exchanges this writer has written to disk. */
  get written(): number {
    return this.#written;
  }

  /** How many exchanges could not be written (see {@link TapeWriterOptions.onWriteError}). */
  get failed(): number {
    return this.#failed;
  }

  /** How many recordings the re-recordings written so far replace (see {@link append}'s `replacing`). */
  get replacing(): number {
    return this.#replacements.size;
  }

  /**
   * Queues an exchange. Throws {@link SecretInTapeError}, writing nothing, when the exchange
   * holds a string shaped like a credential. With `replacing`, it re-records a request whose
   * recording of the same key and ordinal the tape holds: it is appended like any other (so
   * it is on disk as soon as it is written), and {@link close} puts it in place of that one.
   */
  append(exchange: Exchange, how: { replacing?: boolean } = {}): void {
    if (this.#closed) throw new ModeltapeError('tape_closed', `Tape ${this.file} is closed; no more exchanges can be written.`);
    const line = serializeLine(exchange);
    // Structural, with the line as a pre-filter: a key split across array items ("githu",
    // "b_pat_…") or stream deltas, or in a base64 payload, shows no anchor in the line.
    const locations = findSecrets(exchange, '', line);
    if (locations.length > 0) throw new SecretInTapeError(`${describeExchange(exchange)} to ${this.file}`, locations);
    // An append-only tape cannot take back a bad line: check it before it is written.
    const problems = checkExchangeLine(exchange, this.file, 0);
    if (problems.length > 0) {
      throw new ModeltapeError(
        'invalid_exchange',
        `Refused to write ${describeExchange(exchange)} to ${this.file}: it does not follow the tape schema.\n${problems.map((problem) => `  ${problem.message}`).join('\n')}`,
      );
    }
    this.#pending.push({ line, exchange, replacing: how.replacing === true });
    if (!this.#scheduled) {
      this.#scheduled = true;
      // The scheduled flush runs outside any caller: a write error there is reported, never thrown.
      setImmediate(() => this.#flushReporting());
    }
  }

  /**
   * Writes every queued line now. When the write fails, the tape is left as it was before it
   * (a partial write is cut back off) and the batch is dropped: it is reported to `onWriteError`
   * when one was given, or thrown as `tape_write_failed`.
   */
  flush(): void {
    const failure = this.#write();
    if (failure === undefined) return;
    if (this.#onWriteError === undefined) throw failure.error;
    this.#onWriteError(failure);
  }

  #flushReporting(): void {
    const failure = this.#write();
    if (failure !== undefined) this.#onWriteError?.(failure);
  }

  #write(): TapeWriteFailure | undefined {
    this.#scheduled = false;
    if (this.#pending.length === 0 || this.#closed) return undefined;
    const batch = this.#pending;
    this.#pending = [];
    const exchanges = batch.map((pending) => pending.exchange);
    let descriptor = this.#descriptor;
    if (descriptor === undefined) {
      // A deferred tape is made now, by its first write.
      try {
        const attached = attach(this.file, this.#options);
        this.#header = attached.header;
        this.#needsNewline = attached.torn;
        this.#descriptor = descriptor = attached.descriptor;
      } catch (cause) {
        this.#failed += exchanges.length;
        const error = ModeltapeError.isInstance(cause)
          ? cause
          : new ModeltapeError('tape_write_failed', `Could not create the tape ${this.file}: ${(cause as Error).message}`, { cause });
        return { exchanges, error };
      }
    }
    let text = '';
    for (const pending of batch) text += pending.line;
    const newline = this.#needsNewline;
    if (newline) text = `\n${text}`;
    const bytes = Buffer.from(text, 'utf8');
    let before: number | undefined;
    let offset = 0;
    try {
      before = this.#fileSystem.size(descriptor);
      // A regular file takes the whole buffer in one write; the loop guards a short write (a disk
      // that fills up mid-batch writes what fits, then fails).
      while (offset < bytes.length) offset += this.#fileSystem.write(descriptor, bytes, offset, bytes.length - offset);
    } catch (cause) {
      this.#failed += exchanges.length;
      return { exchanges, error: this.#writeFailed(cause as NodeJS.ErrnoException, descriptor, before, offset, exchanges.length) };
    }
    this.#needsNewline = false;
    this.#written += exchanges.length;
    for (const pending of batch) if (pending.replacing) this.#replacements.set(recordingId(pending.exchange), pending.line);
    return undefined;
  }

  // Cuts a partial write back off, so the tape holds no torn line; only when the bytes after
  // `before` are all this write's (another writer appending meanwhile keeps its lines).
  #writeFailed(cause: NodeJS.ErrnoException, descriptor: number, before: number | undefined, offset: number, count: number): ModeltapeError {
    let restored = offset === 0;
    if (!restored && before !== undefined) {
      try {
        if (this.#fileSystem.size(descriptor) === before + offset) {
          this.#fileSystem.truncate(descriptor, before);
          restored = true;
        }
      } catch {
        // Reported below: the tape may end in a torn line, which readers skip with a warning.
      }
    }
    const reason =
      cause.code === 'ENOSPC'
        ? 'the disk is full'
        : cause.code === 'EROFS'
          ? 'the file system is read-only'
          : cause.code === 'EIO'
            ? 'an I/O error'
            : cause.code === 'EDQUOT'
              ? 'the disk quota is used up'
              : 'a write error';
    // A partial line left behind is torn: the next write starts on a fresh line.
    if (!restored) this.#needsNewline = true;
    const state = restored
      ? 'the tape was left as it was before'
      : `${offset} bytes of a partial line may remain at its end (readers skip a torn line with a warning)`;
    return new ModeltapeError(
      'tape_write_failed',
      `Could not write ${count} exchange${count === 1 ? '' : 's'} to ${this.file}: ${reason} (${cause.code !== undefined && cause.message.startsWith(cause.code) ? cause.message : `${cause.code ?? 'error'}: ${cause.message}`}); ${state}. Free space or make the tape writable, then record again.`,
      { cause },
    );
  }

  /**
   * Flushes, closes, and puts the re-recordings in place of the recordings they replace (see
   * {@link append}). Safe to call twice.
   */
  close(): void {
    if (this.#closed) return;
    try {
      this.flush();
    } finally {
      this.#closed = true;
      if (this.#descriptor !== undefined) closeSync(this.#descriptor);
      this.#descriptor = undefined;
    }
    if (this.#replacements.size === 0) return;
    const replacements = this.#replacements;
    this.#replacements = new Map();
    try {
      replaceRecordings(this.file, replacements);
    } catch (cause) {
      const count = replacements.size;
      const error = new ModeltapeError(
        'tape_write_failed',
        `Could not put ${count} re-recorded exchange${count === 1 ? '' : 's'} in place of the recording${count === 1 ? '' : 's'} they replace in ${this.file}: ${(cause as Error).message}. ` +
          `The tape holds both, the older first, so replay answers with the older. Free space, then run modeltape rekey ${this.file} to put them in place (it keeps the later of two recordings of a request).`,
        { cause },
      );
      if (this.#options.onReplaceError === undefined) throw error;
      this.#options.onReplaceError(error);
    }
  }
}

/**
 * Opens a tape for appending (see {@link TapeWriter.open}): made with its header if it does not
 * exist, taken over when its header names other rules no key of it changes under.
 */
function attach(file: string, options: TapeWriterOptions): { header: TapeHeader; descriptor: number; torn: boolean } {
  mkdirSync(dirname(file), { recursive: true });
  const header = createHeader(options.keyRules.rules, options.headerNotes);
  createAtomically(file, serializeLine(header));
  for (let attempt = 1; ; attempt++) {
    const descriptor = openTapeFile(file, 'a+', (error) => error as Error);
    let existing: TapeHeader;
    try {
      existing = readHeader(file, descriptor);
    } catch (error) {
      closeSync(descriptor);
      throw error;
    }
    if (sameRules(existing, options.keyRules)) {
      // A writer that took the tape over renamed a new file into place: append to that one,
      // never to the file this descriptor opened before the rename.
      if (isStillAt(descriptor, file)) return { header: existing, descriptor, torn: lastLineIsTorn(descriptor) };
    }
    closeSync(descriptor);
    if (attempt === MAX_OPEN_ATTEMPTS) {
      throw new ModeltapeError(
        'tape_contended',
        `Tape ${file} kept changing while it was being opened: another process is recording into it under other key rules (line 1 now: ${canonicalJson(existing.keyRules)}). Record into one tape under one set of rules at a time.`,
      );
    }
    if (!sameRules(existing, options.keyRules)) takeOver(file, options);
  }
}

// The folder a tape would be made in, or the nearest one above it that exists.
function nearestFolder(folder: string): string {
  for (let current = folder; ; ) {
    if (statSync(current, { throwIfNoEntry: false }) !== undefined) return current;
    const parent = dirname(current);
    if (parent === current) return current;
    current = parent;
  }
}

function createAtomically(file: string, headerLine: string): void {
  const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(temporary, headerLine, { flag: 'wx' });
  try {
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temporary);
  }
}

function sameRules(header: TapeHeader, keyRules: CompiledKeyRules): boolean {
  return canonicalJson(header.keyRules) === canonicalJson(keyRules.rules);
}

function isStillAt(descriptor: number, file: string): boolean {
  const opened = fstatSync(descriptor);
  const current = statSync(file, { throwIfNoEntry: false });
  return current !== undefined && current.ino === opened.ino && current.dev === opened.dev;
}

const MAX_OPEN_ATTEMPTS = 20;

/**
 * Rewrites the header of a tape keyed with other rules to name `options.keyRules`, if no key of
 * the tape changes under them; throws naming the ones that do. Other writers opening the tape at
 * the same time wait on the lock, then find the new header.
 */
function takeOver(file: string, options: TapeWriterOptions): void {
  withTapeLock(file, () => {
    const contents = readTape(file);
    if (contents.header === undefined || contents.problems.length > 0) throw new TapeFormatError(contents.problems);
    // Another writer took it over while this one waited.
    if (sameRules(contents.header, options.keyRules)) return;
    const changed = contents.exchanges.filter(({ exchange }) => exchangeKey(exchange.upstream, exchange.request, options.keyRules) !== exchange.key);
    if (changed.length > 0) {
      const shown = changed
        .slice(0, 10)
        .map(({ exchange, line }) => `  ${file}:${line} ${exchange.request.method} ${exchange.request.path} (${exchange.upstream})`);
      if (changed.length > shown.length) shown.push(`  … and ${changed.length - shown.length} more`);
      const command = `modeltape rekey ${file}${options.configFile === undefined ? '' : ` --config ${options.configFile}`}`;
      throw new ModeltapeError(
        'key_rules_mismatch',
        `Tape ${file} was keyed with other rules than this run uses, and under this run's rules ${changed.length} of ${contents.exchanges.length} key${contents.exchanges.length === 1 ? '' : 's'} change:\n` +
          `${shown.join('\n')}\n` +
          `  tape (line 1): ${canonicalJson(contents.header.keyRules)}\n` +
          `  this run:      ${canonicalJson(options.keyRules.rules)}\n` +
          `Appending would mix two kinds of key. Run ${command} first (--dry-run names the rule behind each change), record with the tape's rules (line 1), or record into a new tape.`,
      );
    }
    const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      replaceFirstLine(file, temporary, serializeLine({ ...contents.header, keyRules: options.keyRules.rules }));
      renameSync(temporary, file);
    } catch (error) {
      rmSync(temporary, { force: true });
      throw error;
    }
  });
}

// Every byte after the header stays as it is, a torn last line included; copied a chunk at a
// time, so a tape of any size can be taken over.
function replaceFirstLine(file: string, temporary: string, firstLine: string): void {
  const source = openTapeFile(file, 'r', (error) => error as Error);
  const target = openSync(temporary, 'wx');
  try {
    writeSync(target, firstLine);
    const chunk = Buffer.allocUnsafe(1 << 20);
    let position = 0;
    let inFirstLine = true;
    for (;;) {
      const read = readSync(source, chunk, 0, chunk.length, position);
      if (read === 0) break;
      position += read;
      let start = 0;
      if (inFirstLine) {
        const newline = chunk.indexOf(0x0a);
        if (newline < 0 || newline >= read) continue;
        inFirstLine = false;
        start = newline + 1;
      }
      if (start < read) writeSync(target, chunk, start, read - start);
    }
  } finally {
    closeSync(source);
    closeSync(target);
  }
}

function readHeader(file: string, descriptor: number): TapeHeader {
  // The header is the first line; read just enough of the file to hold it.
  let size = 4096;
  for (;;) {
    const buffer = Buffer.alloc(size);
    const read = readSync(descriptor, buffer, 0, size, 0);
    const text = buffer.subarray(0, read).toString('utf8');
    const newline = text.indexOf('\n');
    if (newline >= 0 || read < size) {
      const firstLine = newline >= 0 ? text.slice(0, newline + 1) : text;
      const contents = parseTape(firstLine, file);
      if (contents.header === undefined) {
        const reasons = contents.problems.map((problem) => `  ${problem.file}:${problem.line}: ${problem.message}`).join('\n');
        throw new ModeltapeError('tape_header_invalid', `Cannot append to ${file}: its header is not valid.\n${reasons}`);
      }
      return contents.header;
    }
    size *= 4;
  }
}

/**
 * Whether the tape ends inside a line a killed writer left behind. Another live writer's line can
 * look the same for an instant (a reader may see a large write half done), so a tail without its
 * newline is watched until it either gets one or stops changing: only a line that stays torn is.
 */
function lastLineIsTorn(descriptor: number): boolean {
  if (endsWithNewline(descriptor)) return false;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  let size = fstatSync(descriptor).size;
  let still = 0;
  for (let waited = 0; waited < 2000 && still < 4; waited += 5) {
    Atomics.wait(pause, 0, 0, 5);
    if (endsWithNewline(descriptor)) return false;
    const now = fstatSync(descriptor).size;
    still = now === size ? still + 1 : 0;
    size = now;
  }
  return true;
}

function endsWithNewline(descriptor: number): boolean {
  const { size } = fstatSync(descriptor);
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  readSync(descriptor, last, 0, 1, size - 1);
  return last[0] === 0x0a;
}
