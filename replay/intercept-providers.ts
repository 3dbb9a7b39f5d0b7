import { ModeltapeError } from '../core/internal.js';
import { BUILT_IN_UPSTREAMS, CLOUD_HOSTS } from '../proxy/internal.js';
import type { TapeSession } from './open-tape.js';

/** Interception in force; `close()` restores the global `fetch` and `node:http`. */
export interface ProviderInterception {
  /** Requests the interception sent to the session, in order: method and URL. */
  readonly intercepted: ReadonlyArray<{ method: string; url: string }>;
  close(): Promise<void>;
}

type SetupServer = { listen(options: { onUnhandledRequest: 'bypass' }): void; close(): void; use(...handlers: unknown[]): void };
type MswNode = { setupServer: (...handlers: unknown[]) => SetupServer };
type Msw = { http: { all: (path: string | RegExp, resolver: (info: { request: Request }) => Promise<Response>) => unknown } };

export interface InterceptOptions {
  /**
   * Your own msw server (from `setupServer`), when the suite has one: msw allows one per
   * process, so the session's handlers are added to yours with `server.use(...)` instead of
   * starting a second. They stay until your `server.resetHandlers()`.
   */
  server?: { use(...handlers: unknown[]): void };
}

/**
 * Catches requests to the session's provider hosts made through the global `fetch` and
 * `node:http`/`https` — by code that builds its own clients and cannot be handed the session's
 * `fetch` — and answers them from the session (so they are keyed, replayed and counted the same
 * way). Everything else passes through untouched. Uses msw 2 (`setupServer` from `msw/node`),
 * an optional peer dependency: `npm install -D msw@2`. A suite with its own msw server passes it
 * as `{ server }`.
 *
 * Intercepted: the built-in provider hosts (api.openai.com, api.anthropic.com,
 * generativelanguage.googleapis.com, the OpenAI-compatible presets), every Azure OpenAI resource
 * (`*.openai.azure.com`, `*.cognitiveservices.azure.com`), Bedrock Runtime in every region,
 * Vertex AI in every location, and every configured upstream not on loopback. Google's OAuth
 * token endpoint is not: give a Vertex client `placeholderGoogleCredentials()`.
 * What it cannot intercept on Node 20: `undici.request` and other direct undici dispatchers
 * (msw patches only the global fetch and `node:http`), `http2`, raw sockets, worker threads and
 * child processes. In replay mode the session's guard still sees undici and `node:http` requests
 * to provider hosts, stops them, and fails the session's close().
 */
export async function interceptProviders(session: TapeSession, options: InterceptOptions = {}): Promise<ProviderInterception> {
  const msw = await loadMsw();
  const intercepted: Array<{ method: string; url: string }> = [];
  const { handlers, hosts } = handlersFor(session, msw, intercepted);
  let server: SetupServer | undefined;
  if (options.server) options.server.use(...handlers);
  else {
    server = (await loadMsw('msw/node')).setupServer(...handlers);
    server.listen({ onUnhandledRequest: 'bypass' });
  }
  // msw answers node:http requests to these hosts itself; the guard must not take them for escapes.
  const release = session.guard.interceptHttp(hosts);
  return {
    intercepted,
    close: async () => {
      server?.close();
      release();
    },
  };
}

function handlersFor(session: TapeSession, msw: Msw, intercepted: Array<{ method: string; url: string }>): { handlers: unknown[]; hosts: string[] } {
  // The built-in provider hosts (session.fetch routes them even when an upstream is overridden)
  // and every configured upstream that is not on loopback (ollama and local stand-ins are the
  // user's own servers: left alone).
  const origins = new Set<string>(
    Object.values(BUILT_IN_UPSTREAMS)
      .map(({ baseUrl }) => new URL(baseUrl).origin)
      .filter((origin) => origin.startsWith('https://')),
  );
  for (const upstream of session.proxy.options.upstreams.values()) {
    if (upstream.unset !== undefined) continue;
    const origin = new URL(upstream.baseUrl).origin;
    if (!/^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:|$)/.test(origin)) origins.add(origin);
  }
  const answer = async ({ request }: { request: Request }): Promise<Response> => {
    intercepted.push({ method: request.method, url: request.url });
    return session.fetch(request);
  };
  const handlers = [
    ...[...origins].map((origin) => msw.http.all(`${origin}/*`, answer)),
    // A cloud provider's host names the user's resource, region or location: every one of them.
    ...CLOUD_HOSTS.map(({ host }) => msw.http.all(new RegExp(`^https://${host.source.slice(1, -1)}(?::\\d+)?/`, 'i'), answer)),
  ];
  // The guard names such a host by its pattern (`*.openai.azure.com`): those are what msw answers.
  const hosts = [...[...origins].map((origin) => new URL(origin).host), ...CLOUD_HOSTS.flatMap(({ guardEntries }) => guardEntries)];
  return { handlers, hosts };
}

async function loadMsw(): Promise<Msw>;
async function loadMsw(entry: 'msw/node'): Promise<MswNode>;
async function loadMsw(entry: 'msw' | 'msw/node' = 'msw'): Promise<Msw | MswNode> {
  try {
    return (await import(entry)) as unknown as Msw | MswNode;
  } catch (error) {
    throw new ModeltapeError('msw_missing', 'interceptProviders needs msw 2, an optional peer dependency of modeltape: npm install -D msw@2', { cause: error });
  }
}
