import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import type { Exchange, TapeHeader } from './tape-format.js';
import { serializeLine } from './tape-line.js';

/**
 * Writes a whole tape to a new file (`wx`: it must not exist), a line at a time, so a tape of
 * any size can be written (one string of it all could not pass 512 MiB). The file is removed
 * if a write fails. Write it aside and rename it into place to replace a tape.
 */
export function writeTapeFile(file: string, header: TapeHeader, exchanges: Iterable<Exchange>): void {
  const descriptor = openSync(file, 'wx');
  try {
    let pending = serializeLine(header);
    for (const exchange of exchanges) {
      pending += serializeLine(exchange);
      if (pending.length >= 1 << 20) {
        writeSync(descriptor, pending);
        pending = '';
      }
    }
    writeSync(descriptor, pending);
    closeSync(descriptor);
  } catch (error) {
    closeSync(descriptor);
    rmSync(file, { force: true });
    throw error;
  }
}
