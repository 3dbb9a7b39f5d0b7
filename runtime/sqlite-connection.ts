// The part of a SQLite driver's API the journal store uses, apart from the driver files so that
// they and the loader in sqlite-driver.ts import it without importing each other.

/** A value SQLite binds: what the store passes as parameters. */
export type SqliteValue = string | number | null;

/** A prepared statement: the part of the API both drivers share. */
export interface SqliteStatement {
  run(...parameters: SqliteValue[]): { changes: number | bigint };
  get(...parameters: SqliteValue[]): unknown;
  all(...parameters: SqliteValue[]): unknown[];
}

/** One connection: the part of the API both drivers share. */
export interface SqliteConnection {
  /** Runs one or more statements, ignoring any rows (schema, pragmas, BEGIN/COMMIT). */
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  close(): void;
}

/** What a driver file gives: a way to open a connection, or why it cannot. */
export type SqliteDriverLoad = { available: true; open(path: string): SqliteConnection } | { available: false; reason: string };
