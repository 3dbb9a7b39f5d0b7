import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { checkJournalStore, RunExistsError, SqliteJournalStore, type JournalStore, type SqliteJournalStoreOptions } from 'modeltape/runtime';

type Driver = NonNullable<SqliteJournalStoreOptions['driver']>;
const DRIVERS: Driver[] = ['node:sqlite', 'better-sqlite3'];

// Node 22.13 and later have node:sqlite; better-sqlite3 loads where its addon was built for this
// Node (CI builds it under Node 20, so the Node 22 and 24 legs run on node:sqlite alone).
const hasNodeSqlite = isBuiltin('node:sqlite');

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function journalFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'modeltape-driver-'));
  dirs.push(dir);
  return join(dir, 'journal.sqlite');
}

/** Whether the driver opens here; when not, the error it gave. */
function probe(driver: Driver): { available: true } | { available: false; error: Error & { code?: string } } {
  try {
    SqliteJournalStore.open({ path: ':memory:', driver }).close();
    return { available: true };
  } catch (error) {
    return { available: false, error: error as Error & { code?: string } };
  }
}

describe('SqliteJournalStore on each SQLite driver', () => {
  const probes = new Map(DRIVERS.map((driver) => [driver, probe(driver)] as const));
  const available = DRIVERS.filter((driver) => probes.get(driver)!.available);

  test('node:sqlite is there exactly when this Node has it, and auto prefers it', () => {
    expect(probes.get('node:sqlite')!.available).toBe(hasNodeSqlite);
    expect(available.length).toBeGreaterThan(0);
    const store = SqliteJournalStore.memory();
    expect(store.driver).toBe(hasNodeSqlite ? 'node:sqlite' : 'better-sqlite3');
    void store.close();
  });

  test('a driver this Node cannot load says why and what to do', () => {
    const unavailable = DRIVERS.filter((driver) => !probes.get(driver)!.available);
    for (const driver of unavailable) {
      const { error } = probes.get(driver) as { error: Error & { code?: string } };
      expect(error.name, driver).toBe('SqliteDriverMissingError');
      expect(error.code, driver).toBe('sqlite_driver_missing');
      expect(error.message, driver).toContain('Install one with: npm install better-sqlite3@12.11.1');
      if (driver === 'node:sqlite') expect(error.message).toContain(`  node:sqlite: not in Node ${process.version} (built in from Node 22.13`);
      // Installed as a dev dependency, so here it is there but may be built for another Node.
      else
        expect(error.message).toMatch(
          new RegExp(
            `  better-sqlite3: installed, but it does not load in Node ${process.version.replaceAll('.', '\\.')}: .+ Rebuild it for this Node with: npm rebuild better-sqlite3`,
          ),
        );
    }
    expect(unavailable.length + available.length).toBe(DRIVERS.length);
  });

  // A driver this Node cannot load shows as skipped, never as a pass.
  for (const driver of DRIVERS) {
    test.runIf(available.includes(driver))(`on ${driver}: passes the conformance battery, on a file with two connections and in memory`, async () => {
      const connect = (store: JournalStore) => (store as SqliteJournalStore).connect();
      const file = await checkJournalStore({ open: () => SqliteJournalStore.open({ path: journalFile(), driver }), connect });
      file.assertConforms(`SqliteJournalStore on ${driver} (file)`);
      const memory = await checkJournalStore({ open: () => SqliteJournalStore.open({ path: ':memory:', driver }), connect });
      memory.assertConforms(`SqliteJournalStore on ${driver} (memory)`);
      expect(file.checks.reduce((sum, check) => sum + check.expectations, 0)).toBeGreaterThan(50);
    });

    test.runIf(available.includes(driver))(`on ${driver}: a second connection keeps the driver, and a run created twice is a RunExistsError`, async () => {
      const store = SqliteJournalStore.open({ path: journalFile(), driver });
      const other = store.connect();
      expect([store.driver, other.driver]).toEqual([driver, driver]);
      const run = { runId: 'run-1', agent: 'agent', input: null, status: 'running' as const, result: null, createdAt: 1, updatedAt: 1 };
      await store.createRun(run);
      await expect(other.createRun(run)).rejects.toThrow(RunExistsError);
      expect(await other.getRun('run-1')).toEqual(run);
      await other.close();
      await store.close();
    });

    test.runIf(available.includes(driver))(`on ${driver}: a path in a missing folder is named, with what to check; a text file is no journal`, () => {
      const notADatabase = journalFile();
      writeFileSync(notADatabase, 'a text file, long enough that SQLite reads a header from it and finds none.\n'.repeat(20));
      const path = join(notADatabase, '..', 'absent', 'journal.sqlite');
      let thrown: (Error & { code?: string }) | undefined;
      try {
        SqliteJournalStore.open({ path, driver });
      } catch (error) {
        thrown = error as Error & { code?: string };
      }
      expect(thrown?.code, path).toBe('journal_open_failed');
      const [first, next] = thrown!.message.split('\n');
      expect(first!.startsWith(`Could not open the journal at ${path}: `), first).toBe(true);
      expect(first!.slice(`Could not open the journal at ${path}: `.length)).toMatch(
        /^(Cannot open database because the directory does not exist|unable to open database file)$/,
      );
      expect(next).toBe('Check that its folder exists and is writable, and that the file is a journal.');
      expect(() => SqliteJournalStore.open({ path: notADatabase, driver })).toThrow(
        `Cannot use ${notADatabase} as the journal: it is a text file (1520 bytes, it starts "a text file, long enough that SQLite rea"), not a SQLite file.`,
      );
    });
  }

  test('an unknown driver lists the valid ones', () => {
    expect(() => SqliteJournalStore.open({ path: ':memory:', driver: 'sqlite3' as Driver })).toThrow(
      'Invalid SQLite driver "sqlite3": expected one of auto, node:sqlite, better-sqlite3',
    );
  });
});
