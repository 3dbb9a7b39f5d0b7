import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { excerpt } from '../core/internal.js';
import { JournalFileError, JournalStorageError, type JournalStorageProblem } from './errors.js';
import { sqliteCode, type SqliteConnection } from './sqlite-driver.js';

/** The journal's schema version, kept in SQLite's `user_version`: 0 is a journal from before it was kept. */
export const JOURNAL_SCHEMA_VERSION = 1;

/** The tables a journal holds; `runs` and `records` are in every journal ever written. */
export const JOURNAL_TABLES = ['runs', 'records', 'backstop', 'leases', 'approvals'] as const;

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Looks at the file's first bytes before any driver opens it, so that a file that is not SQLite
 * (a text file, a tape, random bytes) or a truncated one is refused at open, untouched, saying
 * what it is. A missing or empty file is a new journal.
 */
export function inspectJournalFile(path: string): void {
  if (path === ':memory:' || path === '') return;
  // Another connection may be checkpointing while this looks: the header can already count pages
  // the file is still being extended with, and the WAL can be emptied in between. A truncated file
  // stays truncated, so only one that looks truncated several times over is refused.
  for (let look = 1; ; look++) {
    const truncated = truncation(path);
    if (truncated === undefined) return;
    if (look === 5) throw new JournalFileError(path, 'corrupt', truncated);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10 * look);
  }
}

// What the file's first bytes say is wrong with it as a truncated file, or undefined when nothing is;
// a file that is not SQLite at all is refused here.
function truncation(path: string): string | undefined {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return undefined; // absent: SQLite creates it (or says why it cannot)
  }
  if (size === 0) return undefined;
  const head = Buffer.alloc(Math.min(size, 65536));
  const descriptor = openSync(path, 'r');
  try {
    readSync(descriptor, head, 0, head.length, 0);
  } finally {
    closeSync(descriptor);
  }
  if (head.length < 100 || !head.subarray(0, 16).equals(SQLITE_HEADER)) {
    throw new JournalFileError(path, 'not_sqlite', describeBytes(head, size));
  }
  const rawPageSize = head.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  const pages = head.readUInt32BE(28);
  // The page count in the header is only valid when its version number matches the change counter.
  const countValid = head.readUInt32BE(92) === head.readUInt32BE(24) && pages > 0;
  // A write-ahead log or a hot rollback journal may hold pages the main file does not have yet.
  const pending = [`${path}-wal`, `${path}-journal`].some((companion) => {
    try {
      return statSync(companion).size > 0;
    } catch {
      return false;
    }
  });
  if (!countValid || pending || pages * pageSize <= size) return undefined;
  return `a truncated SQLite file: its header declares ${pages} pages of ${pageSize} bytes (${pages * pageSize} bytes) and the file holds ${size}`;
}

/**
 * After the driver opened the file: a database with tables that are not a journal's, or a journal
 * of a newer schema, is refused before anything is written to it. An empty database is a new journal.
 */
export function checkJournalSchema(connection: SqliteConnection, path: string): void {
  const tables = (
    connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name").all() as Array<{
      name: string;
    }>
  ).map((row) => row.name);
  const version = (connection.prepare('PRAGMA user_version').get() as { user_version: number }).user_version;
  if (tables.length === 0 && version === 0) return;
  const foreign = tables.filter((table) => !(JOURNAL_TABLES as readonly string[]).includes(table));
  if (foreign.length > 0 || !tables.includes('runs') || !tables.includes('records')) {
    const listed = tables.length === 0 ? 'no tables' : `tables ${tables.slice(0, 8).join(', ')}${tables.length > 8 ? `, … (${tables.length})` : ''}`;
    throw new JournalFileError(path, 'not_a_journal', `a SQLite database that is not a journal (${listed}; a journal holds ${JOURNAL_TABLES.join(', ')})`);
  }
  if (version > JOURNAL_SCHEMA_VERSION) {
    throw new JournalFileError(
      path,
      'newer_schema',
      `a journal of schema version ${version}, written by a newer modeltape (this one reads up to version ${JOURNAL_SCHEMA_VERSION})`,
    );
  }
}

/**
 * A driver's error as the journal's own: a storage failure (full, read-only, I/O, busy) as a
 * {@link JournalStorageError}, damage as a {@link JournalFileError}; anything else is returned as it is.
 */
export function journalFailure(error: unknown, path: string, operation: string): unknown {
  const code = sqliteCode(error);
  // A journal that exists and cannot be opened: SQLite could not create its -wal or -shm file
  // beside it (a read-only folder or mount). A missing folder is the caller's to explain.
  const unopenable = code === 'SQLITE_CANTOPEN' && operation === 'open' && existsSync(path);
  const problem: JournalStorageProblem | undefined =
    code === 'SQLITE_FULL'
      ? 'full'
      : code === 'SQLITE_READONLY' || code === 'SQLITE_PERM' || unopenable
        ? 'read_only'
        : code === 'SQLITE_IOERR'
          ? 'io'
          : code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED'
            ? 'busy'
            : undefined;
  if (problem !== undefined) return new JournalStorageError(path, problem, operation, code!, error);
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB')
    return new JournalFileError(path, 'corrupt', `a damaged SQLite file (${code}: ${(error as Error).message})`, error);
  return error;
}

/** What a file that is not SQLite looks like, for the message. */
function describeBytes(head: Buffer, size: number): string {
  const bytes = `${size} byte${size === 1 ? '' : 's'}`;
  if (head[0] === 0x1f && head[1] === 0x8b) return `a gzip file (${bytes}), not a SQLite file`;
  // A character cut at the end of what was read is not a sign of binary data.
  const text = head.subarray(0, size > head.length ? head.length - 3 : head.length).toString('utf8');
  const isText = !text.includes('\uFFFD') && !/[\u0000-\u0008\u000e-\u001f]/.test(text);
  if (!isText)
    return `${bytes} of binary data that is not SQLite (it starts ${[...head.subarray(0, 8)].map((byte) => byte.toString(16).padStart(2, '0')).join(' ')}; a SQLite file starts "SQLite format 3")`;
  const firstLine = text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)[0]!
    .trim();
  if (looksLikeTapeLine(firstLine))
    return `a modeltape tape (JSONL, ${bytes}): a tape is what replay and the proxy read, and the runtime's journal is a SQLite file of its own`;
  if (firstLine.startsWith('{') || firstLine.startsWith('['))
    return `a JSON or JSONL text file (${bytes}, it starts ${JSON.stringify(excerpt(firstLine, 40, ''))}), not a SQLite file`;
  return `a text file (${bytes}, it starts ${JSON.stringify(excerpt(firstLine, 40, ''))}), not a SQLite file`;
}

function looksLikeTapeLine(line: string): boolean {
  try {
    const value = JSON.parse(line) as unknown;
    return typeof value === 'object' && value !== null && ('schemaVersion' in value || ('key' in value && 'request' in value));
  } catch {
    return false;
  }
}
