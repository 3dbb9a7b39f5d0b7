import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { JournalStorageError, SqliteJournalStore, type JournalRecord, type SqliteJournalStoreOptions } from 'modeltape/runtime';
import { openSqlite } from '../../runtime/sqlite-driver.js';
import { mountReadOnly, mountSmallDisk } from '../support/small-disk.js';
import { tempDir } from '../support/temp-dir.js';

type Driver = NonNullable<SqliteJournalStoreOptions['driver']>;
const DRIVERS: Driver[] = ['node:sqlite', 'better-sqlite3'];

function loads(driver: Driver): boolean {
  try {
    void SqliteJournalStore.open({ path: ':memory:', driver }).close();
    return true;
  } catch {
    return false;
  }
}

const dir = tempDir();

/** Records of about 2 KB each, for run `run-1`. */
function record(n: number): JournalRecord {
  return { id: `record-${n}`, runId: 'run-1', effectKey: `${n}.0.tool`, type: 'start', data: { n, padding: 'x'.repeat(2000) }, at: n };
}

/** Appends until the store refuses; returns what it threw and how many appends it took. */
async function fill(store: SqliteJournalStore, limit = 100_000): Promise<{ error: unknown; stored: number }> {
  for (let n = 1; n <= limit; n++) {
    try {
      await store.append([record(n)]);
    } catch (error) {
      return { error, stored: n - 1 };
    }
  }
  return { error: undefined, stored: limit };
}

function expectFull(error: unknown, path: string, stored: number): void {
  expect(error).toBeInstanceOf(JournalStorageError);
  const failure = error as JournalStorageError;
  expect(failure.code).toBe('journal_full');
  expect([failure.path, failure.problem, failure.operation, failure.sqliteCode, failure.retryable]).toEqual([path, 'full', 'append', 'SQLITE_FULL', false]);
  const [first, next] = failure.message.split('\n');
  expect(first).toMatch(
    new RegExp(
      `^Could not write to the journal at ${path.replaceAll('.', '\\.')} \\(append\\): the disk is full, or the journal reached its maxSizeBytes \\(SQLITE_FULL: database or disk is full\\)\\.$`,
    ),
  );
  expect(next).toBe(
    'Free space on the disk that holds it (or raise maxSizeBytes, or move the journal to a larger disk); then resume the run (runtime.resume): a write that failed was not stored, and nothing after it ran.',
  );
  expect(failure.cause).toBeInstanceOf(Error);
  expect(stored).toBeGreaterThan(3);
}

describe('a journal whose writes are refused', () => {
  for (const driver of DRIVERS) {
    const here = loads(driver);

    test.runIf(here)(`on ${driver}: a journal at its maxSizeBytes fails with journal_full naming the file, and keeps every record it stored`, async () => {
      const path = join(dir, `${driver.replace(':', '-')}.sqlite`);
      const store = SqliteJournalStore.open({ path, driver, maxSizeBytes: 96 * 1024 });
      const { error, stored } = await fill(store);
      expectFull(error, path, stored);
      const read = await store.read('run-1');
      expect(read.map((stored) => stored.position)).toEqual(Array.from({ length: stored }, (_, index) => index + 1));
      // Deleting frees no page past the cap: the store still reads and refuses, and says so again.
      await expect(store.append([record(stored + 1)])).rejects.toMatchObject({ code: 'journal_full' });
      await store.close();
      // Opened again with room, the same file takes the record it refused.
      const roomy = SqliteJournalStore.open({ path, driver });
      expect(await roomy.append([record(stored + 1)])).toEqual(['appended']);
      expect((await roomy.read('run-1')).length).toBe(stored + 1);
      await roomy.close();
    });

    test.runIf(here)(`on ${driver}: a real full disk (a small tmpfs) fails with journal_full naming the file`, async (context) => {
      const disk = mountSmallDisk(256 * 1024);
      if (!disk.mounted) {
        context.skip(disk.reason);
        return;
      }
      try {
        const path = join(disk.dir, 'journal.sqlite');
        const store = SqliteJournalStore.open({ path, driver });
        const { error, stored } = await fill(store);
        expect((error as JournalStorageError).message).toContain(path);
        expect(error).toBeInstanceOf(JournalStorageError);
        expect((error as JournalStorageError).code).toBe('journal_full');
        expect((error as JournalStorageError).sqliteCode).toBe('SQLITE_FULL');
        expect(stored).toBeGreaterThan(3);
        expect((await store.read('run-1')).length).toBe(stored);
        await store.close();
      } finally {
        disk.unmount();
      }
    });

    test.runIf(here)(`on ${driver}: a journal on a read-only mount fails at open with journal_read_only, saying what must be writable`, async (context) => {
      const source = join(dir, `source-${driver.replace(':', '-')}`);
      mkdirSync(source, { recursive: true });
      const writable = SqliteJournalStore.open({ path: join(source, 'journal.sqlite'), driver });
      await writable.append([record(1)]);
      await writable.close();
      const view = mountReadOnly(source);
      if (!view.mounted) {
        context.skip(view.reason);
        return;
      }
      try {
        const path = join(view.dir, 'journal.sqlite');
        let thrown: unknown;
        try {
          SqliteJournalStore.open({ path, driver });
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(JournalStorageError);
        expect((thrown as JournalStorageError).code).toBe('journal_read_only');
        expect((thrown as JournalStorageError).operation).toBe('open');
        expect((thrown as Error).message).toContain(
          `Could not open the journal at ${path} (open): the journal cannot be written (a read-only file, folder or mount)`,
        );
        expect((thrown as Error).message).toContain('SQLite also writes the -wal and -shm files beside it');
      } finally {
        view.unmount();
      }
    });

    test.runIf(here)(`on ${driver}: a write lock held past busyTimeoutMs fails with journal_busy, which the runtime may retry`, async () => {
      const path = join(dir, `busy-${driver.replace(':', '-')}.sqlite`);
      const store = SqliteJournalStore.open({ path, driver, busyTimeoutMs: 30 });
      const holder = openSqlite(path, driver).connection;
      holder.exec('BEGIN IMMEDIATE');
      try {
        const error = await store.append([record(1)]).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(JournalStorageError);
        expect([(error as JournalStorageError).code, (error as JournalStorageError).sqliteCode, (error as JournalStorageError).retryable]).toEqual([
          'journal_busy',
          'SQLITE_BUSY',
          true,
        ]);
        expect((error as Error).message).toContain(
          `Could not write to the journal at ${path} (append): another connection held the journal's write lock past the busy timeout`,
        );
        expect((error as Error).message).toContain('or raise busyTimeoutMs');
      } finally {
        holder.exec('ROLLBACK');
        holder.close();
      }
      expect(await store.append([record(1)])).toEqual(['appended']);
      await store.close();
    });
  }

  test('runs on at least one SQLite driver of this Node (a driver it lacks shows as skipped above)', () => {
    expect(DRIVERS.filter(loads).length).toBeGreaterThan(0);
  });
});
