import { readFileSync } from 'node:fs';
import { ModeltapeError, TapeFormatError, type TapeProblem } from './errors.js';
import type { Exchange, LoadedExchange, TapeHeader } from './tape-format.js';
import { checkExchangeLine, checkHeaderLine } from './tape-schema.js';

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
  /** Called now and then with how many of the file's lines have been read. */
  onProgress?: (linesDone: number, linesTotal: number) => void;
}

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
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new TapeNotFoundError(file, error);
    throw new ModeltapeError('tape_unreadable', `Could not read tape ${file}: ${(error as Error).message}`, { cause: error });
  }
  return parseTape(text, file, options);
}

/** Parses the text of a tape. `file` is only used to address problems. */
export function parseTape(text: string, file: string, options: ReadTapeOptions = {}): TapeContents {
  const contents: TapeContents = { file, header: undefined, exchanges: [], problems: [], warnings: [], lineCount: 0 };
  if (text.length === 0) {
    contents.problems.push({ file, line: 1, field: '', message: 'the tape is empty: line 1 must be the header. Delete the file and record again.' });
    return contents;
  }
  const endsWithNewline = text.endsWith('\n');
  const lines = text.split('\n');
  if (endsWithNewline) lines.pop();
  contents.lineCount = lines.length;
  const progressEvery = Math.max(1000, Math.floor(lines.length / 100));

  for (let index = 0; index < lines.length; index++) {
    const lineNumber = index + 1;
    const line = lines[index]!;
    if (options.onProgress && index % progressEvery === 0) options.onProgress(index, lines.length);
    const isLast = index === lines.length - 1;
    if (line.trim() === '') {
      if (!isLast) contents.warnings.push({ file, line: lineNumber, message: 'blank line skipped' });
      continue;
    }
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      if (isTorn(line, error as Error, isLast && !endsWithNewline)) {
        contents.warnings.push({
          file,
          line: lineNumber,
          message: `line ${lineNumber} is torn (${line.length} bytes, cut off mid-write, probably by a killed recorder) and was skipped; every other line was kept`,
        });
        if (lineNumber === 1) contents.problems.push({ file, line: 1, field: '', message: 'the header line is torn; delete the tape and record again' });
      } else {
        contents.problems.push({ file, line: lineNumber, field: '', message: `not valid JSON: ${(error as Error).message}` });
      }
      continue;
    }
    if (lineNumber === 1) {
      const problems = checkHeaderLine(value, file, 1);
      contents.problems.push(...problems);
      if (problems.length === 0) contents.header = value as TapeHeader;
      continue;
    }
    const problems = checkExchangeLine(value, file, lineNumber);
    if (problems.length > 0) contents.problems.push(...problems);
    else contents.exchanges.push({ exchange: value as Exchange, line: lineNumber });
  }
  if (options.onProgress) options.onProgress(lines.length, lines.length);
  return contents;
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
