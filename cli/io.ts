import { maskSecrets } from '../core/internal.js';

/** Where a command writes, and the environment it reads. Lets tests run commands in process. */
export interface CommandIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

export function processIo(): CommandIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}

/**
 * The same io with every string written to stdout and stderr masked (`[openai-key 44 chars]`):
 * the one place every command's output passes, so no message, table or report prints a key.
 */
export function maskedIo(io: CommandIo): CommandIo {
  return { ...io, stdout: maskedStream(io.stdout), stderr: maskedStream(io.stderr) };
}

function maskedStream<T extends NodeJS.WritableStream & { isTTY?: boolean }>(stream: T): T {
  const masked = Object.create(stream) as T & { write: (...args: unknown[]) => boolean };
  masked.write = (chunk: unknown, ...rest: unknown[]) => (stream.write as (...args: unknown[]) => boolean).call(stream, typeof chunk === 'string' ? maskSecrets(chunk) : chunk, ...rest);
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
    const amount = unit === 'bytes' ? `${(done / 1024 / 1024).toFixed(0)}/${(total / 1024 / 1024).toFixed(0)} MB` : `${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')} lines`;
    io.stderr.write(`\r${label} ${amount} (${percent}%)`);
  }) as ((done: number, total: number, unit?: 'bytes' | 'lines') => void) & { end(): void };
  report.end = () => {
    if (enabled && last >= 0) io.stderr.write('\r\u001b[2K');
  };
  return report;
}
