import diagnosticsChannel from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import type { Socket } from 'node:net';
import { callerRoute, wasRefused } from './connect-hook.js';
import type { EscapeRoute } from './escape.js';
import { canonicalHost, parseAuthority } from './hosts.js';

/** A request that names a provider, about to be written. */
export interface ProviderRequest {
  /** The provider host as it was matched. */
  host: string;
  port: number;
  path: string | undefined;
  via: EscapeRoute;
}

export interface RequestWatch {
  /** The provider entry a target matches, or undefined. */
  matches(host: string, port: number): string | undefined;
  /** The error that stops a request (and records it). */
  blocked(request: ProviderRequest): Error;
  /** Sockets to leave alone (a modeltape proxy's own upstream connections). */
  skipSocket?(socket: object): boolean;
  /** An interception (msw) answers `node:http` requests to this host with a socket of its own. @default every host */
  answeredInProcess?(host: string): boolean;
}

/**
 * Stops requests that name a provider while the connect layer could not see it, through Node's
 * diagnostics channels, before their headers are written: a request on a connection kept alive
 * from before the guard, and a `CONNECT` through a local forward proxy (undici's `ProxyAgent`,
 * an https agent), whose TCP peer is loopback. A connection the connect layer refused is not
 * counted again. Returns a function that stops watching.
 *
 * The channels are subscribed once, by the first watch, for the life of the process; each
 * message is shown to every watch in the order they were added, as separate subscribers would
 * see it. A suite opens a session per test, and subscribing and unsubscribing each time cost
 * more than a message no watch looks at.
 */
export function watchProviderRequests(watch: RequestWatch): () => void {
  watches.add(watch);
  if (!subscribed) {
    subscribed = true;
    diagnosticsChannel.subscribe('undici:client:sendHeaders', onUndici);
    diagnosticsChannel.subscribe('http.client.request.start', onHttp);
  }
  return () => {
    watches.delete(watch);
  };
}

// Every watch of this copy of modeltape, in the order they were added.
const watches = new Set<RequestWatch>();
let subscribed = false;

function onUndici(message: unknown): void {
  if (watches.size === 0) return;
  const { request, socket } = message as { request?: { origin?: string | URL; method?: string; path?: string }; socket?: Socket };
  if (request === undefined || socket === undefined) return;
  for (const watch of [...watches]) {
    if (wasRefused(socket) || watch.skipSocket?.(socket)) continue;
    const connect = request.method === 'CONNECT';
    const target = connect ? parseAuthority(request.path ?? '') : originOf(request.origin);
    const matched = target && watch.matches(target.host, target.port);
    if (!target || matched === undefined) continue;
    socket.destroy(
      watch.blocked({
        host: matched,
        port: target.port,
        path: connect ? undefined : request.path?.split('?', 1)[0],
        via: callerRoute() === 'undici' ? 'undici' : 'fetch',
      }),
    );
  }
}

function onHttp(message: unknown): void {
  if (watches.size === 0) return;
  const request = (message as { request?: ClientRequest }).request;
  if (request === undefined) return;
  for (const watch of [...watches]) {
    const connect = request.method === 'CONNECT';
    const hostHeader = request.getHeader('host');
    const defaultPort = (request as unknown as { protocol?: string }).protocol === 'https:' ? 443 : 80;
    const target = connect ? parseAuthority(request.path) : typeof hostHeader === 'string' ? parseAuthority(hostHeader, defaultPort) : undefined;
    const matched = target && watch.matches(target.host, target.port);
    if (!target || matched === undefined) continue;
    // The socket comes at the next tick, before the request's bytes are flushed to it. An
    // interception answers with a socket of its own, without a network handle; a real socket to
    // a provider (kept alive, or one that slipped past the interception) is stopped here.
    const check = (socket: Socket & { _handle?: unknown }): void => {
      if (wasRefused(socket)) return;
      if (!socket._handle && (watch.answeredInProcess?.(matched) ?? true)) return;
      request.destroy(watch.blocked({ host: matched, port: target.port, path: connect ? undefined : request.path.split('?', 1)[0], via: 'http' }));
    };
    if (request.socket) check(request.socket);
    else request.once('socket', check);
  }
}

function originOf(origin: string | URL | undefined): { host: string; port: number } | undefined {
  if (origin === undefined) return undefined;
  try {
    const url = new URL(String(origin));
    return { host: canonicalHost(url.hostname), port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)) };
  } catch {
    return undefined;
  }
}
