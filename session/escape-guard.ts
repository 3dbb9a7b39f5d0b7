import diagnosticsChannel from 'node:diagnostics_channel';
import http, { type ClientRequest } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { UPSTREAM_SOCKETS } from '../proxy/index.js';

/** A request to a provider that tried to leave the machine during a replay, and was stopped. */
export interface Escape {
  /** The provider host, e.g. `api.openai.com`. */
  host: string;
  /** How it went out: `fetch/undici` (global fetch, undici.request, any undici client) or `node:http`. */
  via: 'fetch/undici' | 'node:http';
}

// Hosts whose node:http requests an interception (msw) answers in process. msw patches the
// whole process, so the registry is one for every guard, counted per interception.
const interceptedHttpHosts = new Map<string, number>();

/**
 * Watches, through Node's diagnostics channels, every request this process sends with undici
 * (the global `fetch`, `undici.request`, any undici client) and every `node:http`/`https`
 * request. One to a provider host is an escape: it is recorded, and its socket or request is
 * destroyed before its headers are written, so no prompt and no key leave the machine. Idle
 * keep-alive sockets to provider hosts in Node's global agents are closed when the guard starts,
 * so a request cannot slip out on a connection opened before the replay.
 *
 * The sockets of a modeltape proxy (recording or passing through for another session) are left
 * alone. What it cannot see on Node 20: connections from worker threads (channels are per
 * thread) or child processes, `http2` sessions, raw `net`/`tls` sockets opened without undici or
 * `node:http`, sockets kept by custom `http.Agent`s opened before the guard started, and native
 * addons. Connections made by IP address are matched only if the IP is listed.
 */
export class EscapeGuard {
  readonly #hosts: ReadonlySet<string>;
  readonly #escapes: Escape[] = [];
  #active = false;

  /** @param hosts `host` or `host:port` (a bare host stands for its default ports 80 and 443) */
  constructor(hosts: Iterable<string>) {
    this.#hosts = new Set([...hosts].map((host) => host.toLowerCase()));
  }

  get active(): boolean {
    return this.#active;
  }

  start(): void {
    if (this.#active) return;
    this.#active = true;
    diagnosticsChannel.subscribe('undici:client:sendHeaders', this.#onUndiciHeaders);
    diagnosticsChannel.subscribe('http.client.request.start', this.#onHttpRequest);
    this.#closeIdleSockets();
  }

  stop(): void {
    if (!this.#active) return;
    this.#active = false;
    diagnosticsChannel.unsubscribe('undici:client:sendHeaders', this.#onUndiciHeaders);
    diagnosticsChannel.unsubscribe('http.client.request.start', this.#onHttpRequest);
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

  #matches(host: string, port: string): string | undefined {
    const withPort = `${host}:${port}`;
    if (this.#hosts.has(withPort)) return withPort;
    if ((port === '443' || port === '80' || port === '') && this.#hosts.has(host)) return host;
    return undefined;
  }

  #blocked(host: string, via: Escape['via']): Error {
    this.#escapes.push({ host, via });
    return new Error(`modeltape blocked a request to ${host} during a replay: no request reaches a provider in replay mode. Give the client the session's fetch or base URL, or call interceptProviders(session).`);
  }

  // Published for every request, new connection or reused, before its headers are written.
  readonly #onUndiciHeaders = (message: unknown): void => {
    const { request, socket } = message as { request?: { origin?: string | URL }; socket?: Socket };
    if (socket === undefined || UPSTREAM_SOCKETS.has(socket) || request?.origin === undefined) return;
    const origin = new URL(String(request.origin));
    const matched = this.#matches(origin.hostname.toLowerCase(), origin.port);
    if (matched !== undefined) socket.destroy(this.#blocked(matched, 'fetch/undici'));
  };

  readonly #onHttpRequest = (message: unknown): void => {
    const { request } = message as { request?: ClientRequest };
    const hostHeader = request?.getHeader('host');
    if (request === undefined || typeof hostHeader !== 'string') return;
    const [host, port = ''] = hostHeader.toLowerCase().split(/:(?=\d+$)/) as [string, string?];
    const matched = this.#matches(host, port);
    if (matched === undefined) return;
    if (!interceptedHttpHosts.has(matched)) {
      request.destroy(this.#blocked(matched, 'node:http'));
      return;
    }
    // An interception answers this host in process with a socket of its own; a real socket (one
    // with a network handle) means this request slipped past it: code that kept a reference to
    // the original http.request from before the interception began.
    const check = (socket: Socket & { _handle?: unknown }): void => {
      if (socket._handle) request.destroy(this.#blocked(matched, 'node:http'));
    };
    // The socket is usually assigned by the time the request starts; otherwise it comes next.
    if (request.socket) check(request.socket);
    else request.once('socket', check);
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
