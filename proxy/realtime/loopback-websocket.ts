import { connect, type createConnection } from 'node:net';
import { ModeltapeError } from '../../core/internal.js';
import { isLoopbackHost } from '../../guard/internal.js';

/** What `loopbackWebSocket()` gives a WebSocket client (the `ws` package's `ClientOptions`). */
export interface LoopbackWebSocketOptions {
  createConnection: typeof createConnection;
}

/**
 * WebSocket client options that reach the proxy over plain TCP. The `openai` SDK's realtime
 * client always builds a `wss:` URL from its base URL, and the proxy on loopback speaks plain
 * HTTP: pass these as its `options` and the upgrade goes to the proxy unencrypted. Only a
 * loopback host is reached this way; any other is refused, so nothing leaves the machine in clear.
 * @example new OpenAIRealtimeWS({ model: 'gpt-realtime', options: loopbackWebSocket() }, new OpenAI({ baseURL: proxy.baseUrls.openai }))
 */
export function loopbackWebSocket(): LoopbackWebSocketOptions {
  return {
    createConnection: ((options: { host?: string | null; hostname?: string | null; port?: number | string | null }) => {
      const host = String(options.hostname ?? options.host ?? '127.0.0.1').replace(/^\[|\]$/g, '');
      if (!isLoopbackHost(host)) {
        throw new ModeltapeError(
          'request_escaped',
          `loopbackWebSocket() reaches a proxy on this machine only, not ${host}: give the client the proxy's base URL (proxy.baseUrls.openai).`,
        );
      }
      return connect({ host, port: Number(options.port) });
    }) as typeof createConnection,
  };
}
