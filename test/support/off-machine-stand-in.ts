import { createRequire } from 'node:module';
import net, { type AddressInfo, type Socket } from 'node:net';
import { delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';

interface Preload {
  install(): void;
  aim(target: { host: string; port: number } | undefined): void;
  environment(target: { host: string; port: number }, nodeOptions?: string): Record<string, string>;
  VARIABLE: string;
}

const preload = createRequire(import.meta.url)('./off-machine/preload.cjs') as Preload;
const FOLDER = fileURLToPath(new URL('./off-machine/', import.meta.url));
const PROBE = 'off-machine-stand-in-probe';

/** The loopback server that takes every connection a test's processes aim off this machine. */
export interface OffMachineStandIn {
  /**
   * `env` with what a child process needs to be kept on loopback too: Node (a `--require`
   * preload, ahead of `env.NODE_OPTIONS` or this process's), Python (`sitecustomize` on
   * PYTHONPATH) and curl (`CURL_HOME`).
   */
  env(env?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
  /**
   * The connections the stand-in took since the last call, each named by what it asked for: the
   * TLS server name, the HTTP Host header, or `(nothing sent)`. Waits until every connection
   * already made, by any process, has been accepted and read.
   */
  heard(): Promise<string[]>;
}

/**
 * For the tests of one file that aim clients at providers' hosts to prove they are stopped:
 * nothing they do can leave the machine. In this process and in every process started with
 * `env()`, a connection to a host off loopback goes to a stand-in listening on 127.0.0.1 (port 0)
 * and a lookup of a name off loopback answers 127.0.0.1 (see ./off-machine/preload.cjs). It lies
 * beneath modeltape's guard, so the guard still sees the host the client named: a guard that
 * failed is caught by the stand-in hearing the connection, never by the Internet. Call it in the
 * describe block, before any session opens (the guard's wrapper, once laid, stays). After the
 * file, a connection no test asked about with `heard()` fails it.
 */
export function offMachineStandIn(): OffMachineStandIn {
  preload.install();
  let server: net.Server | undefined;
  let port: number | undefined;
  const heard: Array<Promise<string>> = [];
  const probes = new Map<string, () => void>();
  let probeCount = 0;

  beforeAll(async () => {
    server = net.createServer((socket) => {
      heard.push(nameOf(socket, (probe) => probes.get(probe)?.()));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    preload.aim({ host: '127.0.0.1', port });
  });

  // Accepts are in order: once a probe made now is accepted, so is every connection made before it.
  const settle = async (): Promise<string[]> => {
    if (port === undefined) throw new Error('The off-machine stand-in is not listening yet: call heard() inside a test.');
    const probe = `${PROBE}-${++probeCount}`;
    await new Promise<void>((resolve, reject) => {
      probes.set(probe, resolve);
      const socket = net.connect(port!, '127.0.0.1', () => socket.end(`${probe}\n`));
      socket.on('error', reject);
    });
    probes.delete(probe);
    const names = await Promise.all(heard.splice(0));
    return names.filter((name) => !name.startsWith(PROBE));
  };

  afterAll(async () => {
    const unasked = port === undefined ? [] : await settle();
    preload.aim(undefined);
    await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
    if (unasked.length > 0) throw new Error(`The off-machine stand-in took ${unasked.length} connection(s) no test asked about: ${unasked.join(', ')}`);
  });

  return {
    env(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
      if (port === undefined) throw new Error('The off-machine stand-in is not listening yet: call env() inside a test.');
      return {
        ...env,
        ...preload.environment({ host: '127.0.0.1', port }, env.NODE_OPTIONS ?? process.env.NODE_OPTIONS ?? ''),
        PYTHONPATH: [FOLDER, env.PYTHONPATH ?? process.env.PYTHONPATH].filter(Boolean).join(delimiter),
        // No __pycache__ beside sitecustomize.py, in the project.
        PYTHONDONTWRITEBYTECODE: '1',
        CURL_HOME: FOLDER,
      };
    },
    heard: settle,
  };
}

// Reads a connection's first bytes for the name it asked for, then drops it: nothing is answered.
function nameOf(socket: Socket, onProbe: (probe: string) => void): Promise<string> {
  return new Promise((resolve) => {
    let bytes = Buffer.alloc(0);
    const done = (name: string): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(name);
    };
    const timer = setTimeout(() => done(bytes.length === 0 ? '(nothing sent)' : `(unreadable: ${bytes.length} bytes)`), 2000);
    socket.on('data', (chunk: Buffer) => {
      bytes = Buffer.concat([bytes, chunk]);
      const text = bytes.toString('latin1');
      if (text.startsWith(PROBE)) {
        if (!text.includes('\n')) return;
        onProbe(text.trim());
        return done(text.trim());
      }
      const name = serverName(bytes) ?? hostHeader(text);
      if (name !== undefined) done(name);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => done(bytes.length === 0 ? '(nothing sent)' : `(unreadable: ${bytes.length} bytes)`));
  });
}

// The server name of a TLS ClientHello (RFC 8446 4.1.2, RFC 6066 3), once it has all arrived.
function serverName(bytes: Buffer): string | undefined {
  if (bytes[0] !== 0x16 || bytes[5] !== 0x01) return undefined;
  try {
    let at = 5 + 4 + 2 + 32; // record header, handshake header, version, random
    at += 1 + bytes.readUInt8(at); // session id
    at += 2 + bytes.readUInt16BE(at); // cipher suites
    at += 1 + bytes.readUInt8(at); // compression methods
    const end = at + 2 + bytes.readUInt16BE(at);
    at += 2;
    while (at + 4 <= end) {
      const type = bytes.readUInt16BE(at);
      const length = bytes.readUInt16BE(at + 2);
      at += 4;
      // server_name: a list (2 bytes of length), an entry type (0, a host name), its length, the name
      if (type === 0) return bytes.toString('ascii', at + 5, at + 5 + bytes.readUInt16BE(at + 3));
      at += length;
    }
    return end <= bytes.length ? '(TLS without a server name)' : undefined;
  } catch {
    return undefined; // not all of it yet
  }
}

function hostHeader(text: string): string | undefined {
  const headers = text.indexOf('\r\n\r\n');
  if (headers < 0) return undefined;
  return /\r\nhost:[ \t]*([^\r\n]*)/i.exec(text.slice(0, headers))?.[1]?.trim() ?? '(HTTP without a Host)';
}
