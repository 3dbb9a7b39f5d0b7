import { copyFileSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { JournalFileError, JOURNAL_SCHEMA_VERSION, SqliteJournalStore, type JournalRecord, type SqliteJournalStoreOptions } from 'modeltape/runtime';
import { openSqlite } from '../../runtime/sqlite-driver.js';
import { tempDir } from '../support/temp-dir.js';

type Driver = NonNullable<SqliteJournalStoreOptions['driver']>;
const DRIVERS: Driver[] = ['node:sqlite', 'better-sqlite3'];
const TAPE = fileURLToPath(new URL('../../examples/tapes/weather.jsonl', import.meta.url));

function loads(driver: Driver): boolean {
  try {
    void SqliteJournalStore.open({ path: ':memory:', driver }).close();
    return true;
  } catch {
    return false;
  }
}

const dir = tempDir();

function record(n: number): JournalRecord {
  return { id: `record-${n}`, runId: 'run-1', effectKey: `${n}.0.tool`, type: 'start', data: { n, padding: 'x'.repeat(3000) }, at: n };
}

/** A journal of 60 records, closed (its write-ahead log checkpointed into the file). */
async function journal(path: string, driver: Driver): Promise<string> {
  const store = SqliteJournalStore.open({ path, driver });
  for (let n = 1; n <= 60; n++) await store.append([record(n)]);
  await store.close();
  return path;
}

/** Bytes from a fixed seed (xorshift), never starting like SQLite. */
function randomBytes(length: number, seed: number): Buffer {
  const bytes = Buffer.alloc(length);
  let state = seed >>> 0 || 1;
  for (let index = 0; index < length; index++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[index] = state & 0xff;
  }
  bytes[0] = 0x00;
  return bytes;
}

/** Opens `path` as a journal, expecting a JournalFileError; the file must be left byte for byte as it was. */
function refusal(path: string, driver: Driver): JournalFileError {
  const before = readFileSync(path);
  let thrown: unknown;
  try {
    SqliteJournalStore.open({ path, driver });
  } catch (error) {
    thrown = error;
  }
  expect(thrown, path).toBeInstanceOf(JournalFileError);
  expect(readFileSync(path).equals(before), `${path} is left as it was`).toBe(true);
  const error = thrown as JournalFileError;
  expect(error.path).toBe(path);
  expect(error.message.startsWith(`Cannot use ${path} as the journal: it is ${error.found}. It was left as it was.\n`), error.message).toBe(true);
  expect(error.code).toBe(`journal_${error.problem}`);
  return error;
}

describe('a file that is not a journal', () => {
  for (const driver of DRIVERS) {
    const here = loads(driver);
    const named = (name: string): string => join(dir, `${driver.replace(':', '-')}-${name}`);

    test.runIf(here)(`on ${driver}: random bytes, a text file and a tape are refused at open as not SQLite, saying what each is`, () => {
      const random = named('random.sqlite');
      writeFileSync(random, randomBytes(8192, 7));
      const text = named('notes.sqlite');
      writeFileSync(text, 'Meeting notes\nThe journal should live in journal.sqlite.\n');
      const tape = named('weather.jsonl');
      copyFileSync(TAPE, tape);
      const errors = [refusal(random, driver), refusal(text, driver), refusal(tape, driver)];
      expect(errors.map((error) => error.problem)).toEqual(['not_sqlite', 'not_sqlite', 'not_sqlite']);
      expect(errors[0]!.found).toBe(
        '8192 bytes of binary data that is not SQLite (it starts 00 ' +
          randomBytes(8192, 7).subarray(1, 8).toString('hex').match(/../g)!.join(' ') +
          '; a SQLite file starts "SQLite format 3")',
      );
      expect(errors[1]!.found).toBe(`a text file (${readFileSync(text).length} bytes, it starts "Meeting notes"), not a SQLite file`);
      expect(errors[2]!.found).toBe(
        `a modeltape tape (JSONL, ${readFileSync(tape).length} bytes): a tape is what replay and the proxy read, and the runtime's journal is a SQLite file of its own`,
      );
      for (const error of errors)
        expect(error.message.split('\n')[1]).toBe(
          'A journal is a SQLite file the runtime creates: pass the path of a journal, or a path where no file exists yet to start one.',
        );
    });

    test.runIf(here)(`on ${driver}: a truncated journal is refused at open as corrupt, not at a later query`, async () => {
      const path = await journal(named('truncated.sqlite'), driver);
      const size = readFileSync(path).length;
      truncateSync(path, Math.floor(size / 2 / 4096) * 4096);
      const error = refusal(path, driver);
      expect(error.problem).toBe('corrupt');
      expect(error.found).toMatch(/^a truncated SQLite file: its header declares \d+ pages of 4096 bytes \(\d+ bytes\) and the file holds \d+$/);
      expect(error.message.split('\n')[1]).toBe(
        `Restore it from a backup, or salvage what SQLite can read (sqlite3 ${path} .recover), or move it aside to start a new journal (its runs are then lost).`,
      );
    });

    test.runIf(here)(`on ${driver}: a journal damaged inside its schema page is refused at open as corrupt`, async () => {
      const path = await journal(named('damaged.sqlite'), driver);
      const bytes = readFileSync(path);
      // Overwrite page 1 past its 100-byte header: the schema table SQLite reads first.
      randomBytes(3000, 11).copy(bytes, 200);
      writeFileSync(path, bytes);
      const error = refusal(path, driver);
      expect(error.problem).toBe('corrupt');
      expect(error.found).toMatch(/^a damaged SQLite file \(SQLITE_(CORRUPT|NOTADB): .+\)$/);
    });

    test.runIf(here)(`on ${driver}: another application's SQLite database is refused, and no journal table is added to it`, () => {
      const path = named('shop.sqlite');
      const connection = openSqlite(path, driver).connection;
      connection.exec(
        "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); CREATE TABLE orders (id INTEGER PRIMARY KEY); INSERT INTO customers (name) VALUES ('Ada')",
      );
      connection.close();
      const error = refusal(path, driver);
      expect(error.problem).toBe('not_a_journal');
      expect(error.found).toBe(
        'a SQLite database that is not a journal (tables customers, orders; a journal holds runs, records, backstop, leases, approvals)',
      );
      expect(error.message.split('\n')[1]).toBe(
        'Pass the path of a journal, or a path where no file exists yet to start one; the runtime does not add its tables to another database.',
      );
      // A database mixing a journal's tables with others' is not a journal either.
      const mixed = openSqlite(path, driver).connection;
      mixed.exec('CREATE TABLE runs (run_id TEXT PRIMARY KEY); CREATE TABLE records (id TEXT PRIMARY KEY)');
      mixed.close();
      expect(refusal(path, driver).found).toBe(
        'a SQLite database that is not a journal (tables customers, orders, records, runs; a journal holds runs, records, backstop, leases, approvals)',
      );
    });

    test.runIf(here)(`on ${driver}: a journal of a newer schema is refused; a journal from before versions were kept opens and is stamped`, async () => {
      const newer = await journal(named('newer.sqlite'), driver);
      const connection = openSqlite(newer, driver).connection;
      expect((connection.prepare('PRAGMA user_version').get() as { user_version: number }).user_version).toBe(JOURNAL_SCHEMA_VERSION);
      connection.exec(`PRAGMA user_version = ${JOURNAL_SCHEMA_VERSION + 1}`);
      connection.close();
      const error = refusal(newer, driver);
      expect(error.problem).toBe('newer_schema');
      expect(error.found).toBe(
        `a journal of schema version ${JOURNAL_SCHEMA_VERSION + 1}, written by a newer modeltape (this one reads up to version ${JOURNAL_SCHEMA_VERSION})`,
      );
      expect(error.message.split('\n')[1]).toBe('Upgrade modeltape to the version that wrote it, or open another journal.');

      const legacy = await journal(named('legacy.sqlite'), driver);
      const unstamped = openSqlite(legacy, driver).connection;
      unstamped.exec('PRAGMA user_version = 0');
      unstamped.close();
      const store = SqliteJournalStore.open({ path: legacy, driver });
      expect((await store.read('run-1')).length).toBe(60);
      await store.close();
      const stamped = openSqlite(legacy, driver).connection;
      expect((stamped.prepare('PRAGMA user_version').get() as { user_version: number }).user_version).toBe(JOURNAL_SCHEMA_VERSION);
      stamped.close();
    });

    test.runIf(here)(`on ${driver}: a missing file and an empty file are new journals`, async () => {
      const empty = named('empty.sqlite');
      writeFileSync(empty, '');
      for (const path of [named('absent.sqlite'), empty]) {
        const store = SqliteJournalStore.open({ path, driver });
        expect(await store.append([record(1)])).toEqual(['appended']);
        await store.close();
      }
    });
  }

  test('runs on at least one SQLite driver of this Node (a driver it lacks shows as skipped above)', () => {
    expect(DRIVERS.filter(loads).length).toBeGreaterThan(0);
  });
});
