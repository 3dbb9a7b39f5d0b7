import { outputText } from '../core/internal.js';

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
 * The same io with every string written to stdout and stderr masked (`[openai-key 44 chars]`) and
 * its control characters escaped (`\u001b`, `\u009b`; not the line feed and the tab): the one
 * place every command's output passes, so no message, table or report prints a key, and nothing
 * a tape holds moves the cursor, retitles, clears or rings a terminal. Only {@link writeControl}
 * writes a control sequence, modeltape's own.
 */
export function maskedIo(io: ResolvedCommandIo): ResolvedCommandIo {
  return { ...io, stdout: maskedStream(io.stdout), stderr: maskedStream(io.stderr) };
}

/** The control sequences modeltape itself writes to a terminal, for its progress line; nothing else is written raw. */
export const TERMINAL_CONTROLS = {
  /** Back to the start of the line, to write it again. */
  lineStart: '\r',
  /** Back to the start of the line, and clear it. */
  clearLine: '\r\u001b[2K',
} as const;
export type TerminalControl = keyof typeof TERMINAL_CONTROLS;

// The stream a masked stream writes to, for the control sequences only.
const UNMASKED = Symbol('modeltape.unmaskedStream');

/** Writes one of modeltape's own control sequences, past the escaping every other write gets. */
export function writeControl(stream: NodeJS.WritableStream, control: TerminalControl): void {
  ((stream as { [UNMASKED]?: NodeJS.WritableStream })[UNMASKED] ?? stream).write(TERMINAL_CONTROLS[control]);
}

function maskedStream<T extends NodeJS.WritableStream & { isTTY?: boolean }>(stream: T): T {
  const masked = Object.create(stream) as T & { write: (...args: unknown[]) => boolean; [UNMASKED]: NodeJS.WritableStream };
  masked[UNMASKED] = stream;
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
    writeControl(io.stderr, 'lineStart');
    io.stderr.write(`${label} ${amount} (${percent}%)`);
  }) as ((done: number, total: number, unit?: 'bytes' | 'lines') => void) & { end(): void };
  report.end = () => {
    if (enabled && last >= 0) writeControl(io.stderr, 'clearLine');
  };
  return report;
}
