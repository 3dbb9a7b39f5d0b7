import { closeSync, fstatSync, readSync } from 'node:fs';
import { TapeFormatError, type TapeProblem } from './errors.js';
import { ModeltapeError } from '../core/internal.js';
import { EXCHANGE_SOURCES, type Exchange, type ExchangeSource, type LoadedExchange, type TapeHeader } from './tape-format.js';
import { MAX_JSON_DEPTH, abbreviatePath, exchangeTooDeepAt } from './json-depth.js';
import { checkExchangeLine, checkHeaderLine } from './tape-schema.js';
import { requestOutline } from './request-outline.js';
import { openTapeFile } from './open-tape-file.js';

/** Something wrong with a tape that loses nothing that was whole, e.g. a torn line. */
export interface TapeWarning {
  file: string;
  line: number;
  message: string;
}

/** Everything found in a tape file, whether or not it is valid. */
export interface TapeContents {
  file: string;
  /** Undefined only when line 1 is missing or unreadable (then `problems` says why). */
  header: TapeHeader | undefined;
  exchanges: LoadedExchange[];
  problems: TapeProblem[];
  warnings: TapeWarning[];
  /** Number of lines in the file, the header included. */
  lineCount: number;
}

export interface ReadTapeOptions {
  /**
   * Called now and then with how much has been read: bytes of the file (readTape, loadTape,
   * which stream it) or lines of the text (parseTape).
   */
  onProgress?: (done: number, total: number, unit: 'bytes' | 'lines') => void;
  /** Called with the header when line 1 holds a valid one, and the text of that line. */
  onHeader?: (header: TapeHeader, text: string) => void;
  /** Called with each valid exchange as it is read, and the text of its line. */
  onExchange?: (loaded: LoadedExchange, text: string) => void;
  /** `false` leaves `exchanges` empty: each goes to `onExchange` only, so memory stays flat. @default true */
  keepExchanges?: boolean;
  /**
   * Read only what finds an exchange (its key, ordinal, upstream and source, at the two ends of a
   * canonical line) and parse the rest on first use of `exchange`, which then throws
   * {@link TapeFormatError} naming the line if it is invalid. Lines not in canonical form are
   * read in full at once. Replay opens tapes so; `verify` reads every line in full.
   * @default false
   */
  lazy?: boolean;
  /** @internal How many bytes are read at a time (tests lower it to cross chunk edges). */
  chunkBytes?: number;
  /**
   * With `lazy`, a tape larger than this keeps none of its lines' bytes: each line is read again
   * from the file when it is used, through the descriptor it was read with, kept open until
   * `closeTapeLines(contents.exchanges)` (or until the exchanges are collected). Smaller tapes
   * keep their bytes in memory. @internal tests lower it.
   * @default 32 MiB
   */
  spillAboveBytes?: number;
}

/** Tapes larger than this keep no line in memory, with `lazy` (see {@link ReadTapeOptions.spillAboveBytes}). */
export const SPILL_ABOVE_BYTES = 32 * 1024 * 1024;

// How much of a spilled tape is read at a time when its lines are read again.
const LINE_WINDOW_BYTES = 1 << 20;

/** A tape file that does not exist. */
export class TapeNotFoundError extends ModeltapeError {
  readonly file: string;

  /** @param advice how to record it, where the user is (the default names the CLI) */
  constructor(file: string, cause?: unknown, advice = `Record it first: modeltape run --tape ${file} --mode record -- <your command>`) {
    super('tape_not_found', `Tape ${file} does not exist. ${advice}`, { cause });
    this.file = file;
  }
}

/**
 * Reads a tape and throws {@link TapeFormatError} listing every problem (file:line, field, the
 * nearest known field) if it is invalid. A torn line left by a killed writer is not a problem:
 * it is skipped with a warning, and everything else is kept.
 */
export function loadTape(file: string, options: ReadTapeOptions = {}): TapeContents & { header: TapeHeader } {
  const contents = readTape(file, options);
  if (contents.problems.length > 0 || contents.header === undefined) throw new TapeFormatError(contents.problems);
  return contents as TapeContents & { header: TapeHeader };
}

/** Reads a tape and reports what it holds, its problems and its warnings, without throwing on them. */
export function readTape(file: string, options: ReadTapeOptions = {}): TapeContents {
  const descriptor = openTapeFile(file, 'r', (error) => new TapeNotFoundError(file, error));
  let kept = false;
  try {
    const total = fstatSync(descriptor).size;
    // A large tape read lazily keeps its descriptor, to read its lines again once spilled.
    const source = options.lazy === true && total > (options.spillAboveBytes ?? SPILL_ABOVE_BYTES) ? new TapeLineSource(file, descriptor) : undefined;
    kept = source !== undefined;
    const reader = new LineReader(file, options, source);
    if (total === 0) return reader.finish();
    const progressEvery = Math.max(1 << 20, Math.floor(total / 100));
    let nextProgress = 0;
    for (const { bytes, bytesDone } of fileLines(descriptor, options.chunkBytes ?? CHUNK_BYTES, file, total)) {
      if (options.onProgress && bytesDone >= nextProgress) {
        options.onProgress(bytesDone, total, 'bytes');
        nextProgress = bytesDone + progressEvery;
      }
      reader.addBytes(bytes, bytesDone);
    }
    if (options.onProgress) options.onProgress(total, total, 'bytes');
    return reader.finish();
  } catch (error) {
    if (kept) closeSync(descriptor);
    kept = false;
    throw error;
  } finally {
    if (!kept) closeSync(descriptor);
  }
}

/**
 * Closes the descriptor a large tape read lazily keeps for its spilled lines (see
 * {@link ReadTapeOptions.spillAboveBytes}). A line used later is read by opening the file again.
 */
export function closeTapeLines(exchanges: Iterable<LoadedExchange>): void {
  for (const loaded of exchanges) {
    if (loaded instanceof LazyLoadedExchange) {
      loaded.closeSource();
      return;
    }
  }
}

/**
 * Where a large tape's spilled lines are read again: the descriptor it was read through (the
 * file as it was read, even when a re-record has renamed another file over it since), then, once
 * closed, the file by its name. Each line read is checked to be the line that was indexed.
 */
class TapeLineSource {
  readonly #file: string;
  #descriptor: number | undefined;
  static readonly #closing = new FinalizationRegistry<number>((descriptor) => {
    try {
      closeSync(descriptor);
    } catch {
      // Closed already.
    }
  });

  constructor(file: string, descriptor: number) {
    this.#file = file;
    this.#descriptor = descriptor;
    TapeLineSource.#closing.register(this, descriptor, this);
  }

  // What was read last, from the file's byte `#windowAt`: the engine reads the lines in file order
  // once to index them, a window at a time, not a read per line.
  #window: Buffer | undefined;
  #windowAt = 0;

  /**
   * `length` bytes at `position`, or fewer at the file's end: a view of a window shared with the
   * next reads, to use at once and not keep.
   */
  read(position: number, length: number): Buffer {
    const window = this.#window;
    if (window !== undefined && position >= this.#windowAt && position + length <= this.#windowAt + window.length)
      return window.subarray(position - this.#windowAt, position - this.#windowAt + length);
    const size = Math.max(length, LINE_WINDOW_BYTES);
    const read = this.#readAt(position, size);
    this.#window = read;
    this.#windowAt = position;
    return read.length <= length ? read : read.subarray(0, length);
  }

  #readAt(position: number, length: number): Buffer {
    const buffer = Buffer.allocUnsafe(length);
    let descriptor = this.#descriptor;
    const own = descriptor === undefined;
    try {
      descriptor ??= openTapeFile(this.#file, 'r', (error) => new TapeNotFoundError(this.#file, error));
      let read = 0;
      while (read < length) {
        const got = readSync(descriptor, buffer, read, length - read, position + read);
        if (got === 0) break;
        read += got;
      }
      return read === length ? buffer : buffer.subarray(0, read);
    } catch (error) {
      if (error instanceof ModeltapeError) throw error;
      throw unreadable(this.#file, error);
    } finally {
      if (own && descriptor !== undefined) closeSync(descriptor);
    }
  }

  close(): void {
    this.#window = undefined;
    if (this.#descriptor === undefined) return;
    TapeLineSource.#closing.unregister(this);
    closeSync(this.#descriptor);
    this.#descriptor = undefined;
  }
}

/** Parses the text of a tape. `file` is only used to address problems. */
export function parseTape(text: string, file: string, options: ReadTapeOptions = {}): TapeContents {
  const reader = new LineReader(file, options);
  if (text.length === 0) return reader.finish();
  const lines = text.split('\n');
  const endsWithNewline = lines[lines.length - 1] === '';
  if (endsWithNewline) lines.pop();
  const progressEvery = Math.max(1000, Math.floor(lines.length / 100));
  for (let index = 0; index < lines.length; index++) {
    if (options.onProgress && index % progressEvery === 0) options.onProgress(index, lines.length, 'lines');
    reader.add(index === lines.length - 1 && !endsWithNewline ? { unterminated: lines[index]! } : lines[index]!);
  }
  if (options.onProgress) options.onProgress(lines.length, lines.length, 'lines');
  return reader.finish();
}

// Lines are read a chunk at a time, so a tape of any size loads; only one line must fit in a
// string (Node's limit is 512 MiB).
export const CHUNK_BYTES = 1 << 20;
const MIN_READ_BYTES = 4096;

type LineText = string | { unterminated: string } | { tooLong: number; unterminated: boolean };

// A line is `buffer[start, end)`: no view is made of a line that lies in one chunk.
export type LineBytes = { buffer: Buffer; start: number; end: number; unterminated: boolean } | { tooLong: number; unterminated: boolean };

/**
 * The lines of a file as bytes, the last one flagged when no newline ends it. Each chunk is read
 * into a buffer of its own and lines are views of it, so lines kept by lazy exchanges cost what
 * they weigh on disk.
 */
export function* fileLines(descriptor: number, chunkBytes: number, file: string, size: number): Generator<{ bytes: LineBytes; bytesDone: number }> {
  let parts: Buffer[] = [];
  let partBytes = 0;
  let position = 0;
  const whole = (pieces: Buffer[], bytes: number, unterminated: boolean): LineBytes =>
    bytes > STRING_MAX_BYTES
      ? { tooLong: bytes, unterminated }
      : { buffer: pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, bytes), start: 0, end: bytes, unterminated };
  for (;;) {
    // A small tape gets a buffer of its size and one byte (to see its end, or lines appended since
    // it was measured), not a whole chunk: a test opens a tape of a few exchanges, and a megabyte
    // per open was most of what opening it cost.
    const length = Math.min(chunkBytes, Math.max(size - position + 1, MIN_READ_BYTES));
    const chunk = Buffer.allocUnsafeSlow(length);
    let read: number;
    try {
      read = readSync(descriptor, chunk, 0, length, position);
    } catch (error) {
      throw unreadable(file, error);
    }
    if (read === 0) break;
    position += read;
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline < 0 || newline >= read) break;
      const bytesDone = position - read + newline + 1;
      if (parts.length === 0) yield { bytes: { buffer: chunk, start, end: newline, unterminated: false }, bytesDone };
      else {
        parts.push(chunk.subarray(start, newline));
        yield { bytes: whole(parts, partBytes + newline - start, false), bytesDone };
        parts = [];
        partBytes = 0;
      }
      start = newline + 1;
    }
    if (start < read) {
      partBytes += read - start;
      // A line too long to read is counted, not kept.
      if (partBytes <= STRING_MAX_BYTES) parts.push(chunk.subarray(start, read));
      else parts = [];
    }
    // A regular file reads short only at its end: no second read (and buffer) to find it.
    if (read < length) break;
  }
  if (partBytes > 0) yield { bytes: whole(parts, partBytes, true), bytesDone: position };
}

// A canonical exchange line names its key and ordinal first and its source and upstream last
// (the format's fields are sorted), so these are found without parsing the rest: the head is
// `{"key":"<64 hex>","ordinal":<digits>,"request":{` within its first 140 bytes (with
// `"recordedAt":"YYYY-MM-DD",` before the request since tape schema 3), the tail
// `},"source":"<source>","upstream":"<[a-z0-9][a-z0-9_-]{0,80}>"}`.
const HEAD_KEY = Buffer.from('{"key":"', 'latin1');
const HEAD_ORDINAL = Buffer.from('","ordinal":', 'latin1');
const HEAD_RECORDED_AT = Buffer.from(',"recordedAt":"', 'latin1');
const HEAD_REQUEST = Buffer.from(',"request":{', 'latin1');
const HEAD_MAX = 140;
const TAIL_UPSTREAM = Buffer.from('","upstream":"', 'latin1');
const TAIL_SOURCE = Buffer.from('},"source":"', 'latin1');
const SOURCE_BYTES = EXCHANGE_SOURCES.map((source) => Buffer.from(source, 'latin1'));
const UPSTREAM_MAX = 81;

/**
 * An exchange found by {@link readTape} with `lazy`: its key, ordinal, upstream and source are
 * known; the line is parsed and checked on first use of `exchange`.
 */
export class LazyLoadedExchange implements LoadedExchange {
  readonly line: number;
  readonly key: string;
  readonly ordinal: number;
  readonly upstream: string;
  readonly source: ExchangeSource;
  readonly #file: string;
  // The line is buffer[start, end); once spilled, the buffer is gone and the offsets count from
  // the line's start, which is `#position` in the file.
  #buffer: Buffer | undefined;
  #start: number;
  #end: number;
  #requestStart: number;
  // One past the request object, once requestRoute() found it (0: not yet, -1: not found).
  #requestEnd = 0;
  #exchange: Exchange | undefined;
  readonly #source: TapeLineSource | undefined;
  readonly #position: number;

  /** @internal */
  constructor(
    file: string,
    line: number,
    where: { buffer: Buffer; start: number; end: number },
    found: CanonicalIndex,
    spill?: { source: TapeLineSource; position: number },
  ) {
    this.#file = file;
    this.line = line;
    this.#buffer = where.buffer;
    this.#start = where.start;
    this.#end = where.end;
    this.#source = spill?.source;
    this.#position = spill?.position ?? -1;
    this.#requestStart = found.requestStart;
    this.key = found.key;
    this.ordinal = found.ordinal;
    this.upstream = found.upstream;
    this.source = found.source;
  }

  /** The exchange, parsed and checked on first use. Throws {@link TapeFormatError} naming the line if it is invalid. */
  get exchange(): Exchange {
    if (this.#exchange !== undefined) return this.#exchange;
    const problems: TapeProblem[] = [];
    let value: unknown;
    const buffer = this.#bytes();
    try {
      value = JSON.parse(buffer.toString('utf8', this.#start, this.#end));
    } catch (error) {
      problems.push({ file: this.#file, line: this.line, field: '', message: `not valid JSON: ${(error as Error).message}` });
    }
    if (problems.length === 0) problems.push(...exchangeProblems(value, this.#file, this.line));
    if (problems.length > 0) throw new TapeFormatError(problems);
    this.#exchange = value as Exchange;
    this.#buffer = undefined;
    return this.#exchange;
  }

  /**
   * The request's method and path, read from the line's bytes without parsing it (filing a
   * large tape by route so costs a scan of each request, not a parse of each line). Undefined
   * when the request is not in the writer's form, and once the line is parsed: then read them
   * from `exchange`.
   */
  requestRoute(): { method: string; path: string } | undefined {
    if (this.#exchange !== undefined || this.#requestEnd < 0) return undefined;
    const buffer = this.#bytes();
    const outline = requestOutline(buffer, this.#requestStart, this.#end);
    this.#requestEnd = outline?.end ?? -1;
    return outline;
  }

  /**
   * Gives the line's bytes back: from now on it is read again from the tape file when used
   * (only for a large tape read lazily, see `ReadTapeOptions.spillAboveBytes`; otherwise nothing
   * happens). Returns whether it was spilled.
   */
  spill(): boolean {
    if (this.#source === undefined || this.#buffer === undefined || this.#exchange !== undefined) return false;
    const start = this.#start;
    this.#end -= start;
    this.#requestStart -= start;
    if (this.#requestEnd > 0) this.#requestEnd -= start;
    this.#start = 0;
    this.#buffer = undefined;
    return true;
  }

  /** @internal Closes the tape's descriptor, shared by its exchanges (see {@link closeTapeLines}). */
  closeSource(): void {
    this.#source?.close();
  }

  // The line's bytes: in memory, or read again from the file, checked to be the line indexed
  // (a tape edited in place since is an error naming the line, never another line's answer).
  #bytes(): Buffer {
    if (this.#buffer !== undefined) return this.#buffer;
    const buffer = this.#source!.read(this.#position, this.#end);
    const found = buffer.length === this.#end ? canonicalIndex(buffer, 0, this.#end) : undefined;
    if (found === undefined || found.key !== this.key || found.ordinal !== this.ordinal || found.requestStart !== this.#requestStart) {
      throw new TapeFormatError([
        {
          file: this.#file,
          line: this.line,
          field: '',
          message: `line ${this.line} changed on disk while the tape was open (it was read again from the file, and is not the line that was indexed). Do not edit a tape while it is replayed; run again.`,
        },
      ]);
    }
    return buffer;
  }

  /**
   * The bytes of the request object, `buffer[start, end)`, once {@link requestRoute} found them;
   * undefined otherwise, and once the line is parsed. Unchecked, like {@link uncheckedRequest}.
   */
  requestBytes(): { buffer: Buffer; start: number; end: number } | undefined {
    if (this.#exchange !== undefined) return undefined;
    if (this.#requestEnd === 0) this.requestRoute();
    if (this.#requestEnd < 0) return undefined;
    let buffer: Buffer;
    try {
      buffer = this.#bytes();
    } catch {
      // Changed on disk: `exchange` says so, naming the line.
      return undefined;
    }
    return { buffer, start: this.#requestStart, end: this.#requestEnd };
  }

  /**
   * The request alone, parsed from its part of the line, unchecked, and not kept: what an index
   * of a large tape's requests reads without parsing (and holding) every response. Undefined
   * when that part is not found or is not JSON, and once the line is parsed (read `exchange`).
   * Only `exchange` says whether the line is valid.
   */
  uncheckedRequest(): unknown {
    const bytes = this.requestBytes();
    if (bytes === undefined) return undefined;
    try {
      return JSON.parse(bytes.buffer.toString('utf8', bytes.start, bytes.end));
    } catch {
      return undefined;
    }
  }
}

/** The problems of one parsed exchange line: the schema, then the depth of its JSON. */
function exchangeProblems(value: unknown, file: string, line: number): TapeProblem[] {
  const problems = checkExchangeLine(value, file, line);
  if (problems.length > 0) return problems;
  const deep = exchangeTooDeepAt(value as Exchange);
  if (deep === undefined) return [];
  return [
    {
      file,
      line,
      field: deep,
      message: `nests deeper than ${MAX_JSON_DEPTH} levels of JSON (at ${abbreviatePath(deep)}); modeltape cannot key, compare or replay it. Delete the line, or record that exchange again with a flatter payload.`,
    },
  ];
}

// Past this a line cannot be decoded into one string (V8's limit, 2^29 - 24 characters).
const STRING_MAX_BYTES = (1 << 29) - 24;

const BOM = '\uFEFF';

/** Turns lines into what a tape holds, one line at a time. */
class LineReader {
  readonly #file: string;
  readonly #options: ReadTapeOptions;
  readonly #contents: TapeContents;
  // A blank line is only reported once a line follows it: a trailing one is harmless.
  #blank: number | undefined;
  #crlf: { first: number; count: number } | undefined;

  readonly #source: TapeLineSource | undefined;

  constructor(file: string, options: ReadTapeOptions, source?: TapeLineSource) {
    this.#file = file;
    this.#options = options;
    this.#source = source;
    this.#contents = { file, header: undefined, exchanges: [], problems: [], warnings: [], lineCount: 0 };
  }

  /** A line's bytes; `bytesDone`, where the file is read to, one past its newline. */
  addBytes(bytes: LineBytes, bytesDone?: number): void {
    if ('tooLong' in bytes) return this.add(bytes);
    if (this.#options.lazy === true && !bytes.unterminated && this.#contents.lineCount > 0 && this.#blank === undefined) {
      const found = canonicalIndex(bytes.buffer, bytes.start, bytes.end);
      if (found !== undefined) {
        const lineNumber = ++this.#contents.lineCount;
        const spill =
          this.#source === undefined || bytesDone === undefined ? undefined : { source: this.#source, position: bytesDone - 1 - (bytes.end - bytes.start) };
        const loaded = new LazyLoadedExchange(this.#file, lineNumber, bytes, found, spill);
        // A large tape keeps no line: what is read once the tape is, is read again from the file.
        loaded.spill();
        this.#contents.exchanges.push(loaded);
        return;
      }
    }
    const text = bytes.buffer.toString('utf8', bytes.start, bytes.end);
    this.add(bytes.unterminated ? { unterminated: text } : text);
  }

  add(text: LineText): void {
    const contents = this.#contents;
    const file = this.#file;
    const lineNumber = ++contents.lineCount;
    if (typeof text === 'object' && 'tooLong' in text) {
      this.#flushBlank();
      contents.problems.push({
        file,
        line: lineNumber,
        field: '',
        message: `line ${lineNumber} is ${text.tooLong.toLocaleString('en-US')} bytes, more than one line may hold (${STRING_MAX_BYTES.toLocaleString('en-US')} bytes, the longest string Node can read). Record that exchange again with a smaller body, or delete the line.`,
      });
      return;
    }
    const unterminated = typeof text === 'object';
    let line = typeof text === 'object' ? text.unterminated : text;
    if (line.startsWith(BOM)) {
      line = line.slice(1);
      this.#warn(
        lineNumber,
        lineNumber === 1
          ? 'the tape starts with a UTF-8 byte order mark (an editor added it; modeltape writes none). It was ignored; remove it (save the file as UTF-8 without BOM) so other tools read line 1 as JSON'
          : `line ${lineNumber} starts with a UTF-8 byte order mark, probably from joining two files. It was ignored; remove it (save as UTF-8 without BOM, or delete the invisible character at the start of the line)`,
      );
    }
    if (line.endsWith('\r')) {
      line = line.slice(0, -1);
      if (this.#crlf === undefined) this.#crlf = { first: lineNumber, count: 0 };
      this.#crlf.count++;
    }
    if (line.trim() === '') {
      this.#flushBlank();
      this.#blank = lineNumber;
      return;
    }
    this.#flushBlank();
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      if (isTorn(line, error as Error, unterminated)) {
        this.#warn(
          lineNumber,
          `line ${lineNumber} is torn (${line.length} bytes, cut off mid-write, probably by a killed recorder) and was skipped; every other line was kept`,
        );
        if (lineNumber === 1) contents.problems.push({ file, line: 1, field: '', message: 'the header line is torn; delete the tape and record again' });
      } else {
        contents.problems.push({ file, line: lineNumber, field: '', message: `not valid JSON: ${(error as Error).message}` });
      }
      return;
    }
    if (lineNumber === 1) {
      const problems = checkHeaderLine(value, file, 1);
      contents.problems.push(...problems);
      if (problems.length === 0) {
        contents.header = value as TapeHeader;
        this.#options.onHeader?.(contents.header, line);
      }
      return;
    }
    const problems = exchangeProblems(value, file, lineNumber);
    if (problems.length > 0) {
      contents.problems.push(...problems);
      return;
    }
    const loaded = { exchange: value as Exchange, line: lineNumber };
    if (this.#options.keepExchanges !== false) contents.exchanges.push(loaded);
    this.#options.onExchange?.(loaded, line);
  }

  finish(): TapeContents {
    const contents = this.#contents;
    if (contents.lineCount === 0) {
      contents.problems.push({
        file: this.#file,
        line: 1,
        field: '',
        message: 'the tape is empty: line 1 must be the header. Delete the file and record again.',
      });
    }
    if (this.#crlf !== undefined) {
      const { first, count } = this.#crlf;
      this.#warn(
        first,
        `line ${first}${count > 1 ? ` and ${count - 1} more line${count > 2 ? 's' : ''}` : ''} end${count > 1 ? '' : 's'} with CRLF (\\r\\n); modeltape writes LF. The lines were read without the \\r; convert the file to LF (git config core.autocrlf false, then dos2unix ${this.#file}, or your editor's line-ending setting) so that appending and diffs stay clean`,
      );
    }
    return contents;
  }

  #flushBlank(): void {
    if (this.#blank === undefined) return;
    this.#warn(this.#blank, 'blank line skipped');
    this.#blank = undefined;
  }

  #warn(line: number, message: string): void {
    this.#contents.warnings.push({ file: this.#file, line, message });
  }
}

interface CanonicalIndex {
  key: string;
  ordinal: number;
  upstream: string;
  source: ExchangeSource;
  /** Where the request object's `{` is. */
  requestStart: number;
}

// The key, ordinal, source and upstream of a canonical exchange line, read from its two ends as
// bytes (no string is made of them but the key and the upstream).
function canonicalIndex(buffer: Buffer, start: number, end: number): CanonicalIndex | undefined {
  if (end - start < 200 || buffer[start] !== 0x7b || buffer[end - 1] !== 0x7d) return undefined;
  let at = start;
  if (!bytesAt(buffer, at, HEAD_KEY)) return undefined;
  at += HEAD_KEY.length;
  for (const keyEnd = at + 64; at < keyEnd; at++) {
    const byte = buffer[at]!;
    if (!((byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66))) return undefined;
  }
  if (!bytesAt(buffer, at, HEAD_ORDINAL)) return undefined;
  at += HEAD_ORDINAL.length;
  const digits = at;
  let ordinal = 0;
  for (; at < start + HEAD_MAX && buffer[at]! >= 0x30 && buffer[at]! <= 0x39; at++) ordinal = ordinal * 10 + buffer[at]! - 0x30;
  if (at === digits || at - digits > 15 || (buffer[digits] === 0x30 && at - digits > 1)) return undefined;
  if (bytesAt(buffer, at, HEAD_RECORDED_AT)) {
    // A date's 10 bytes of digits and dashes (the schema checks it when the line is parsed).
    at += HEAD_RECORDED_AT.length;
    for (const dateEnd = at + 10; at < dateEnd; at++) if (!((buffer[at]! >= 0x30 && buffer[at]! <= 0x39) || buffer[at] === 0x2d)) return undefined;
    if (buffer[at] !== 0x22) return undefined;
    at++;
  }
  if (at + HEAD_REQUEST.length > start + HEAD_MAX || !bytesAt(buffer, at, HEAD_REQUEST)) return undefined;
  const requestStart = at + HEAD_REQUEST.length - 1;
  // The tail, from the end: `"}`, the upstream, `","upstream":"`, a source, `},"source":"`.
  if (buffer[end - 2] !== 0x22) return undefined;
  let upstreamStart = end - 2;
  while (upstreamStart > end - 2 - UPSTREAM_MAX && isUpstreamByte(buffer[upstreamStart - 1]!)) upstreamStart--;
  const first = buffer[upstreamStart]!;
  if (upstreamStart === end - 2 || first === 0x5f || first === 0x2d) return undefined;
  const sourceEnd = upstreamStart - TAIL_UPSTREAM.length;
  if (!bytesAt(buffer, sourceEnd, TAIL_UPSTREAM)) return undefined;
  const which = SOURCE_BYTES.findIndex(
    (source) => bytesAt(buffer, sourceEnd - source.length, source) && bytesAt(buffer, sourceEnd - source.length - TAIL_SOURCE.length, TAIL_SOURCE),
  );
  if (which < 0) return undefined;
  return {
    key: buffer.toString('latin1', start + HEAD_KEY.length, start + HEAD_KEY.length + 64),
    ordinal,
    source: EXCHANGE_SOURCES[which]!,
    upstream: buffer.toString('latin1', upstreamStart, end - 2),
    requestStart,
  };
}

/**
 * The key and ordinal of an exchange line, read from its ends when it is canonical, else parsed;
 * undefined for a line that is no exchange (a header, a hand edit that broke it).
 */
export function lineIdentity(buffer: Buffer, start: number, end: number): { key: string; ordinal: number } | undefined {
  const found = canonicalIndex(buffer, start, end);
  if (found !== undefined) return found;
  try {
    const value = JSON.parse(buffer.toString('utf8', start, end)) as { key?: unknown; ordinal?: unknown } | null;
    if (typeof value?.key === 'string' && typeof value.ordinal === 'number') return { key: value.key, ordinal: value.ordinal };
  } catch {
    // Not JSON: no exchange of anyone's.
  }
  return undefined;
}

function bytesAt(buffer: Buffer, at: number, bytes: Buffer): boolean {
  if (at < 0 || at + bytes.length > buffer.length) return false;
  for (let index = 0; index < bytes.length; index++) if (buffer[at + index] !== bytes[index]) return false;
  return true;
}

// [a-z0-9_-]
function isUpstreamByte(byte: number): boolean {
  return (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39) || byte === 0x5f || byte === 0x2d;
}

function unreadable(file: string, error: unknown): ModeltapeError {
  return new ModeltapeError('tape_unreadable', `Could not read tape ${file}: ${(error as Error).message}`, { cause: error });
}

// A writer appends each line with one write, so a line cut short is a prefix of valid JSON: the
// parser runs out of input. A line that is wrong in its middle was written (or edited) wrong.
function isTorn(line: string, error: Error, unterminated: boolean): boolean {
  if (!line.startsWith('{')) return false;
  if (/end of JSON input/i.test(error.message)) return true;
  const position = /position (\d+)/.exec(error.message);
  if (position && Number(position[1]) >= line.length) return true;
  return unterminated && /Unterminated string/i.test(error.message);
}
