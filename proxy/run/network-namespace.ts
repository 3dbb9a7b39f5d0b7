// A replay's command in a network namespace of its own (Linux): the kernel, not the guard, keeps
// every process of it off the network, whatever the process does (an IP literal, `env -i`, Python,
// UDP). The namespace has only its own loopback; the proxy, and each port the run lets through,
// reach it through a relay (guard/namespace-relay.ts inside, a Unix socket per port outside).
import { spawnSync } from 'node:child_process';
import { accessSync, constants as fs } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { ModeltapeError } from '../../core/internal.js';
import { NAMESPACE_RELAY_PATH } from '../../guard/internal.js';

/**
 * What keeps a replay's command off the network:
 * - `guard`: the guard preloaded into every Node process (and the proxy for HTTP clients of other
 *   languages); it sees what Node does, not what every process can do (docs/cli-offline.md lists what).
 * - `namespace`: the command runs in a network namespace with only its own loopback, where the
 *   proxy and the `--allow-port` ports are relayed; the guard still runs inside. Refused where the
 *   namespace is not available (not Linux, user namespaces refused, no `unshare` or `ip`).
 * - `namespace-or-guard`: the namespace where it is available, else the guard, saying why.
 */
export const NETWORK_ISOLATIONS = ['guard', 'namespace', 'namespace-or-guard'] as const;
export type NetworkIsolation = (typeof NETWORK_ISOLATIONS)[number];

/**
 * What keeps a replayed command off the network, and the local ports a network namespace lets
 * through besides the proxy's (a CI's database). Other runs ignore it.
 */
export interface NetworkOptions {
  isolation: NetworkIsolation;
  allowPorts: readonly number[];
  /**
   * The absolute path of the `unshare` program (util-linux) that makes the namespace, where it is
   * not in one of the usual places (NixOS, a tool folder); the CLI takes it from `MODELTAPE_UNSHARE`.
   * @default the first of /usr/bin/unshare, /bin/unshare, /usr/sbin/unshare, /sbin/unshare
   */
  unshare?: string;
}

/** Which layer kept a replay offline. */
export type OfflineLayer = { layer: 'namespace'; allowedPorts: number[] } | { layer: 'guard'; fellBackBecause?: string };

/** The namespace the command runs in: its argv in front of the command, and the relays to close after. */
export interface PreparedNamespace {
  wrap(command: readonly string[]): string[];
  close(): Promise<void>;
}

const UNSHARE_CANDIDATES = ['/usr/bin/unshare', '/bin/unshare', '/usr/sbin/unshare', '/sbin/unshare'];
const IP_CANDIDATES = ['/usr/sbin/ip', '/sbin/ip', '/usr/bin/ip', '/bin/ip'];

function executable(candidates: readonly string[]): string | undefined {
  for (const candidate of candidates) {
    try {
      accessSync(candidate, fs.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

type NamespaceSupport = { unshare: string[]; ip: string } | { reason: string };

// Per `unshare` program asked for ('' for the usual places).
const probed = new Map<string, NamespaceSupport>();

/**
 * Whether a network namespace can be made here, tried once per process (and per `unshare`
 * program named, see {@link NetworkOptions.unshare}): the argv that makes one (`unshare --net`,
 * with a user namespace mapping this user to root unless this is root) and the `ip` that brings
 * its loopback up; or why not.
 */
export function namespaceSupport(unshare?: string): NamespaceSupport {
  let support = probed.get(unshare ?? '');
  if (support === undefined) {
    support = probe(unshare);
    probed.set(unshare ?? '', support);
  }
  return support;
}

function probe(named: string | undefined): NamespaceSupport {
  if (process.platform !== 'linux') return { reason: `network namespaces are a Linux feature, and this is ${process.platform}` };
  const unshare = executable(named === undefined ? UNSHARE_CANDIDATES : [named]);
  if (unshare === undefined)
    return { reason: named === undefined ? 'unshare (util-linux) is not installed' : `the unshare program named, ${named}, is not an executable file` };
  const ip = executable(IP_CANDIDATES);
  if (ip === undefined) return { reason: 'ip (iproute2) is not installed, so the namespace could not bring its loopback up' };
  const argv = process.getuid?.() === 0 ? [unshare, '--net'] : [unshare, '--user', '--map-root-user', '--net'];
  const tried = spawnSync(argv[0]!, [...argv.slice(1), '--', ip, 'link', 'set', 'lo', 'up'], { encoding: 'utf8', timeout: 10_000 });
  if (tried.status !== 0) {
    const said = (tried.stderr || tried.error?.message || `exit ${tried.status}`).trim().split('\n')[0];
    return { reason: `the kernel refused it (${argv.slice(1).join(' ')}: ${said})` };
  }
  return { unshare: argv, ip };
}

/**
 * Relays the proxy's port and each allowed port into a namespace: a Unix socket per port in
 * `folder` (the run's private folder), each connection to it passed to that port on this
 * machine's loopback. Throws `namespace_unavailable` with the reason when no namespace can be made.
 */
export async function prepareNamespace(options: {
  proxyPort: number;
  allowPorts: readonly number[];
  folder: string;
  unshare?: string;
}): Promise<PreparedNamespace> {
  const support = namespaceSupport(options.unshare);
  if ('reason' in support) throw new ModeltapeError('namespace_unavailable', `No network namespace for this run: ${support.reason}.`);
  const ports = [...new Set([options.proxyPort, ...options.allowPorts])];
  const servers: Server[] = [];
  const relays: Array<{ port: number; socket: string }> = [];
  try {
    for (const port of ports) {
      const socket = join(options.folder, `${port}.sock`);
      const server = createServer((inside) => {
        const outside = connect(port, '127.0.0.1');
        inside.pipe(outside).pipe(inside);
        const close = (): void => {
          inside.destroy();
          outside.destroy();
        };
        inside.on('error', close);
        outside.on('error', close);
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(socket, () => resolve());
      });
      servers.push(server);
      relays.push({ port, socket });
    }
  } catch (error) {
    for (const server of servers) server.close();
    throw error;
  }
  const spec = JSON.stringify({ ip: support.ip, relays });
  return {
    wrap: (command) => [...support.unshare, '--', process.execPath, NAMESPACE_RELAY_PATH, spec, ...command],
    close: async () => {
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    },
  };
}
