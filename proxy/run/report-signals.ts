import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { Socket } from 'node:net';
import { reportSignalPath } from '../../guard/internal.js';

/** The run's end of its signal pipe: what the command's processes could not append to the report. */
export interface ReportSignals {
  /** Stops listening and returns each signal (`escape ENOSPC`), in the order they came. */
  close(): Promise<string[]>;
}

/**
 * Makes the signal pipe beside a run's report file and listens on it (see `reportSignalPath`). A
 * pipe takes no disk space, so a process that could not append its record to the report (the disk
 * under the temporary folder full) can still say so. Undefined where no pipe can be made (no
 * `mkfifo`): then only what reached the report file is known.
 */
export function listenForUnreported(reportFile: string): ReportSignals | undefined {
  const path = reportSignalPath(reportFile);
  try {
    execFileSync('mkfifo', ['-m', '600', path], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  const reader = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  // Held open by the run, so the reader sees no end between the command's writers.
  const holder = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK);
  const socket = new Socket({ fd: reader, readable: true, writable: false });
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.on('error', () => undefined);
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    close: async () => {
      closeSync(holder);
      // A process the command left running may hold the pipe open: what came by now is what is known.
      await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 200).unref())]);
      socket.destroy();
      return text.split('\n').filter((line) => line !== '');
    },
  };
}
