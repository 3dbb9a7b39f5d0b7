import { closeSync, fstatSync, linkSync, mkdirSync, openSync, readSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { canonicalJson } from './canonical-json.js';
import { ModeltapeError, SecretInTapeError } from './errors.js';
import type { CompiledKeyRules } from './exchange-key.js';
import { findSecrets, mayHoldSecret } from './secret-scan.js';
import type { Exchange, TapeHeader } from './tape-format.js';
import { createHeader, describeExchange, serializeLine } from './tape-line.js';
import { parseTape } from './tape-reader.js';
import { checkExchangeLine } from './tape-schema.js';

export interface TapeWriterOptions {
  /** The key rules of the exchanges that will be appended; must match an existing tape's. */
  keyRules: CompiledKeyRules;
  /** Notes (fields starting with `_`) for the header of a tape this writer creates. */
  headerNotes?: Record<`_${string}`, unknown>;
}

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
  readonly header: TapeHeader;
  #descriptor: number | undefined;
  #pending: string[] = [];
  #scheduled = false;
  #needsNewline: boolean;
  #written = 0;

  private constructor(file: string, header: TapeHeader, descriptor: number, needsNewline: boolean) {
    this.file = file;
    this.header = header;
    this.#descriptor = descriptor;
    this.#needsNewline = needsNewline;
  }

  /** Opens a tape for appending, creating it with a header if it does not exist. */
  static open(file: string, options: TapeWriterOptions): TapeWriter {
    mkdirSync(dirname(file), { recursive: true });
    const header = createHeader(options.keyRules.rules, options.headerNotes);
    createAtomically(file, serializeLine(header));
    const descriptor = openSync(file, 'a+');
    try {
      const existing = readHeader(file, descriptor);
      if (canonicalJson(existing.keyRules) !== canonicalJson(options.keyRules.rules)) {
        throw new ModeltapeError(
          'key_rules_mismatch',
          `Tape ${file} was keyed with other rules than this run uses.\n` +
            `  tape (line 1): ${canonicalJson(existing.keyRules)}\n` +
            `  this run:      ${canonicalJson(options.keyRules.rules)}\n` +
            `Appending would mix two kinds of key. Run modeltape rekey ${file} first, use the tape's rules, or record into a new tape.`,
        );
      }
      return new TapeWriter(file, existing, descriptor, lastLineIsTorn(descriptor));
    } catch (error) {
      closeSync(descriptor);
      throw error;
    }
  }

  /** How many exchanges this writer has written to disk. */
  get written(): number {
    return this.#written;
  }

  /**
   * Queues an exchange. Throws {@link SecretInTapeError}, writing nothing, when the exchange
   * holds a string shaped like a credential.
   */
  append(exchange: Exchange): void {
    if (this.#descriptor === undefined) throw new ModeltapeError('tape_closed', `Tape ${this.file} is closed; no more exchanges can be written.`);
    const line = serializeLine(exchange);
    if (mayHoldSecret(line)) {
      const locations = findSecrets(exchange);
      if (locations.length > 0) throw new SecretInTapeError(`${describeExchange(exchange)} to ${this.file}`, locations);
    }
    // An append-only tape cannot take back a bad line: check it before it is written.
    const problems = checkExchangeLine(exchange, this.file, 0);
    if (problems.length > 0) {
      throw new ModeltapeError('invalid_exchange', `Refused to write ${describeExchange(exchange)} to ${this.file}: it does not follow the tape schema.\n${problems.map((problem) => `  ${problem.message}`).join('\n')}`);
    }
    this.#pending.push(line);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Writes every queued line now. */
  flush(): void {
    this.#scheduled = false;
    if (this.#pending.length === 0 || this.#descriptor === undefined) return;
    const count = this.#pending.length;
    let text = this.#pending.join('');
    this.#pending = [];
    if (this.#needsNewline) {
      text = `\n${text}`;
      this.#needsNewline = false;
    }
    const bytes = Buffer.from(text, 'utf8');
    let offset = 0;
    // A regular file takes the whole buffer in one write; the loop only guards a short write.
    while (offset < bytes.length) offset += writeSync(this.#descriptor, bytes, offset, bytes.length - offset);
    this.#written += count;
  }

  /** Flushes and closes. Safe to call twice. */
  close(): void {
    if (this.#descriptor === undefined) return;
    this.flush();
    closeSync(this.#descriptor);
    this.#descriptor = undefined;
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
