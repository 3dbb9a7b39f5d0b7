// A PostgreSQL server of its own, from the PostgreSQL binaries on this machine, for the journal
// store's tests and the workers demo: initdb into a temporary folder, a free loopback port,
// trust authentication for the one local user, stopped and removed by stop(). Debian's packages put
// the binaries under /usr/lib/postgresql/VERSION/bin; MODELTAPE_PG_BIN names another folder.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The folder holding initdb and pg_ctl, or undefined when this machine has none. */
export function postgresBin(env = process.env) {
  const candidates = [];
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

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts a server from the binaries in `bin`; resolves with its URL and how to stop it. */
export async function startLocalPostgres(bin) {
  const dir = mkdtempSync(join(tmpdir(), 'modeltape-pg-'));
  // initdb and the server refuse to run as root: as root, they run as the postgres user Debian's package creates.
  const root = process.getuid?.() === 0;
  if (root) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'])), Number(execFileSync('id', ['-g', 'postgres'])));
  const data = join(dir, 'data');
  const run = (command, args) => {
    const [file, argv] = root ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]] : [join(bin, command), args];
    const result = spawnSync(file, argv, { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command} failed (${result.status}): ${result.stderr || result.stdout}`);
  };
  try {
    run('initdb', ['-D', data, '-A', 'trust', '-U', 'modeltape', '--no-sync', '-E', 'UTF8']);
    for (let attempt = 0; ; attempt++) {
      const port = await freePort();
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
      } catch (error) {
        // Another process took the port between the look and the listen.
        if (attempt >= 2) throw error;
      }
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
