/**
 * The ways a request can try to leave the machine, as the guard names them:
 * - `fetch`: the global `fetch` (Node's built-in undici)
 * - `undici`: the `undici` package (`undici.request`, its `fetch`, an `Agent` or `Pool`)
 * - `http`: `node:http`, `node:https` or `node:http2`
 * - `net`: a raw `net` or `tls` socket
 * - `proxy`: a `CONNECT` or absolute-form request sent to a modeltape proxy through
 *   `HTTPS_PROXY`/`HTTP_PROXY` (any language)
 */
export const ESCAPE_ROUTES = ['fetch', 'undici', 'http', 'net', 'proxy'] as const;
export type EscapeRoute = (typeof ESCAPE_ROUTES)[number];

/** A connection to a provider that tried to leave the machine during a replay, and was stopped before any byte left. */
export interface Escape {
  /** The provider host as it was matched, e.g. `api.openai.com` or `127.0.0.2:8080`. */
  host: string;
  port: number;
  /** The request path, when the guard could see it (e.g. `/v1/traces/ingest`). */
  path?: string;
  via: EscapeRoute;
  /** The process that tried it, e.g. `pid 4242 node app.mjs`; absent for the process that reads the summary. */
  process?: string;
}

/** A connection to a host that is neither loopback nor a provider: allowed, and listed in the summary. */
export interface OutsideConnection {
  host: string;
  port: number;
  via: EscapeRoute;
  process?: string;
  /** How many times this host was reached the same way from the same process. */
  count: number;
}

/**
 * Known side channels of provider clients: where they send prompts other than the model API,
 * ignoring the base URL. Their hosts are guarded like the providers' (a `path` narrows the
 * description, not the guard: a host is guarded whole).
 */
export const SIDE_CHANNELS: ReadonlyArray<{ host: string; path?: string; what: string; advice: string }> = [
  {
    host: 'api.openai.com',
    path: '/v1/traces/ingest',
    what: "the OpenAI Agents SDK's trace exporter (it ignores OPENAI_BASE_URL)",
    advice:
      'Turn tracing off for replays: OPENAI_AGENTS_DISABLE_TRACING=1 (modeltape run sets it when unset; it is read when the SDK is imported), or setTracingDisabled(true) in a test setup file.',
  },
  {
    host: 'api.smith.langchain.com',
    what: 'LangSmith tracing (LangChain sends every prompt and answer to it)',
    advice: 'Turn it off for replays: unset LANGSMITH_TRACING, LANGSMITH_TRACING_V2, LANGCHAIN_TRACING and LANGCHAIN_TRACING_V2.',
  },
];

/** The side channel a request went to, if it is a known one. */
export function sideChannelOf(host: string, path: string | undefined): (typeof SIDE_CHANNELS)[number] | undefined {
  const bare = host.replace(/:\d+$/, '');
  return SIDE_CHANNELS.find(
    (channel) =>
      channel.host === bare && (channel.path === undefined || (path !== undefined && (path === channel.path || path.startsWith(`${channel.path}?`)))),
  );
}

/** One line for an escape: `fetch → api.openai.com/v1/traces/ingest (pid 12 node app.mjs)`. */
export function describeEscape(escape: Escape): string {
  const side = sideChannelOf(escape.host, escape.path);
  const where = `${escape.host}${escape.path ?? ''}`;
  return `${escape.via} → ${where}${escape.process ? ` (${escape.process})` : ''}${side ? `: ${side.what}` : ''}`;
}

/**
 * The error a client sees for a connection the guard refused. It fails like a refused
 * connection (the client's own error wraps it, e.g. `fetch failed` with this as the cause), and
 * its `code` is `MODELTAPE_BLOCKED`.
 */
export class ConnectionBlockedError extends Error {
  readonly code = 'MODELTAPE_BLOCKED';
  readonly escape: Escape;

  constructor(escape: Escape, advice: string) {
    const side = sideChannelOf(escape.host, escape.path);
    super(
      `modeltape blocked a connection to ${escape.host}${escape.path ?? ''} (${escape.via}) during a replay: nothing reaches a provider in replay mode, and no byte was sent.` +
        `${side ? ` This is ${side.what}. ${side.advice}` : ` ${advice}`}`,
    );
    this.name = 'ConnectionBlockedError';
    this.escape = escape;
  }
}
