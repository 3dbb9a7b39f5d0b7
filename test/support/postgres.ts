import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe } from 'vitest';
import type { PgPool } from 'modeltape/runtime';
import { postgresBin, startLocalPostgres } from '../../examples/postgres-workers/local-postgres.mjs';

/**
 * A real PostgreSQL server for the journal store's tests:
 * - `MODELTAPE_PG_URL` when it is set (`.ci/run` starts one server for every leg);
 * - else a server of its own, from PostgreSQL's binaries on this machine (`MODELTAPE_PG_BIN`,
 *   Debian's /usr/lib/postgresql/VERSION/bin, or initdb on PATH): initdb into a temporary folder,
 *   listening on a free loopback port, stopped and removed by `stop()`;
 * - else none, with the reason: the tests skip and print it. Under CI a missing server is a
 *   failure, never a skip.
 * Each test gets its own schema on the server, so files and tests never see each other's tables.
 */
export interface PostgresServer {
  url: string;
  stop(): Promise<void>;
}

export type PostgresAvailability = { available: true; start(): Promise<PostgresServer> } | { available: false; reason: string };

export function postgresAvailability(env: NodeJS.ProcessEnv = process.env): PostgresAvailability {
  const given = env.MODELTAPE_PG_URL;
  if (given !== undefined && given !== '') return { available: true, start: async () => ({ url: given, stop: async () => undefined }) };
  const bin = postgresBin(env);
  if (bin === undefined) {
    const reason =
      'no PostgreSQL server: set MODELTAPE_PG_URL to one, or install PostgreSQL (its initdb and pg_ctl are looked for in MODELTAPE_PG_BIN, /usr/lib/postgresql/*/bin and PATH)';
    if (env.CI !== undefined && env.CI !== '' && env.CI !== '0' && env.CI !== 'false')
      throw new Error(`Under CI the PostgreSQL tests must run, and there is ${reason}.`);
    return { available: false, reason };
  }
  return { available: true, start: () => startLocalPostgres(bin) };
}

/** A schema name no other test, file or CI leg uses: `prefix_` and random hex. */
export function freshSchema(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/** A `pg.Pool` of the test's own (for what a test does beside the store: look at tables, end connections), typed as the store takes one. */
export function pgPool(url: string, options: { max?: number; applicationName?: string } = {}): PgPool {
  const { Pool } = createRequire(import.meta.url)('pg') as {
    Pool: new (config: { connectionString: string; max?: number; application_name?: string }) => PgPool;
  };
  const pool = new Pool({
    connectionString: url,
    max: options.max ?? 2,
    ...(options.applicationName === undefined ? {} : { application_name: options.applicationName }),
  });
  pool.on('error', () => undefined);
  return pool;
}

/**
 * A describe block on a real PostgreSQL server: started before its tests (or `MODELTAPE_PG_URL`'s),
 * stopped after them. Without a server it is skipped, saying why; under CI that is a failure.
 * `server()` is the running server, inside the tests and hooks.
 */
export function describeOnPostgres(name: string, body: (server: () => PostgresServer) => void): void {
  const postgres = postgresAvailability();
  if (!postgres.available) process.stderr.write(`skipping "${name}": ${postgres.reason}\n`);
  describe.runIf(postgres.available)(name, () => {
    let server: PostgresServer | undefined;
    beforeAll(async () => {
      if (postgres.available) server = await postgres.start();
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });
    body(() => {
      if (server === undefined) throw new Error('the PostgreSQL server did not start');
      return server;
    });
  });
}
