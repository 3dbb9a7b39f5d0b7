import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { maskSecrets } from '../core/internal.js';

/**
 * Where a command writes, and what it reads of its process: the environment, the directory and
 * the signals. Lets tests run commands in process without touching the test's own process.
 */
export interface CommandIo {
  /**
   * Where the command writes its output. CMD (of `run`, `drift`, `inspect --unused`) writes to
   * the same descriptor when the stream has one (`process.stdout`); otherwise its output is
   * piped into the stream.
   */
  stdout: NodeJS.WritableStream & { isTTY?: boolean; fd?: number };
  /** Where the command writes errors, the summary and progress; CMD's stderr too (see `stdout`). */
  stderr: NodeJS.WritableStream & { isTTY?: boolean; fd?: number };
  /** The environment the command reads (`CI`) and passes on to CMD. */
  env: NodeJS.ProcessEnv;
  /**
   * The directory the command works in: where `modeltape.config.json` is looked up and where CMD
   * starts. Paths on the command line are opened as given.
   * @default process.cwd()
   */
  cwd?: string;
  /**
   * Where SIGINT and SIGTERM come from: `proxy` and `fake` stop on one; `run`, `drift` and
   * `inspect --unused` pass it on to CMD.
   * @default process
   */
  signals?: NodeJS.EventEmitter;
  /**
   * What the command reads: `mcp` bridges it to an MCP server's stdin.
   * @default process.stdin
   */
  stdin?: NodeJS.ReadableStream;
}

/** A command's io with every default filled in, as the commands take it. */
export type ResolvedCommandIo = Required<CommandIo>;

export function processIo(): ResolvedCommandIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), signals: process, stdin: process.stdin };
}

/** The io given to `main`, with the process's directory and signals where none are given. */
export function resolveCommandIo(io: CommandIo): ResolvedCommandIo {
  return { ...io, cwd: io.cwd ?? process.cwd(), signals: io.signals ?? process, stdin: io.stdin ?? process.stdin };
}

/**
 * The same io with every string written to stdout and stderr masked (`[openai-key 44 chars]`):
 * the one place every command's output passes, so no message, table or report prints a key.
 */
export function maskedIo(io: ResolvedCommandIo): ResolvedCommandIo {
  return { ...io, stdout: maskedStream(io.stdout), stderr: maskedStream(io.stderr) };
}

/**
 * Writes a report a command was asked for (`--html FILE`) where the user named it (relative to
 * the command's directory), masked as everything the command prints is, and says so on stderr:
 * the one way a command writes a file of its own.
 */
export function writeReportFile(io: ResolvedCommandIo, file: string, text: string): void {
  const path = resolve(io.cwd, file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, outputText(text));
  io.stderr.write(`modeltape: wrote ${file}\n`);
}

// What every output of a command is made of: its text with each key masked.
function outputText(text: string): string {
  return maskSecrets(text);
}

function maskedStream<T extends NodeJS.WritableStream & { isTTY?: boolean }>(stream: T): T {
  const masked = Object.create(stream) as T & { write: (...args: unknown[]) => boolean };
  masked.write = (chunk: unknown, ...rest: unknown[]) =>
    (stream.write as (...args: unknown[]) => boolean).call(stream, typeof chunk === 'string' ? outputText(chunk) : chunk, ...rest);
  return masked;
}

/** A one-line progress report on a terminal; silent when stderr is not a TTY. */
export function progressReporter(io: CommandIo, label: string): ((done: number, total: number, unit?: 'bytes' | 'lines') => void) & { end(): void } {
  let last = -1;
  const enabled = io.stderr.isTTY === true;
  const report = ((done: number, total: number, unit: 'bytes' | 'lines' = 'lines') => {
    if (!enabled || total < (unit === 'bytes' ? 5 * 1024 * 1024 : 5_000)) return;
    const percent = Math.floor((done / total) * 100);
    if (percent === last) return;
    last = percent;
    const amount =
      unit === 'bytes'
        ? `${(done / 1024 / 1024).toFixed(0)}/${(total / 1024 / 1024).toFixed(0)} MB`
        : `${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} lines`;
    io.stderr.write(`\r${label} ${amount} (${percent}%)`);
  }) as ((done: number, total: number, unit?: 'bytes' | 'lines') => void) & { end(): void };
  report.end = () => {
    if (enabled && last >= 0) io.stderr.write('\r\u001b[2K');
  };
  return report;
}
