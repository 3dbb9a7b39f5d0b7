// The one file that loads node-postgres (`pg`), an optional peer dependency: only the PostgreSQL
// journal store needs it, and it is loaded on the first store opened, never on import.
import { createRequire } from 'node:module';
import { ModeltapeError } from '../core/internal.js';

/** The version of `pg` the store is tested with, named in the install hint. */
export const PG_VERSION = '8.23.1';

/** What the store uses of a query's result. */
export interface PgResult<Row = Record<string, unknown>> {
  rows: Row[];
  rowCount: number | null;
}

/** What the store uses of a connection (a `pg.PoolClient`). */
export interface PgClient {
  query<Row = Record<string, unknown>>(text: string, values?: readonly unknown[]): Promise<PgResult<Row>>;
  release(error?: Error | boolean): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * What the store uses of a `pg.Pool`: typed here rather than by @types/pg, so that the published
 * types never name a module the user may not have installed. A user's own `pg.Pool` fits it.
 */
export interface PgPool {
  query<Row = Record<string, unknown>>(text: string, values?: readonly unknown[]): Promise<PgResult<Row>>;
  connect(): Promise<PgClient>;
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

type PoolConstructor = new (config: {
  connectionString: string;
  max?: number;
  application_name?: string;
  keepAlive?: boolean;
  connectionTimeoutMillis?: number;
  query_timeout?: number;
}) => PgPool;

/** `pg` is not installed, or does not load. */
export class PostgresDriverMissingError extends ModeltapeError {
  constructor(reason: string) {
    super('postgres_driver_missing', `The PostgreSQL journal store needs node-postgres, which ${reason}.\nInstall it with: npm install pg@${PG_VERSION}`);
  }
}

let Pool: PoolConstructor | undefined;

/** A pool of connections to `connectionString`, from `pg`, loaded on first use. */
export function openPgPool(connectionString: string, max: number): PgPool {
  Pool ??= loadPool();
  // A silent network partition is found (keepAlive), a server that takes no connections is given
  // up on after 10 s, and a query with no answer after 30 s: each a retryable storage error, so a
  // write never hangs past the lease it was made under for long.
  const pool = new Pool({ connectionString, max, application_name: 'modeltape', keepAlive: true, connectionTimeoutMillis: 10_000, query_timeout: 30_000 });
  // An idle connection the server dropped (a restart, a failover) is reported here; the next
  // query opens another. Without a listener it would take the process down.
  pool.on('error', () => undefined);
  return pool;
}

function loadPool(): PoolConstructor {
  const require = createRequire(import.meta.url);
  try {
    require.resolve('pg');
  } catch {
    throw new PostgresDriverMissingError('is not installed (an optional peer dependency of modeltape)');
  }
  try {
    return (require('pg') as { Pool: PoolConstructor }).Pool;
  } catch (error) {
    throw new PostgresDriverMissingError(`is installed but does not load: ${(error as Error).message}`);
  }
}
