// Runs inside the network namespace `modeltape run --network namespace` puts a replay in, as the
// namespace's first process: it brings the namespace's own loopback up, listens on it for each
// port the run lets through (the proxy's, and each --allow-port), relays each connection to a
// Unix socket of the parent's (a socket file crosses network namespaces; nothing else does), then
// runs the command and exits as it did. Node's own modules only, like the rest of guard/.
//
//   node namespace-relay.js SPEC_JSON CMD [ARG]…
//   SPEC_JSON: { "ip": "/usr/sbin/ip", "relays": [{ "port": 41234, "socket": "/tmp/…/41234.sock" }] }
import { spawn, spawnSync } from 'node:child_process';
import { connect, createServer, type Server } from 'node:net';
import { constants } from 'node:os';
import { NAMESPACE_SETUP_FAILED } from './namespace-relay-path.js';

interface RelaySpec {
  ip: string;
  relays: Array<{ port: number; socket: string }>;
}

function fail(message: string): never {
  process.stderr.write(`modeltape: the network namespace could not be set up: ${message}\n`);
  process.exit(NAMESPACE_SETUP_FAILED);
}

// Listens on the namespace's loopback (IPv4, and IPv6 where the namespace has it) for one port.
async function listenOn(port: number, socket: string): Promise<Server[]> {
  const servers: Server[] = [];
  for (const host of ['127.0.0.1', '::1']) {
    const server = createServer((client) => {
      const parent = connect(socket);
      client.pipe(parent).pipe(client);
      const close = (): void => {
        client.destroy();
        parent.destroy();
      };
      client.on('error', close);
      parent.on('error', close);
    });
    const listened = await new Promise<boolean>((resolve) => {
      server.once('error', (error) => {
        // No IPv6 in this namespace: IPv4 is enough.
        if (host === '::1') resolve(false);
        else fail(`could not listen on ${host}:${port} (${(error as Error).message})`);
      });
      server.listen(port, host, () => resolve(true));
    });
    if (listened) servers.push(server);
  }
  return servers;
}

async function main(): Promise<void> {
  const [specText, file, ...args] = process.argv.slice(2);
  if (specText === undefined || file === undefined) fail('usage: namespace-relay.js SPEC_JSON CMD [ARG]…');
  const spec = JSON.parse(specText) as RelaySpec;
  const up = spawnSync(spec.ip, ['link', 'set', 'lo', 'up'], { encoding: 'utf8' });
  if (up.status !== 0) fail(`${spec.ip} link set lo up: ${(up.stderr || up.error?.message || `exit ${up.status}`).trim()}`);
  const servers = (await Promise.all(spec.relays.map((relay) => listenOn(relay.port, relay.socket)))).flat();
  const child = spawn(file, args, { stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, forward(signal));
  child.once('error', (error) => {
    process.stderr.write(`modeltape: could not start ${JSON.stringify(file)}: ${error.message}\n`);
    process.exit(127);
  });
  child.once('exit', (code, signal) => {
    for (const server of servers) server.close();
    if (signal !== null) process.exit(128 + (constants.signals[signal] ?? 0));
    process.exit(code ?? 1);
  });
}

void main();
