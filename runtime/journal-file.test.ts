import { describe, expect, test } from 'vitest';
import { JournalFileError, JournalStorageError } from './errors.js';
import { journalFailure } from './journal-file.js';

// Errors as each driver throws them: better-sqlite3 names the extended code; node:sqlite gives its number.
const better = (code: string, message: string): Error => Object.assign(new Error(message), { code });
const node = (errcode: number, message: string): Error => Object.assign(new Error(message), { code: 'ERR_SQLITE_ERROR', errcode, errstr: message });

describe('journalFailure', () => {
  test('names every storage failure of either driver as the journal’s own, with the file and what to do', () => {
    const cases: Array<[Error, string, string, boolean]> = [
      [better('SQLITE_FULL', 'database or disk is full'), 'journal_full', 'SQLITE_FULL', false],
      [node(13, 'database or disk is full'), 'journal_full', 'SQLITE_FULL', false],
      [better('SQLITE_IOERR_WRITE', 'disk I/O error'), 'journal_io_error', 'SQLITE_IOERR', true],
      [node(778, 'disk I/O error'), 'journal_io_error', 'SQLITE_IOERR', true],
      [better('SQLITE_READONLY', 'attempt to write a readonly database'), 'journal_read_only', 'SQLITE_READONLY', false],
      [node(8, 'attempt to write a readonly database'), 'journal_read_only', 'SQLITE_READONLY', false],
      [better('SQLITE_BUSY', 'database is locked'), 'journal_busy', 'SQLITE_BUSY', true],
      [node(5, 'database is locked'), 'journal_busy', 'SQLITE_BUSY', true],
    ];
    for (const [error, code, sqliteCode, retryable] of cases) {
      const failure = journalFailure(error, '/data/journal.sqlite', 'append') as JournalStorageError;
      expect(failure, `${error.message} ${String((error as { errcode?: number }).errcode ?? '')}`).toBeInstanceOf(JournalStorageError);
      expect([failure.code, failure.sqliteCode, failure.retryable, failure.cause]).toEqual([code, sqliteCode, retryable, error]);
      expect(failure.message).toContain(`Could not write to the journal at /data/journal.sqlite (append): `);
      expect(failure.message).toContain(`(${sqliteCode}: ${error.message}).\n`);
      expect(failure.message.endsWith('then resume the run (runtime.resume): a write that failed was not stored, and nothing after it ran.')).toBe(true);
    }
    expect((journalFailure(better('SQLITE_IOERR_READ', 'disk I/O error'), '/data/journal.sqlite', 'read') as Error).message).toMatch(
      /^Could not read the journal at \/data\/journal\.sqlite \(read\): the disk or file system reported an I\/O error/,
    );
  });

  test('names damage as corrupt, and leaves every other error as it was', () => {
    expect(journalFailure(better('SQLITE_CORRUPT', 'database disk image is malformed'), '/j.sqlite', 'read')).toEqual(
      new JournalFileError('/j.sqlite', 'corrupt', 'a damaged SQLite file (SQLITE_CORRUPT: database disk image is malformed)'),
    );
    expect((journalFailure(node(26, 'file is not a database'), '/j.sqlite', 'open') as JournalFileError).problem).toBe('corrupt');
    const others = [better('SQLITE_CONSTRAINT_CHECK', 'CHECK constraint failed'), new Error('not SQLite'), 'text'];
    for (const other of others) expect(journalFailure(other, '/j.sqlite', 'append')).toBe(other);
  });
});
