// The one file in modeltape that opens sockets to providers. Replay never reaches it: undici is
// loaded only when a proxy that forwards starts (it also costs ~150 ms of startup).
import type { ClientRequestArgs } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { Dispatcher, Pool } from 'undici';
import { asProxyConnection } from '../../guard/internal.js';
import type { Upstream } from '../core/upstream-table.js';
import { connectWebSocket, type UpstreamWebSocket } from '../realtime/websocket.js';

export type UpstreamHandler = Dispatcher.DispatchHandler;

/**
 * The sockets a proxy opened to its upstreams. A replay guard, which watches every connection of
 * the process, leaves these alone: they belong to a proxy that records or passes through.
 */
export const UPSTREAM_SOCKETS: WeakSet<object> = new WeakSet();

export interface UpstreamRequest {
  method: string;
  /** Path and query on the upstream origin. */
  path: string;
  headers: Record<string, string | string[]>;
  body: Buffer | null;
}

/**
 * Forwards requests to upstreams through undici: one keep-alive pool per upstream, created on
 * first use, bodies streamed to the handler as they arrive. Counts every connection it opens,
 * so a run can prove it opened none.
 */
export class UpstreamClient {
  #pools = new Map<string, Pool>();
  #connections = 0;
  #undici: typeof import('undici');

  private constructor(undici: typeof import('undici')) {
    this.#undici = undici;
  }

  /** Loads undici and returns a client with no pools yet. */
  static async load(): Promise<UpstreamClient> {
    return new UpstreamClient(await import('undici'));
  }

  /** Connections opened to any upstream so far. */
  get connections(): number {
    return this.#connections;
  }

  dispatch(upstream: Upstream, request: UpstreamRequest, handler: UpstreamHandler): void {
    this.#pool(upstream).dispatch(
      { method: request.method as Dispatcher.HttpMethod, path: request.path, headers: request.headers, body: request.body },
      handler,
    );
  }

  /**
   * Opens a WebSocket to the upstream (a Realtime session): `wss:` for an https upstream, `ws:`
   * for an http one, over a connection counted and marked as this proxy's own, offering the
   * client's subprotocols (the upstream's choice is in the answer's headers).
   */
  openWebSocket(
    upstream: Upstream,
    path: string,
    headers: Record<string, string>,
    maxPayload: number,
    protocols: readonly string[] = [],
  ): Promise<UpstreamWebSocket> {
    const url = `${upstream.origin.replace(/^http/, 'ws')}${path}`;
    return connectWebSocket(
      url,
      headers,
      (options: ClientRequestArgs) => {
        this.#connections++;
        const host = String(options.hostname ?? options.host ?? new URL(upstream.origin).hostname).replace(/^\[|\]$/g, '');
        const port = Number(options.port ?? new URL(url).port) || (url.startsWith('wss:') ? 443 : 80);
        const socket = asProxyConnection(() =>
          url.startsWith('wss:') ? tlsConnect({ host, port, servername: host, ALPNProtocols: ['http/1.1'] }) : (netConnect({ host, port }) as Socket),
        );
        UPSTREAM_SOCKETS.add(socket);
        return socket;
      },
      maxPayload,
      protocols,
    );
  }

  /** Closes every pool, letting in-flight requests finish. */
  async close(): Promise<void> {
    const pools = [...this.#pools.values()];
    this.#pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }

  // One pool per upstream and origin: the built-in vertex upstream reaches a host per location.
  #pool(upstream: Upstream): Pool {
    const id = `${upstream.name} ${upstream.origin}`;
    let pool = this.#pools.get(id);
    if (pool === undefined) {
      const connect = this.#undici.buildConnector({});
      pool = new this.#undici.Pool(upstream.origin, {
        connect: (options, callback) => {
          this.#connections++;
          // Marked as this proxy's own: a replay guard of another session in the process lets it go.
          asProxyConnection(() =>
            connect(options, (error, socket) => {
              if (socket) UPSTREAM_SOCKETS.add(socket);
              callback(error, socket as never);
            }),
          );
        },
        // Model calls can think for minutes before the first byte.
        headersTimeout: 10 * 60_000,
        bodyTimeout: 10 * 60_000,
      });
      this.#pools.set(id, pool);
    }
    return pool;
  }
}
