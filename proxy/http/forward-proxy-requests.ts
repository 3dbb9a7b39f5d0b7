import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { HttpRequest, HttpResponse } from './http-server.js';
import { hostMatcher, isLoopbackHost, parseAuthority, type Escape, type OutsideConnection } from '../../guard/internal.js';

/**
 * What the proxy does with requests meant for a forward proxy — `CONNECT host:port` and
 * absolute-form `GET http://host/…` — which reach it when a client honours `HTTPS_PROXY` or
 * `HTTP_PROXY` (as `modeltape run` sets them in replay, for clients in any language). It is no
 * open proxy and tunnels nothing: an absolute-form request to the proxy itself is served as
 * usual; every other target is refused with a 403 before any connection is made. A target off
 * loopback is counted — a provider host as an escape, any other host as an outside connection;
 * a loopback target is only refused (`NO_PROXY` lists loopback: such a client ignores it), since
 * tunnelling to loopback would open this machine's local services to whoever reaches the proxy.
 */
export interface ForwardProxyPolicy {
  /** `host:port` this proxy listens on: absolute-form requests to it are served as usual. */
  self: string;
  /** The provider hosts (see `providerHosts`). */
  providers: readonly string[];
  onEscape(escape: Escape): void;
  onOutside(connection: Omit<OutsideConnection, 'count'>): void;
}

// The client, as its user-agent's first product token names it (`curl/8.1.2`): the rest of the
// header is free text, which could hold anything.
function clientOf(request: HttpRequest): string | undefined {
  const agent = request.headers['user-agent'];
  const product = typeof agent === 'string' ? /^[A-Za-z][\w.-]{0,30}(?:\/[\w.-]{1,20})?/.exec(agent)?.[0] : undefined;
  return product ? `user-agent ${product}` : undefined;
}

function refusalText(host: string, provider: boolean): string {
  return provider
    ? `modeltape refused to connect to ${host}: this is a replay, and nothing reaches a provider. Point the client at the proxy by its base URL (OPENAI_BASE_URL, ANTHROPIC_BASE_URL), which modeltape run sets.\n`
    : `modeltape refused to connect to ${host}: the modeltape proxy forwards only to its upstreams and to loopback, never to other hosts.\n`;
}

function loopbackText(target: string): string {
  return `modeltape refused to forward to ${target}: the proxy tunnels nothing. Loopback is in NO_PROXY (modeltape run sets it): this client ignores NO_PROXY; give it the URL directly.\n`;
}

export function forwardProxyHandlers(policy: ForwardProxyPolicy): {
  onConnect(request: IncomingMessage, socket: Socket, head: Buffer): void;
  /** True when the request was absolute-form and is handled here; false for an ordinary request, whose URL may have been rewritten to origin-form. */
  onAbsoluteForm(request: HttpRequest, response: HttpResponse): boolean;
} {
  const isProvider = hostMatcher(policy.providers);
  const refuse = (host: string, port: number, path: string | undefined, who: string | undefined): { provider: boolean; text: string } => {
    const provider = isProvider(host, port) !== undefined;
    const shown = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    if (provider)
      policy.onEscape({
        host: isProvider(host, port)!,
        port,
        ...(path === undefined ? {} : { path }),
        via: 'proxy',
        ...(who === undefined ? {} : { process: who }),
      });
    else policy.onOutside({ host, port, via: 'proxy', ...(who === undefined ? {} : { process: who }) });
    return { provider, text: refusalText(shown, provider) };
  };

  return {
    onConnect(request, socket, head) {
      socket.on('error', () => socket.destroy());
      const target = parseAuthority(request.url ?? '');
      if (target === undefined) {
        socket.end('HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\nmodeltape: CONNECT needs host:port\n');
        return;
      }
      const text =
        isLoopbackHost(target.host) && isProvider(target.host, target.port) === undefined
          ? loopbackText(request.url ?? '')
          : refuse(target.host, target.port, undefined, clientOf(request)).text;
      socket.end(
        `HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\nx-modeltape-error: modeltape_refused_connect\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`,
      );
    },

    onAbsoluteForm(request, response) {
      const raw = request.url ?? '/';
      if (raw.startsWith('/')) return false;
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        return false;
      }
      const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
      const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
      if (isLoopbackHost(host) && (`${url.hostname}:${port}` === policy.self || `${host}:${port}` === policy.self)) {
        // Sent to this proxy through HTTP_PROXY: serve it as an ordinary request.
        request.url = `${url.pathname}${url.search}`;
        return false;
      }
      if (isLoopbackHost(host) && isProvider(host, port) === undefined) {
        const text = loopbackText(url.host);
        request.resume();
        response.writeHead(403, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(text), 'x-modeltape-error': 'modeltape_refused_forward' });
        response.end(text);
        return true;
      }
      const { text } = refuse(host, port, url.pathname, clientOf(request));
      request.resume();
      response.writeHead(403, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(text), 'x-modeltape-error': 'modeltape_refused_forward' });
      response.end(text);
      return true;
    },
  };
}
