import diagnosticsChannel from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import type { ClientRequest } from 'node:http';

/** A request to a provider that tried to leave the machine during a replay, and was stopped. */
export interface Escape {
  /** The provider host, e.g. `api.openai.com`. */
  host: string;
  /** How it went out: `fetch/undici` (global fetch, undici.request, any undici dispatcher) or `node:http`. */
  via: 'fetch/undici' | 'node:http';
}

/**
 * Watches, through Node's diagnostics channels, every connection this process opens with
 * undici (the global `fetch`, `undici.request`, any undici client) and every `node:http`/`https`
 * request. One to a provider host is an escape: it is recorded, and its socket or request is
 * destroyed before any HTTP is written, so no prompt and no key leave the machine.
 *
 * What it cannot see on Node 20: connections from worker threads (channels are per thread) or
 * child processes, `http2` sessions, raw `net`/`tls` sockets opened without undici or
 * `node:http`, and native addons. Connections made by IP address instead of host name are
 * matched only if the IP is listed.
 */
export class EscapeGuard {
  readonly #hosts: ReadonlySet<string>;
  readonly #escapes: Escape[] = [];
  #active = false;
  // Hosts whose node:http requests an interception answers in process (interceptProviders).
  #interceptedHttpHosts = new Set<string>();

  /** @param hosts `host` or `host:port` (a bare host stands for its default ports 80 and 443) */
  constructor(hosts: Iterable<string>) {
    this.#hosts = new Set([...hosts].map((host) => host.toLowerCase()));
  }

  #matches(host: string, port: string): string | undefined {
    const withPort = `${host}:${port}`;
    if (this.#hosts.has(withPort)) return withPort;
    if ((port === '443' || port === '80' || port === '') && this.#hosts.has(host)) return host;
    return undefined;
  }

  get active(): boolean {
    return this.#active;
  }

  start(): void {
    if (this.#active) return;
    this.#active = true;
    diagnosticsChannel.subscribe('undici:client:connected', this.#onUndiciConnected);
    diagnosticsChannel.subscribe('http.client.request.start', this.#onHttpRequest);
  }

  stop(): void {
    if (!this.#active) return;
    this.#active = false;
    diagnosticsChannel.unsubscribe('undici:client:connected', this.#onUndiciConnected);
    diagnosticsChannel.unsubscribe('http.client.request.start', this.#onHttpRequest);
  }

  /**
   * `node:http` requests to these hosts are answered in process by an interception (msw), so
   * they are not escapes; undici connections to them still are. Returns a function that undoes it.
   */
  interceptHttp(hosts: Iterable<string>): () => void {
    const added = [...hosts].map((host) => host.toLowerCase()).filter((host) => !this.#interceptedHttpHosts.has(host));
    for (const host of added) this.#interceptedHttpHosts.add(host);
    return () => {
      for (const host of added) this.#interceptedHttpHosts.delete(host);
    };
  }

  /** Every escape seen so far, in order. */
  escapes(): Escape[] {
    return [...this.#escapes];
  }

  #blocked(host: string, via: Escape['via']): Error {
    this.#escapes.push({ host, via });
    return new Error(`modeltape blocked a request to ${host} during a replay: no request reaches a provider in replay mode. Give the client the session's fetch or base URL, or call interceptProviders(session).`);
  }

  // undici publishes after the socket connects and before the request is written.
  readonly #onUndiciConnected = (message: unknown): void => {
    const { connectParams, socket } = message as { connectParams?: { hostname?: string; port?: string | number }; socket?: Socket };
    const host = connectParams?.hostname?.toLowerCase();
    const matched = host === undefined ? undefined : this.#matches(host, String(connectParams?.port ?? ''));
    if (matched !== undefined) socket?.destroy(this.#blocked(matched, 'fetch/undici'));
  };

  readonly #onHttpRequest = (message: unknown): void => {
    const { request } = message as { request?: ClientRequest };
    const hostHeader = request?.getHeader('host');
    if (request === undefined || typeof hostHeader !== 'string') return;
    const [host, port = ''] = hostHeader.toLowerCase().split(/:(?=\d+$)/) as [string, string?];
    const matched = this.#matches(host, port);
    if (matched === undefined) return;
    if (!this.#interceptedHttpHosts.has(matched)) {
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
}
