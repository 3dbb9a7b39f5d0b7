import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A real small disk (a tmpfs of `size` bytes), or why this machine cannot mount one. */
export type SmallDisk = { mounted: true; dir: string; unmount(): void } | { mounted: false; reason: string };

/**
 * Mounts a tmpfs of `size` bytes on a fresh directory: a disk that really fills up (ENOSPC).
 * Needs root (or CAP_SYS_ADMIN); anywhere else it says why, so the test shows as skipped with it.
 */
export function mountSmallDisk(size: number): SmallDisk {
  const dir = mkdtempSync(join(tmpdir(), 'modeltape-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return { mounted: false, reason: `mount -t tmpfs was refused: ${stderr || (error as Error).message}` };
  }
  return {
    mounted: true,
    dir,
    unmount: () => {
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A read-only view of `source` (a read-only bind mount), or why it cannot be made. */
export function mountReadOnly(source: string): SmallDisk {
  const dir = mkdtempSync(join(tmpdir(), 'modeltape-read-only-'));
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync('mount', ['--bind', source, dir], { stdio: 'pipe' });
    execFileSync('mount', ['-o', 'remount,bind,ro', dir], { stdio: 'pipe' });
  } catch (error) {
    try {
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
    } catch {
      // never mounted
    }
    rmSync(dir, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return { mounted: false, reason: `a read-only bind mount was refused: ${stderr || (error as Error).message}` };
  }
  return {
    mounted: true,
    dir,
    unmount: () => {
      execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
