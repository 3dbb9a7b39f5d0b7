import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
  return { available: true, start: () => startServer(bin) };
}

function postgresBin(env: NodeJS.ProcessEnv): string | undefined {
  const candidates: string[] = [];
  if (env.MODELTAPE_PG_BIN) candidates.push(env.MODELTAPE_PG_BIN);
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian))
    candidates.push(
      ...readdirSync(debian)
        .sort((a, b) => Number(b) - Number(a))
        .map((version) => join(debian, version, 'bin')),
    );
  for (const folder of (env.PATH ?? '').split(':')) if (folder !== '') candidates.push(folder);
  return candidates.find((folder) => existsSync(join(folder, 'initdb')) && existsSync(join(folder, 'pg_ctl')));
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// initdb and the server refuse to run as root: as root, they run as the postgres user.
function asServerUser(command: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [command, args];
  return ['runuser', ['-u', 'postgres', '--', command, ...args]];
}

async function startServer(bin: string): Promise<PostgresServer> {
  const dir = mkdtempSync(join(tmpdir(), 'modeltape-pg-'));
  if (process.getuid?.() === 0) {
    // Debian's package creates the postgres user.
    chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'])), Number(execFileSync('id', ['-g', 'postgres'])));
  }
  const data = join(dir, 'data');
  const run = (command: string, args: string[]) => {
    const [file, argv] = asServerUser(join(bin, command), args);
    const result = spawnSync(file, argv, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command} failed (${result.status}): ${result.stderr || result.stdout}`);
  };
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'modeltape', '--no-sync', '-E', 'UTF8']);
  let port = 0;
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    try {
      run('pg_ctl', [
        '-D',
        data,
        '-l',
        join(dir, 'server.log'),
        '-w',
        '-o',
        `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
        'start',
      ]);
      break;
    } catch (error) {
      if (attempt >= 2) throw error;
    }
  }
  return {
    url: `postgresql://modeltape@127.0.0.1:${port}/postgres`,
    stop: async () => {
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** A schema name no other test, file or CI leg uses: `prefix_` and random hex. */
export function freshSchema(prefix: string): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}
