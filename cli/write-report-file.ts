import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ModeltapeError, describeWriteError, outputText } from '../core/internal.js';
import type { ResolvedCommandIo } from './io.js';

/**
 * Writes a report a command was asked for (`--html FILE`, or the `flag` that named it) where the user named it (relative to the
 * command's directory), masked and escaped as everything the command prints is, and says so on
 * stderr: the one way a command writes a file of its own. The file is written whole or not at all:
 * aside, in the same folder, then renamed over `file`. A disk that fills, a read-only folder or a
 * missing permission leaves no file and no part of one (a report that was there stays as it was),
 * and throws an error that names the file and why, for the command to print.
 */
export function writeReportFile(io: ResolvedCommandIo, command: string, file: string, text: string, flag = '--html'): void {
  const target = resolve(io.cwd, file);
  const aside = join(dirname(target), `.${basename(target)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  try {
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(aside, outputText(text), { flag: 'wx' });
    renameSync(aside, target);
  } catch (error) {
    // `force` forgives a missing file, not a folder that is a file (ENOTDIR): nothing to remove then either.
    try {
      rmSync(aside, { force: true });
    } catch {
      // Nothing was written aside.
    }
    throw new ModeltapeError(
      'report_write_failed',
      `modeltape ${command}: could not write ${file}: ${describeWriteError(error as NodeJS.ErrnoException)}; nothing was left there (a report that was there is as it was). Free space or choose another ${flag} FILE, and run again.`,
      { cause: error },
    );
  }
  io.stderr.write(`modeltape: wrote ${file}\n`);
}
