import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import {
  ConnectionBlockedError,
  hostMatcher,
  onConnect,
  watchProviderRequests,
  type ConnectAttempt,
  type Escape,
  type EscapeRoute,
  type OutsideConnection,
} from '../guard/internal.js';
import { UPSTREAM_SOCKETS } from '../proxy/internal.js';

export type { Escape, OutsideConnection } from '../guard/internal.js';

const SESSION_ADVICE =
  "Give the client the session's fetch (fetch: session.fetch) or base URL (session.baseUrls), or call interceptProviders(session) for clients you cannot configure.";

// Hosts whose node:http requests an interception (msw) answers in process. msw patches the
// whole process, so the registry is one for every guard, counted per interception.
const interceptedHttpHosts = new Map<string, number>();

/**
 * Stops every connection and request of this process to a provider host during a replay, in
 * two layers:
 * - every new TCP connection, before its DNS lookup (so an offline machine, where DNS fails
 *   first, is counted too): the global `fetch`, `undici`, `node:http`/`https`/`http2` and raw
 *   `net`/`tls` sockets (see `onConnect`);
 * - every request on a connection opened before the guard started, through Node's diagnostics
 *   channels, before its headers are written (undici and `node:http`); idle keep-alive sockets to
 *   provider hosts in Node's global agents are closed when the guard starts.
 * Each is an escape: recorded, and failed as a refused connection, so no prompt and no key
 * leave the machine. Connections to other hosts that leave loopback are let through and listed.
 *
 * The connections of a modeltape proxy (recording or passing through for another session) are
 * left alone. What it cannot see: worker threads and child processes (use `modeltape run`, whose
 * preload guards them), native addons, and sockets kept by custom `http.Agent`s opened before
 * the guard started. Connections made by IP address are matched only if the IP is listed.
 */
export class EscapeGuard {
  readonly #matches: (host: string, port: number | string | undefined) => string | undefined;
  readonly #escapes: Escape[] = [];
  readonly #outside = new Map<string, OutsideConnection>();
  #active = false;
  #unhook: (() => void) | undefined;

  /** @param hosts `host` or `host:port` (a bare host stands for its default ports 80 and 443) */
  constructor(hosts: Iterable<string>) {
    this.#matches = hostMatcher(hosts);
  }

  get active(): boolean {
    return this.#active;
  }

  start(): void {
    if (this.#active) return;
    this.#active = true;
    const unhookConnect = onConnect(this.#onConnect, { watches: (host, port) => this.#matches(host, port) !== undefined });
    const unwatchRequests = watchProviderRequests({
      matches: (host, port) => this.#matches(host, port),
      blocked: (request) => this.#blocked(request.host, request.port, request.path, request.via),
      // A proxy of another session, recording or passing through, owns its upstream sockets.
      skipSocket: (socket) => UPSTREAM_SOCKETS.has(socket),
      answeredInProcess: (host) => interceptedHttpHosts.has(host),
    });
    this.#unhook = () => {
      unhookConnect();
      unwatchRequests();
    };
    this.#closeIdleSockets();
  }

  stop(): void {
    if (!this.#active) return;
    this.#active = false;
    this.#unhook?.();
    this.#unhook = undefined;
  }

  /**
   * `node:http` requests to these hosts are answered in process by an interception (msw), so
   * they are not escapes; undici requests to them still are. Returns a function that undoes it.
   */
  interceptHttp(hosts: Iterable<string>): () => void {
    const added = [...new Set([...hosts].map((host) => host.toLowerCase()))];
    for (const host of added) interceptedHttpHosts.set(host, (interceptedHttpHosts.get(host) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const host of added) {
        const count = (interceptedHttpHosts.get(host) ?? 1) - 1;
        if (count <= 0) interceptedHttpHosts.delete(host);
        else interceptedHttpHosts.set(host, count);
      }
    };
  }

  /** Every escape seen so far, in order. */
  escapes(): Escape[] {
    return [...this.#escapes];
  }

  /** Connections that left loopback for hosts that are not providers (let through), by host, way and count. */
  outside(): OutsideConnection[] {
    return [...this.#outside.values()].map((connection) => ({ ...connection }));
  }

  #blocked(host: string, port: number, path: string | undefined, via: EscapeRoute): Error {
    const escape: Escape = { host, port, ...(path === undefined ? {} : { path }), via };
    this.#escapes.push(escape);
    return new ConnectionBlockedError(escape, SESSION_ADVICE);
  }

  readonly #onConnect = (attempt: ConnectAttempt): Error | undefined => {
    if (attempt.fromProxy) return undefined;
    const matched = this.#matches(attempt.host, attempt.port);
    if (matched !== undefined) return this.#blocked(matched, attempt.port, attempt.path, attempt.via);
    if (!attempt.loopback) {
      const id = `${attempt.host}:${attempt.port}\u0000${attempt.via}`;
      const seen = this.#outside.get(id);
      if (seen) seen.count++;
      else this.#outside.set(id, { host: attempt.host, port: attempt.port, via: attempt.via, count: 1 });
    }
    return undefined;
  };

  // A keep-alive socket opened before the replay would carry a request out before any channel
  // could stop it: close the idle ones to provider hosts in Node's global agents.
  #closeIdleSockets(): void {
    for (const agent of [http.globalAgent, https.globalAgent]) {
      for (const [name, sockets] of Object.entries((agent as unknown as { freeSockets: Record<string, Socket[]> }).freeSockets ?? {})) {
        const [host, port = ''] = name.split(':') as [string, string?];
        if (this.#matches(host.toLowerCase(), port) === undefined) continue;
        for (const socket of sockets) socket.destroy();
      }
    }
  }
}
