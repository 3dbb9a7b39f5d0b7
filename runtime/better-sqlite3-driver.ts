// The one file that loads better-sqlite3, an optional peer dependency: only the journal store
// needs it, and only on a Node without node:sqlite.
import { createRequire } from 'node:module';
import type { SqliteConnection, SqliteDriverLoad } from './sqlite-connection.js';

/** The version of better-sqlite3 the store is tested with, named in the install hint. */
export const BETTER_SQLITE3_VERSION = '12.11.1';

// Typed here rather than by @types/better-sqlite3, so that the published types never name a
// module the user may not have installed.
type BetterSqlite3 = new (path: string) => SqliteConnection;

let loaded: SqliteDriverLoad | undefined;

/**
 * better-sqlite3 when it is installed and its native addon loads in this Node (an addon built
 * for another Node version does not). Loaded once, on the first store opened without node:sqlite.
 */
export function loadBetterSqlite3(): SqliteDriverLoad {
  loaded ??= load();
  return loaded;
}

function load(): SqliteDriverLoad {
  const require = createRequire(import.meta.url);
  try {
    require.resolve('better-sqlite3');
  } catch {
    return { available: false, reason: 'not installed (an optional peer dependency of modeltape)' };
  }
  try {
    const Database = require('better-sqlite3') as BetterSqlite3;
    // The addon loads on the first connection, not on require: open one to know it works here.
    new Database(':memory:').close();
    return { available: true, open: (path) => new Database(path) };
  } catch (error) {
    const why = (error as Error).message.replace(/\s*\n\s*/g, ' ').replace(/\.?$/, '.');
    return {
      available: false,
      reason: `installed, but it does not load in Node ${process.version}: ${why} Rebuild it for this Node with: npm rebuild better-sqlite3`,
    };
  }
}
