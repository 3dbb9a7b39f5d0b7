import { closeSync, openSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { ModeltapeError } from '../core/internal.js';

const LOCK_WAIT_MS = 10_000;
// A rewrite reads and writes the tape once; a lock older than this was left by a killed process.
const LOCK_STALE_MS = 60_000;

/**
 * Runs `action` holding the tape's lock (`FILE.lock`, made with O_EXCL): the rewrites of a tape
 * (a header taken over, re-recordings put in place) wait for each other. Appends take no lock.
 */
export function withTapeLock<T>(file: string, action: () => T): T {
  const lock = `${file}.lock`;
  acquireLock(lock);
  try {
    return action();
  } finally {
    unlinkSync(lock);
  }
}

function acquireLock(lock: string): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; ; waited += 10) {
    try {
      closeSync(openSync(lock, 'wx'));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > LOCK_STALE_MS) {
      rmSync(lock, { force: true });
      continue;
    }
    if (waited >= LOCK_WAIT_MS) {
      throw new ModeltapeError(
        'tape_locked',
        `Tape lock ${lock} has been held for ${Math.round(age / 1000)} s: another modeltape process is rewriting the tape's header. Wait for it, or delete the lock if no modeltape process is running.`,
      );
    }
    Atomics.wait(pause, 0, 0, 10);
  }
}
