// The one file that loads node:sqlite.
import type { SqliteConnection, SqliteDriverLoad } from './sqlite-connection.js';

// @types/node 20 has no node:sqlite: the part the store uses, as Node 22 and 24 document it.
interface NodeSqlite {
  DatabaseSync: new (path: string) => SqliteConnection;
}

/**
 * node:sqlite's `DatabaseSync`, when this Node has it: built in and unflagged from Node 22.13,
 * behind `--experimental-sqlite` from 22.5, absent from Node 20.
 */
export function loadNodeSqlite(): SqliteDriverLoad {
  loaded ??= load();
  return loaded;
}

let loaded: SqliteDriverLoad | undefined;

function load(): SqliteDriverLoad {
  const sqlite = withoutSqliteWarning(() => process.getBuiltinModule('node:sqlite') as NodeSqlite | undefined);
  if (sqlite === undefined)
    return { available: false, reason: `not in Node ${process.version} (built in from Node 22.13; 22.5 to 22.12 need --experimental-sqlite)` };
  return { available: true, open: (path) => new sqlite.DatabaseSync(path) };
}

/**
 * Runs `load` with Node's one-time "SQLite is an experimental feature" warning (Node 22) kept
 * off the user's stderr: the store chose the driver, not the user, so the warning would only
 * alarm. Every other warning passes, and `process.emitWarning` is itself again before this
 * returns (Node calls it synchronously while loading the module).
 */
function withoutSqliteWarning<T>(load: () => T): T {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]): void {
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    const text = typeof warning === 'string' ? warning : warning.message;
    if (type === 'ExperimentalWarning' && text.startsWith('SQLite is an experimental feature')) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return load();
  } finally {
    process.emitWarning = emitWarning;
  }
}
