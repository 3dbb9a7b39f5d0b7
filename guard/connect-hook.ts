import diagnosticsChannel from 'node:diagnostics_channel';
import net from 'node:net';
import type { EscapeRoute } from './escape.js';
import { syncBuiltinESMExports } from 'node:module';
import tls from 'node:tls';
import { canonicalHost, isLoopbackHost } from './hosts.js';

/** A TCP connection this process is about to open. */
export interface ConnectAttempt {
  /** As given to `connect`, lowercased: a host name or an address. */
  readonly host: string;
  readonly port: number;
  /** The host stays on this machine (see {@link isLoopbackHost}). */
  readonly loopback: boolean;
  /** The request path, when the guard saw the request that asked for this connection. */
  readonly path: string | undefined;
  /** Which client opened it, read from the stack on first access. */
  readonly via: EscapeRoute;
  /** Opened by a modeltape proxy forwarding to its upstream (record, auto or passthrough). */
  readonly fromProxy: boolean;
}

/** Decides about one connection: an error refuses it (the socket fails with that error), undefined lets it go. */
export type ConnectListener = (attempt: ConnectAttempt) => Error | undefined;

interface HookState {
  listeners: Set<ConnectListener>;
  /** Hosts listeners care about even on loopback (a provider stand-in): their client is read when asked for. */
  watched: Set<(host: string, port: number) => boolean>;
  original: typeof net.Socket.prototype.connect;
  patched: typeof net.Socket.prototype.connect | undefined;
  originalTls: typeof tls.connect;
  patchedTls: typeof tls.connect | undefined;
  /** The last request undici was asked for, per `host:port`: its path and, off loopback, which client asked. */
  paths: Map<string, { path: string; via: EscapeRoute | undefined }>;
  proxyDepth: number;
  /**
   * The copy of modeltape whose request listener is subscribed to undici's channel: from the
   * first listener on, for the life of the process (it does nothing while no listener is registered).
   */
  subscribed: ((message: unknown) => void) | undefined;
  /** Sockets a listener refused: a later check of the same request must not count it twice. */
  refused: WeakSet<object>;
}

// One hook per process, shared by every copy of modeltape loaded in it (a preload and the
// package a test imports may be two copies): the state lives under a registered symbol.
const STATE_KEY = Symbol.for('modeltape.connect-hook');

function state(): HookState {
  const holder = globalThis as unknown as Record<symbol, HookState | undefined>;
  holder[STATE_KEY] ??= {
    listeners: new Set(),
    watched: new Set(),
    original: net.Socket.prototype.connect,
    patched: undefined,
    originalTls: tls.connect,
    patchedTls: undefined,
    paths: new Map(),
    proxyDepth: 0,
    subscribed: undefined,
    refused: new WeakSet(),
  };
  return holder[STATE_KEY];
}

/**
 * Calls `listener` before every TCP connection of this process, before its DNS lookup and before
 * any byte is written: the global `fetch`, `undici`, `node:http`/`https`/`http2`, and raw
 * `net`/`tls` sockets all open their connections through `net.Socket.prototype.connect`, which
 * is wrapped while any listener is registered. Local (IPC) sockets are not seen. Listeners run
 * on every connection, loopback included, so they must be cheap: `via` reads the stack only when
 * asked. Returns a function that removes the listener. The wrapper, once laid, stays for the
 * life of the process and passes every connection straight through while no listener is
 * registered: laying and lifting it re-syncs Node's built-in ES module exports, which costs more
 * than a whole replayed request, and a suite opens a session per test.
 */
export function onConnect(listener: ConnectListener, options: { watches?: (host: string, port: number) => boolean } = {}): () => void {
  const hook = state();
  hook.listeners.add(listener);
  const watches = options.watches;
  if (watches !== undefined) hook.watched.add(watches);
  if (hook.patched === undefined && hook.patchedTls === undefined) install(hook);
  if (hook.subscribed === undefined) {
    hook.subscribed = onRequestCreate;
    diagnosticsChannel.subscribe('undici:request:create', onRequestCreate);
  }
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    hook.listeners.delete(listener);
    if (watches !== undefined) hook.watched.delete(watches);
    // The channel stays subscribed, as the wrapper stays laid: a suite opens a session per test,
    // and subscribing and unsubscribing each time cost more than the listener's early return.
    if (hook.listeners.size === 0) hook.paths.clear();
  };
}

/**
 * Runs `connect` (which opens a socket synchronously) marked as a modeltape proxy's own
 * connection to its upstream, so that a replay guard of another session in this process can
 * leave it alone. The `run` command's process-wide guard does not.
 */
export function asProxyConnection<T>(connect: () => T): T {
  const hook = state();
  hook.proxyDepth++;
  try {
    return connect();
  } finally {
    hook.proxyDepth--;
  }
}

const onRequestCreate = (message: unknown): void => {
  const hook = state();
  if (hook.listeners.size === 0) return;
  const request = (message as { request?: { origin?: string | URL; path?: string } }).request;
  if (request?.origin === undefined || typeof request.path !== 'string') return;
  try {
    const origin = new URL(String(request.origin));
    const port = origin.port || (origin.protocol === 'https:' ? '443' : '80');
    const host = origin.hostname.toLowerCase().replace(/^\[|\]$/g, '');
    if (hook.paths.size > 256) hook.paths.clear();
    // The global fetch may run on the undici package's dispatcher (once the package is loaded,
    // it installs one), so only the stack here, where fetch itself calls, tells them apart. It
    // costs tens of microseconds: read only for hosts off loopback and hosts a listener watches.
    const wanted = !isLoopbackHost(host) || [...hook.watched].some((watches) => watches(host, Number(port)));
    hook.paths.set(`${host}:${port}`, { path: request.path.split('?', 1)[0]!, via: wanted ? callerRoute() : undefined });
  } catch {
    // Not a URL we can read: the path stays unknown.
  }
};

// Asks every listener about one target; the refusal, if any listener refused.
function decide(hook: HookState, target: { host: string; port: number; path: string | undefined }): Error | undefined {
  // The request that asked for this connection, if undici said (taken once: a later
  // connection to the same host may be another client's).
  const asked = hook.paths.get(`${target.host}:${target.port}`);
  hook.paths.delete(`${target.host}:${target.port}`);
  let via: EscapeRoute | undefined = asked?.via;
  const attempt: ConnectAttempt = {
    host: target.host,
    port: target.port,
    loopback: isLoopbackHost(target.host),
    path: target.path ?? asked?.path,
    get via() {
      via ??= callerRoute();
      return via;
    },
    fromProxy: hook.proxyDepth > 0,
  };
  let refusal: Error | undefined;
  for (const listener of [...hook.listeners]) refusal = listener(attempt) ?? refusal;
  return refusal;
}

function install(hook: HookState): void {
  hook.original = net.Socket.prototype.connect;
  const original = hook.original;
  hook.originalTls = tls.connect;
  const originalTls = hook.originalTls;
  // TLS names its server (SNI): a TLS session to a provider's name over a socket made before,
  // such as a tunnel through a local forward proxy, is refused here even though its TCP peer
  // is loopback. A TLS connect without a socket of its own is checked by the socket wrapper.
  const patchedTls = function (this: unknown, ...args: unknown[]): tls.TLSSocket {
    const options = (
      typeof args[0] === 'object' && args[0] !== null
        ? args[0]
        : typeof args[1] === 'object' && args[1] !== null
          ? args[1]
          : typeof args[2] === 'object' && args[2] !== null
            ? args[2]
            : {}
    ) as { socket?: unknown; servername?: unknown; host?: unknown; port?: unknown };
    if (hook.listeners.size > 0 && options.socket !== undefined && typeof options.servername === 'string' && options.servername !== '') {
      const refusal = decide(hook, { host: canonicalHost(options.servername), port: Number(options.port ?? 443) || 443, path: undefined });
      if (refusal !== undefined) {
        const refused = new tls.TLSSocket(null as never);
        hook.refused.add(refused);
        process.nextTick(() => refused.destroy(refusal));
        return refused;
      }
    }
    return (originalTls as (...values: unknown[]) => tls.TLSSocket).apply(this, args);
  } as typeof tls.connect;
  hook.patchedTls = patchedTls;
  tls.connect = patchedTls;
  syncBuiltinESMExports();
  const patched = function (this: net.Socket, ...args: unknown[]): net.Socket {
    if (hook.listeners.size > 0) {
      const target = targetOf(args);
      if (target !== undefined) {
        const refusal = decide(hook, target);
        if (refusal !== undefined) {
          const socket = this;
          hook.refused.add(socket);
          // As a refused connection fails: asynchronously, with the error on the socket.
          process.nextTick(() => socket.destroy(refusal));
          return this;
        }
      }
    }
    return (original as (...values: unknown[]) => net.Socket).apply(this, args);
  } as typeof net.Socket.prototype.connect;
  hook.patched = patched;
  net.Socket.prototype.connect = patched;
}

// net.connect(options | port, host | path), socket.connect(...) and the already-normalized
// `[options, callback]` form Node passes internally. Local sockets (a path) are not TCP.
function targetOf(args: unknown[]): { host: string; port: number; path: string | undefined } | undefined {
  let first = args[0];
  if (Array.isArray(first)) first = first[0];
  if (typeof first === 'object' && first !== null) {
    const options = first as { path?: unknown; host?: unknown; hostname?: unknown; port?: unknown; pathname?: unknown };
    if (options.path) return undefined;
    const host =
      typeof options.host === 'string' && options.host !== ''
        ? options.host
        : typeof options.hostname === 'string' && options.hostname !== ''
          ? options.hostname
          : 'localhost';
    // node:https passes the URL it was given, spread: its pathname is the request's.
    return { host: canonicalHost(host), port: Number(options.port), path: typeof options.pathname === 'string' ? options.pathname : undefined };
  }
  // A port, as Node reads one: any string Number() takes (`'0x1bb'`, `' 443'`) is a port, not a path.
  if (typeof first === 'number' || (typeof first === 'string' && first.trim() !== '' && Number(first) >= 0)) {
    return { host: canonicalHost(typeof args[1] === 'string' && args[1] !== '' ? args[1] : 'localhost'), port: Number(first), path: undefined };
  }
  return undefined;
}

/** True for a socket whose connection a listener refused. */
export function wasRefused(socket: object): boolean {
  return state().refused.has(socket);
}

/**
 * Which client is on the stack right now: Node's own undici (the global fetch), the undici
 * package, node:http's agent, or none of them (a raw socket). Reads the stack: call it only for
 * connections that matter.
 */
export function callerRoute(): EscapeRoute {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 60;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  // The outermost undici frame names the API that was called: the global fetch may run on the
  // package's dispatcher, and the package's request on Node's own (each installs a global one).
  let outermost: EscapeRoute | undefined;
  for (const line of stack.split('\n')) {
    if (line.includes('node:internal/deps/undici')) outermost = 'fetch';
    else if (/[\\/]undici[\\/](lib|index)/.test(line)) outermost = 'undici';
  }
  if (outermost !== undefined) return outermost;
  if (/node:_http_(agent|client)|node:internal\/http2|node:https/.test(stack)) return 'http';
  return 'net';
}
