import { describe, expect, test } from 'vitest';
import { InvalidChoiceError } from '../core/internal.js';
import {
  immediateTransaction,
  openSqlite,
  SqliteDriverMissingError,
  uniqueViolation,
  type SqliteConnection,
  type SqliteDriverLoad,
  type SqliteDriverLoaders,
} from './sqlite-driver.js';

/** A connection that only records the SQL it was given. */
function recordingConnection(failOn?: string): SqliteConnection & { executed: string[] } {
  const executed: string[] = [];
  return {
    executed,
    exec(sql) {
      executed.push(sql);
      if (sql === failOn) throw new Error(`${sql} failed`);
    },
    prepare: () => {
      throw new Error('not used');
    },
    close: () => undefined,
  };
}

function loaders(nodeSqlite: SqliteDriverLoad, betterSqlite3: SqliteDriverLoad): SqliteDriverLoaders & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    'node:sqlite': () => (asked.push('node:sqlite'), nodeSqlite),
    'better-sqlite3': () => (asked.push('better-sqlite3'), betterSqlite3),
  };
}

const available = (connection: SqliteConnection): SqliteDriverLoad => ({ available: true, open: () => connection });
const missing = (reason: string): SqliteDriverLoad => ({ available: false, reason });

describe('openSqlite', () => {
  test('auto takes node:sqlite when this Node has it, and never loads better-sqlite3 then', () => {
    const connection = recordingConnection();
    const found = loaders(available(connection), missing('should not be asked'));
    expect(openSqlite(':memory:', 'auto', found)).toEqual({ connection, driver: 'node:sqlite' });
    expect(found.asked).toEqual(['node:sqlite']);
  });

  test('auto falls back to better-sqlite3', () => {
    const connection = recordingConnection();
    const found = loaders(missing('not in Node v20'), available(connection));
    expect(openSqlite(':memory:', 'auto', found)).toEqual({ connection, driver: 'better-sqlite3' });
    expect(found.asked).toEqual(['node:sqlite', 'better-sqlite3']);
  });

  test('a named driver is the only one tried', () => {
    const found = loaders(available(recordingConnection()), missing('not installed'));
    let thrown: unknown;
    try {
      openSqlite(':memory:', 'better-sqlite3', found);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SqliteDriverMissingError);
    expect((thrown as SqliteDriverMissingError).reasons).toEqual({ 'better-sqlite3': 'not installed' });
    expect(found.asked).toEqual(['better-sqlite3']);
  });

  test('with neither, the error lists why each failed and names the install command', () => {
    expect(() => openSqlite(':memory:', 'auto', loaders(missing('reason one'), missing('reason two')))).toThrow(
      new SqliteDriverMissingError({ 'node:sqlite': 'reason one', 'better-sqlite3': 'reason two' }),
    );
    const error = new SqliteDriverMissingError({ 'node:sqlite': 'reason one', 'better-sqlite3': 'reason two' });
    expect(error.code).toBe('sqlite_driver_missing');
    expect(error.message).toBe(
      `The SQLite journal store has no driver to run on (Node ${process.version}):\n  node:sqlite: reason one\n  better-sqlite3: reason two\n` +
        'Install one with: npm install better-sqlite3@12.11.1, or run on Node 22.13 or later, which has node:sqlite built in.',
    );
  });

  test('an unknown driver name lists the valid ones', () => {
    expect(() => openSqlite(':memory:', 'sqlite3' as 'auto')).toThrow(
      new InvalidChoiceError('SQLite driver', 'sqlite3', ['auto', 'node:sqlite', 'better-sqlite3']),
    );
    expect(() => openSqlite(':memory:', 'sqlite3' as 'auto')).toThrow('Invalid SQLite driver "sqlite3": expected one of auto, node:sqlite, better-sqlite3');
  });
});

describe('immediateTransaction', () => {
  test('takes the write lock first and commits what the work did', () => {
    const connection = recordingConnection();
    expect(immediateTransaction(connection, () => (connection.exec('INSERT 1'), 'done'))).toBe('done');
    expect(connection.executed).toEqual(['BEGIN IMMEDIATE', 'INSERT 1', 'COMMIT']);
  });

  test('rolls back when the work throws, and rethrows its error', () => {
    const connection = recordingConnection();
    const failure = new Error('work failed');
    expect(() =>
      immediateTransaction(connection, () => {
        throw failure;
      }),
    ).toThrow(failure);
    expect(connection.executed).toEqual(['BEGIN IMMEDIATE', 'ROLLBACK']);
  });

  test('rolls back a failed commit; when SQLite already rolled back, the first error is the one reported', () => {
    const commitFails = recordingConnection('COMMIT');
    expect(() => immediateTransaction(commitFails, () => 1)).toThrow('COMMIT failed');
    expect(commitFails.executed).toEqual(['BEGIN IMMEDIATE', 'COMMIT', 'ROLLBACK']);
    const rollbackFails = recordingConnection('ROLLBACK');
    expect(() =>
      immediateTransaction(rollbackFails, () => {
        throw new Error('disk full');
      }),
    ).toThrow('disk full');
  });
});

describe('uniqueViolation', () => {
  test('reads the columns from either driver, and nothing from other errors', () => {
    // As better-sqlite3 and node:sqlite throw them for one partial unique index.
    const better = Object.assign(new Error('UNIQUE constraint failed: records.run_id, records.effect_key'), { code: 'SQLITE_CONSTRAINT_UNIQUE' });
    const node = Object.assign(new Error('UNIQUE constraint failed: records.run_id, records.effect_key'), {
      code: 'ERR_SQLITE_ERROR',
      errcode: 2067,
      errstr: 'constraint failed',
    });
    const primaryKey = Object.assign(new Error('UNIQUE constraint failed: runs.run_id'), { code: 'ERR_SQLITE_ERROR', errcode: 1555 });
    expect([better, node, primaryKey].map(uniqueViolation)).toEqual([
      'records.run_id, records.effect_key',
      'records.run_id, records.effect_key',
      'runs.run_id',
    ]);
    const check = Object.assign(new Error('CHECK constraint failed: type IN (...)'), { code: 'SQLITE_CONSTRAINT_CHECK' });
    expect([check, new Error('UNIQUE constraint failed: t.a'), 'text'].map(uniqueViolation)).toEqual([undefined, undefined, undefined]);
  });
});
