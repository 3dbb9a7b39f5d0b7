import { ModeltapeError } from '../recordings/index.js';
import type { TapeSession } from './open-tape.js';

/** Interception in force; `close()` restores the global `fetch` and `node:http`. */
export interface ProviderInterception {
  /** Requests the interception sent to the session, in order: method and URL. */
  readonly intercepted: ReadonlyArray<{ method: string; url: string }>;
  close(): Promise<void>;
}

type MswNode = { setupServer: (...handlers: unknown[]) => { listen(options: { onUnhandledRequest: 'bypass' }): void; close(): void } };
type Msw = { http: { all: (path: string, resolver: (info: { request: Request }) => Promise<Response>) => unknown } };

/**
 * Catches requests to the session's provider hosts made through the global `fetch` and
 * `node:http`/`https` — by code that builds its own clients and cannot be handed the session's
 * `fetch` — and answers them from the session (so they are keyed, replayed and counted the same
 * way). Everything else passes through untouched. Uses msw 2 (`setupServer` from `msw/node`),
 * an optional peer dependency: `npm install -D msw@2`.
 *
 * What it cannot intercept on Node 20: `undici.request` and other direct undici dispatchers
 * (msw patches only the global fetch and `node:http`), `http2`, raw sockets, worker threads and
 * child processes. In replay mode the session's guard still sees undici connections and
 * `node:http` requests to provider hosts, stops them, and fails the session's close().
 */
export async function interceptProviders(session: TapeSession): Promise<ProviderInterception> {
  let msw: Msw;
  let mswNode: MswNode;
  try {
    msw = (await import('msw')) as unknown as Msw;
    mswNode = (await import('msw/node')) as unknown as MswNode;
  } catch (error) {
    throw new ModeltapeError('msw_missing', 'interceptProviders needs msw 2, an optional peer dependency of modeltape: npm install -D msw@2', { cause: error });
  }
  const intercepted: Array<{ method: string; url: string }> = [];
  const origins = new Set<string>();
  for (const upstream of session.proxy.options.upstreams.values()) {
    const origin = new URL(upstream.baseUrl).origin;
    // Loopback upstreams (ollama, local stand-ins) are the user's own servers: left alone.
    if (!/^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:|$)/.test(origin)) origins.add(origin);
  }
  const handlers = [...origins].map((origin) =>
    msw.http.all(`${origin}/*`, async ({ request }) => {
      intercepted.push({ method: request.method, url: request.url });
      return session.fetch(request);
    }),
  );
  const server = mswNode.setupServer(...handlers);
  server.listen({ onUnhandledRequest: 'bypass' });
  // msw answers node:http requests to these hosts itself; the guard must not take them for escapes.
  const release = session.guard.interceptHttp([...origins].map((origin) => new URL(origin).host));
  return {
    intercepted,
    close: async () => {
      server.close();
      release();
    },
  };
}
