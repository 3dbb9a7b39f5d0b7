import { ModeltapeError, checkChoice } from '../core/internal.js';
import { BETTER_SQLITE3_VERSION, loadBetterSqlite3 } from './better-sqlite3-driver.js';
import { loadNodeSqlite } from './node-sqlite-driver.js';
import type { SqliteConnection, SqliteDriverLoad } from './sqlite-connection.js';

export type { SqliteConnection, SqliteDriverLoad, SqliteStatement, SqliteValue } from './sqlite-connection.js';

/** The SQLite drivers the journal store runs on, in the order `'auto'` tries them. */
export const SQLITE_DRIVERS = ['node:sqlite', 'better-sqlite3'] as const;
export type SqliteDriverName = (typeof SQLITE_DRIVERS)[number];

/** How the store finds its drivers; tests pass their own to see every outcome. */
export type SqliteDriverLoaders = Record<SqliteDriverName, () => SqliteDriverLoad>;

const LOADERS: SqliteDriverLoaders = { 'node:sqlite': loadNodeSqlite, 'better-sqlite3': loadBetterSqlite3 };

/** No SQLite driver could be loaded. The message says what was tried and what to install. */
export class SqliteDriverMissingError extends ModeltapeError {
  /** Why each driver tried could not be used. */
  readonly reasons: Partial<Record<SqliteDriverName, string>>;
  constructor(reasons: Partial<Record<SqliteDriverName, string>>) {
    const tried = Object.entries(reasons).map(([name, reason]) => `  ${name}: ${reason}`);
    super(
      'sqlite_driver_missing',
      `The SQLite journal store has no driver to run on (Node ${process.version}):\n${tried.join('\n')}\n` +
        `Install one with: npm install better-sqlite3@${BETTER_SQLITE3_VERSION}, or run on Node 22.13 or later, which has node:sqlite built in.`,
    );
    this.reasons = reasons;
  }
}

/**
 * Opens a connection with the named driver, or with the first available one for `'auto'`
 * (node:sqlite where this Node has it, else better-sqlite3). Drivers are loaded here, on the
 * first open, never when a module is imported: a user of the replay, the proxy or the fake never
 * loads one, and better-sqlite3 is an optional peer dependency.
 */
export function openSqlite(
  path: string,
  driver: SqliteDriverName | 'auto' = 'auto',
  loaders: SqliteDriverLoaders = LOADERS,
): { connection: SqliteConnection; driver: SqliteDriverName } {
  const chosen = checkChoice('SQLite driver', driver, ['auto', ...SQLITE_DRIVERS]);
  const reasons: Partial<Record<SqliteDriverName, string>> = {};
  for (const name of chosen === 'auto' ? SQLITE_DRIVERS : [chosen]) {
    const load = loaders[name]();
    if (load.available) return { connection: load.open(path), driver: name };
    reasons[name] = load.reason;
  }
  throw new SqliteDriverMissingError(reasons);
}

/**
 * Runs `work` in one `BEGIN IMMEDIATE` transaction: the write lock is taken at the start (waiting
 * up to the busy timeout), so nothing another connection commits lands in between. Commits what
 * `work` did, or rolls it all back when it throws.
 */
export function immediateTransaction<T>(connection: SqliteConnection, work: () => T): T {
  connection.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    connection.exec('COMMIT');
    return result;
  } catch (error) {
    // A failed COMMIT leaves the transaction open. After an error SQLite already rolled back
    // (SQLITE_FULL, SQLITE_IOERR) ROLLBACK itself fails: the first error is the one to report.
    try {
      connection.exec('ROLLBACK');
    } catch {
      // already rolled back
    }
    throw error;
  }
}

/**
 * The columns a UNIQUE or PRIMARY KEY constraint refused, as SQLite names them
 * (`records.run_id, records.effect_key`), or undefined for any other error. Both drivers pass
 * SQLite's own message through; the code says which constraint (better-sqlite3: `code`
 * `SQLITE_CONSTRAINT_UNIQUE`; node:sqlite: `errcode` 2067, and 1555 for a primary key).
 */
export function uniqueViolation(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  const constraint = code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || errcode === 2067 || errcode === 1555;
  if (!constraint) return undefined;
  return /^UNIQUE constraint failed: (.+)$/.exec(error.message)?.[1];
}

// SQLite's primary result codes by number, as node:sqlite reports them (`errcode`, the extended
// code: its low byte is the primary one).
const PRIMARY_CODES: Record<number, string> = {
  3: 'SQLITE_PERM',
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  8: 'SQLITE_READONLY',
  10: 'SQLITE_IOERR',
  11: 'SQLITE_CORRUPT',
  13: 'SQLITE_FULL',
  14: 'SQLITE_CANTOPEN',
  26: 'SQLITE_NOTADB',
};

/**
 * The primary SQLite result code of a driver's error (`SQLITE_FULL`, `SQLITE_IOERR`, …), or
 * undefined for an error that is not SQLite's. better-sqlite3 gives the extended code as `code`
 * (`SQLITE_IOERR_WRITE`); node:sqlite gives it as the number `errcode`.
 */
export function sqliteCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  if (typeof errcode === 'number') return PRIMARY_CODES[errcode & 0xff] ?? `SQLITE_${errcode & 0xff}`;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return undefined;
  const primary = Object.values(PRIMARY_CODES).find((name) => code === name || code.startsWith(`${name}_`));
  return primary ?? code;
}
