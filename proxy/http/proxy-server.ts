import { azureIdentityReply } from '../core/azure-identity.js';
import { redactPathQuery } from '../../recordings/internal.js';
import { ModeltapeError, type FetchInput } from '../../core/internal.js';
import type { OutsideConnection } from '../../guard/internal.js';
import type { ReplayEngine } from '../../lookup/internal.js';
import { admitRequest, decideAdmitted, refuseTooLarge, type ForwardDecision, type RefuseDecision } from '../core/decide-request.js';
import type { ProxyRequest } from '../core/proxy-request.js';
import { forwardProxyHandlers } from './forward-proxy-requests.js';
import { AwsSigner } from './aws-signature.js';
import {
  closeAfterAnswer,
  dropAnswer,
  forwardHeaders,
  readBody,
  relayUpstream,
  sendCut,
  sendError,
  sendPrepared,
  reserveHttpServer,
  startHttpServer,
  type HttpRequest,
  type HttpServer,
  type HttpServerHandlers,
  type HttpResponse,
} from './http-server.js';
import { answerInProcess } from '../core/in-process-answer.js';
import { googleAuthAnswer } from '../core/google-credentials.js';
import { ProxyCore, type OwnAnswer, type ProxySummary, type UnusedRecordings } from '../core/proxy-core.js';
import type { ProxyMode, ProxyOptions, ResolvedProxyOptions } from '../core/proxy-options.js';
import { handleRealtimeUpgrade, type RealtimeSessions } from '../realtime/realtime-session.js';
import { ResponseRecording } from '../core/response-recording.js';
import { UpstreamClient } from './upstream.js';
import { providerHosts, shownBaseUrl, vertexUpstreamFor, withoutResourceHost, type Upstream } from '../core/upstream-table.js';

export interface RunningProxy {
  /** e.g. `http://127.0.0.1:43121` */
  readonly url: string;
  readonly port: number;
  /**
   * Base URLs for the official SDKs, as `modeltape run` sets them: `OPENAI_BASE_URL`,
   * `ANTHROPIC_BASE_URL`, `GOOGLE_GEMINI_BASE_URL` (@google/genai; @ai-sdk/google takes
   * `${gemini}/v1beta`) and `OLLAMA_HOST` (the `ollama` client's `host`; ollama-ai-provider-v2
   * takes `${ollama}/api`), and `AZURE_OPENAI_ENDPOINT` (`AzureOpenAI`'s `endpoint`, to which it
   * appends `/openai`), `AWS_ENDPOINT_URL_BEDROCK_RUNTIME` (an AWS SDK Bedrock Runtime
   * client's `endpoint`), and `GOOGLE_VERTEX_BASE_URL` (@google/genai's `httpOptions.baseUrl`
   * with `vertexai: true`; `AnthropicVertex` takes `${vertex}/v1`).
   */
  readonly baseUrls: { openai: string; anthropic: string; gemini: string; ollama: string; azure: string; bedrock: string; vertex: string };
  /**
   * The URL a client reaches a configured upstream at: `${url}/<name>`. For an MCP server
   * (`upstreams: { docs: 'mcp+http://…/mcp' }`) it is the endpoint its client is given. Throws for
   * a name the proxy does not route.
   * @example new StreamableHTTPClientTransport(new URL(proxy.urlOf('docs')))
   */
  urlOf(upstream: string): string;
  readonly options: ResolvedProxyOptions;
  /** The replay engine (undefined in passthrough mode): what was recorded and what was used. */
  readonly engine: ReplayEngine | undefined;
  summary(): ProxySummary;
  /**
   * Stops accepting, lets in-flight requests finish, flushes the tape, and reports. Prunes (drops
   * the exchanges this run did not use, and logs which) when the `prune` option was given at
   * start or `{ prune: true }` is given here, in auto mode, unless the run was not clean (a miss,
   * a refusal, a write error, an upstream error, an aborted request or an escape); `{ prune: false }` vetoes it
   * (a caller whose command failed: it may not have reached every request).
   */
  close(options?: { prune?: boolean }): Promise<ProxySummary>;
}

// The in-process answerer of each replaying proxy (see inProcessAnswerer).
const IN_PROCESS = new WeakMap<RunningProxy, (request: FetchInput, url: string) => Promise<Response>>();

/**
 * How a replaying proxy answers a request in process (`session.fetch`): the same decision and
 * counts as over HTTP, with no socket. Undefined for the other modes, which may forward.
 */
export function inProcessAnswerer(proxy: RunningProxy): ((request: FetchInput, url: string) => Promise<Response>) | undefined {
  return IN_PROCESS.get(proxy);
}

// Each proxy's URL if it listens, without making it listen (see listeningUrl).
const LISTENING = new WeakMap<RunningProxy, () => string | undefined>();

/**
 * The proxy's URL if it listens (it was read, or the proxy listened from the start); undefined
 * while a proxy opened `when-asked` has handed its URL to no one, without making it listen.
 */
export function listeningUrl(proxy: RunningProxy): string | undefined {
  return LISTENING.get(proxy)?.();
}

/** Starts the recording proxy. Resolves once it listens; `url` has the real port. */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  return openProxy(options, { listen: 'at-start' });
}

/**
 * The proxy, listening from the start (`at-start`, as {@link startProxy}), or only once its URL
 * is first read (`when-asked`: `url`, `port`, `baseUrls` or `urlOf`), for a replay session that is
 * answered in process and may never hand a URL to a client. A server is reserved for it
 * either way (see reserveHttpServer), so those reads answer at once; a proxy that never read its
 * URL gives the server back when it closes, for the next proxy of the process.
 */
export async function openProxy(options: ProxyOptions, how: { listen: 'at-start' | 'when-asked' }): Promise<RunningProxy> {
  const core = ProxyCore.open(options);
  const { options: resolved, engine, context, counts: stats } = core;
  const { mode } = resolved;
  const log = (message: string): void => core.log(message);
  // Replay never forwards, so it never even loads the HTTP client.
  const upstreamClient = mode === 'replay' ? undefined : await UpstreamClient.load();

  const stalled = new Set<HttpResponse>();
  const realtimeSessions: RealtimeSessions = new Set();
  const send = (response: HttpResponse, answer: OwnAnswer): void => {
    if (answer.kind === 'recorded') sendPrepared(response, answer.prepared, answer.pace);
    else if (answer.kind === 'error') sendError(response, answer, false);
    else if (answer.effect.kind === 'cut') sendCut(response, answer.effect.prepared, answer.effect.afterFrames, answer.fault.kind);
    else if (answer.effect.kind === 'drop') dropAnswer(response);
    else if (answer.effect.kind === 'stall') {
      // Held until the client gives up; a close drops what is still held.
      stalled.add(response);
      response.once('close', () => stalled.delete(response));
    } else response.writeHead(answer.effect.status, answer.effect.headers).end(answer.effect.body);
  };

  // Bedrock's requests are signed again for the real endpoint (the client signed for this proxy).
  let awsSigner: AwsSigner | undefined;
  const forward = (decided: ForwardDecision, request: ProxyRequest, response: HttpResponse): void => {
    // Vertex AI's requests go to the host of the location their path names (the tape names none).
    const upstream = vertexUpstreamFor(decided.route.upstream, decided.route.path);
    const decision = upstream === decided.route.upstream ? decided : { ...decided, route: { ...decided.route, upstream } };
    if (decision.route.upstream.provider !== 'bedrock' || decision.route.upstream.unset !== undefined) return relay(decision, request, response);
    // A Bedrock API key (AWS_BEARER_TOKEN_BEDROCK) is a bearer token: it signs nothing, and goes as it came.
    if (/^bearer\s/i.test(String(request.headers.authorization ?? ''))) return relay(decision, request, response);
    awsSigner ??= new AwsSigner(options.env ?? process.env);
    awsSigner
      .sign(decision.route.upstream, { method: request.method, path: decision.route.forwardPath, headers: forwardHeaders(request.headers), body: request.body })
      .then(
        (headers) => relay(decision, { ...request, headers }, response),
        (error: Error) => {
          stats.upstreamErrors++;
          const message = `Upstream "${decision.route.upstream.name}" (${shownBaseUrl(decision.route.upstream)}): ${error.message}`;
          core.problem(message);
          if (!response.headersSent) sendError(response, { kind: 'error', provider: 'bedrock', status: 502, type: 'modeltape_upstream_error', message }, false);
        },
      );
  };

  const relay = (decision: ForwardDecision, request: ProxyRequest, response: HttpResponse): void => {
    const { route } = decision;
    core.noteUnrecorded(decision);
    const recording = decision.record ? new ResponseRecording(resolved.clock, resolved.limits.responseBodyBytes) : undefined;
    relayUpstream(upstreamClient!, route, request, response, recording, {
      onEnd: () => {
        if (recording === undefined) stats.passthrough++;
        else core.recorder!.recordAfterSend(route, request, recording);
      },
      onAbort: () => {
        stats.aborted++;
      },
      onError: (error) => {
        stats.upstreamErrors++;
        const message = `Upstream "${route.upstream.name}" (${shownBaseUrl(route.upstream)}) failed for ${request.method} ${route.path}: ${withoutResourceHost(route.upstream, describeNetworkError(error))}`;
        core.problem(message);
        return message;
      },
    });
  };

  const refuse = (decision: RefuseDecision, request: HttpRequest, response: HttpResponse): void => {
    const answer = core.answer(decision);
    // The rest of the body is read and dropped, never held; the connection (HTTP/2: the stream) closes after.
    if (decision.reason === 'request_too_large') closeAfterAnswer(response);
    send(response, answer);
    request.resume();
  };

  const onRequest = (request: HttpRequest, response: HttpResponse): void => {
    if (forwardProxyOf().onAbsoluteForm(request, response)) return;
    // The placeholder Google credentials' token exchange (and a metadata server's questions): answered here, offline.
    const google = googleAuthAnswer(request.method ?? 'GET', request.url ?? '/');
    if (google !== undefined) {
      request.resume();
      response.writeHead(google.status, google.headers).end(google.body);
      return;
    }
    // The managed identity stand-in `run` points IDENTITY_ENDPOINT at in replay: no exchange, never recorded.
    const identity = azureIdentityReply(request.method ?? 'GET', request.url ?? '/', request.headers);
    if (identity !== undefined) {
      response.writeHead(identity.status, identity.headers).end(identity.body);
      request.resume();
      return;
    }
    const head = { method: request.method ?? 'GET', url: request.url ?? '/', headers: request.headers };
    const admitted = admitRequest(context, head);
    if (admitted.kind === 'refuse') return refuse(admitted, request, response);
    const { route } = admitted;
    readBody(
      request,
      resolved.limits.requestBodyBytes,
      (body) => {
        const proxied: ProxyRequest = { ...head, body };
        try {
          const decision = decideAdmitted(context, route, proxied);
          if (decision.kind === 'forward') forward(decision, proxied, response);
          else send(response, core.answer(decision));
        } catch (error) {
          const answer = core.internalError(route.upstream.provider, head.method, head.url, error as Error);
          if (!response.headersSent) send(response, answer);
          else response.destroy(error as Error);
        }
      },
      () => refuse(refuseTooLarge(context, route, head.method), request, response),
    );
  };

  const outside = new Map<string, OutsideConnection>();
  let self = '';
  let forwardProxy: ReturnType<typeof forwardProxyHandlers> | undefined;
  const forwardProxyOf = (): ReturnType<typeof forwardProxyHandlers> =>
    (forwardProxy ??= forwardProxyHandlers({
      get self() {
        return self;
      },
      providers: providerHosts(resolved.upstreams),
      onEscape(escape) {
        stats.escapes.push(escape);
        log(
          `modeltape: refused ${escape.via === 'proxy' ? 'a forward-proxy request' : 'a request'} to the provider host ${escape.host}${escape.path ?? ''}${escape.process ? ` (${escape.process})` : ''}: nothing may go around the tape.`,
        );
      },
      onOutside(connection) {
        const id = `${connection.host}:${connection.port}\u0000${connection.process ?? ''}`;
        const seen = outside.get(id);
        if (seen) seen.count++;
        else outside.set(id, { ...connection, count: 1 });
      },
    }));

  const handlers: HttpServerHandlers = {
    log,
    onRequest,
    onConnect: (request, socket, head) => forwardProxyOf().onConnect(request, socket, head),
    onUpgrade: (request, socket, head) => handleRealtimeUpgrade(core, upstreamClient, realtimeSessions, request, socket, head),
  };
  const listen = { host: resolved.host, port: resolved.port, limits: resolved.limits };
  const reservation = how.listen === 'when-asked' ? await reserveHttpServer(listen) : undefined;
  let server: HttpServer | undefined = reservation === undefined ? await startHttpServer({ ...listen, ...handlers }) : undefined;
  const listening = (): Pick<HttpServer, 'url' | 'port'> => {
    if (server === undefined) {
      // First read after close(): its server went back, and nothing listens on port 0.
      if (closing !== undefined) return neverListened(resolved.host);
      server = reservation!.take(handlers);
      onListening(server);
    }
    return server;
  };
  const onListening = (listening: HttpServer): void => {
    self = listening.authority;
    if (!isLoopback(resolved.host)) log(networkWarning(listening.url, mode, resolved.tape, resolved.upstreams));
  };
  if (server !== undefined) onListening(server);
  // A miss on a large route is explained through an index; build it while the run starts, so the
  // first miss does not pay for it (requests are answered between its slices).
  const warming = mode === 'replay' || mode === 'auto' ? engine?.warmNearest() : undefined;

  const summary = (): ProxySummary => ({
    ...core.summary({ upstreamConnections: upstreamClient?.connections ?? 0, outside: [...outside.values()].map((connection) => ({ ...connection })) }),
    ...withUnused(core.unusedSummary()),
  });
  let closing: Promise<ProxySummary> | undefined;
  const close = (options: { prune?: boolean } = {}): Promise<ProxySummary> => {
    closing ??= (async () => {
      warming?.stop();
      for (const response of stalled) dropAnswer(response);
      for (const session of realtimeSessions) session.close();
      if (server === undefined) reservation?.release();
      else await server.close();
      await core.finish(options.prune);
      await upstreamClient?.close();
      return summary();
    })();
    return closing;
  };

  let baseUrls: RunningProxy['baseUrls'] | undefined;
  const proxy: RunningProxy = {
    get url() {
      return listening().url;
    },
    get port() {
      return listening().port;
    },
    get baseUrls() {
      const { url } = listening();
      baseUrls ??= {
        openai: `${url}/openai/v1`,
        anthropic: `${url}/anthropic`,
        gemini: `${url}/gemini`,
        ollama: `${url}/ollama`,
        azure: `${url}/azure`,
        bedrock: `${url}/bedrock`,
        vertex: `${url}/vertex`,
      };
      return baseUrls;
    },
    urlOf: (name) => {
      if (!resolved.upstreams.has(name)) {
        throw new ModeltapeError(
          'invalid_upstream',
          `No upstream named ${JSON.stringify(name)}: this proxy routes ${[...resolved.upstreams.keys()].join(', ')}. Add it with the upstreams option (--upstream name=url).`,
        );
      }
      return `${listening().url}/${name}`;
    },
    options: resolved,
    engine,
    summary,
    close,
  };
  LISTENING.set(proxy, () => server?.url);
  if (mode === 'replay') {
    IN_PROCESS.set(proxy, async (request, url) => {
      if (closing !== undefined) {
        throw new ModeltapeError(
          'session_closed',
          `${request.method} ${redactPathQuery(url)} came after the session on ${resolved.tape} was closed: nothing answers it. Close the session after the last request (in an afterEach or a finally), and open a new one for the next test.`,
        );
      }
      return answerInProcess(core, request, url);
    });
  }
  return proxy;
}

// The URL of a proxy closed before anything read one: port 0, where nothing listens.
function neverListened(host: string): Pick<HttpServer, 'url' | 'port'> {
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:0`, port: 0 };
}

function withUnused(unused: UnusedRecordings | undefined): { unused?: UnusedRecordings } {
  return unused === undefined ? {} : { unused };
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host) || host === '::ffff:127.0.0.1';
}

// What a proxy listening beyond loopback gives to anyone who can reach it.
function networkWarning(url: string, mode: ProxyMode, tape: string, upstreams: ReadonlyMap<string, Upstream>): string {
  const exposed: string[] = [];
  if (mode !== 'passthrough') exposed.push(`every answer recorded on ${tape}`);
  if (mode !== 'replay') {
    exposed.push(
      `a relay to ${[...upstreams.values()]
        .filter((upstream) => upstream.unset === undefined)
        .map(shownBaseUrl)
        .join(', ')} for any request that brings its own key`,
    );
    if (mode !== 'passthrough') exposed.push(`the tape itself, which records what such requests are answered`);
  }
  return (
    `modeltape: warning: the proxy listens on ${url}, which is reachable from the network, not only from this machine: anyone who can reach it gets ${exposed.join(', and ')}.\n` +
    '  Listen on 127.0.0.1 (the default) unless another machine or a container really must reach it, and then only on a network you trust.'
  );
}

function describeNetworkError(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code ? `${code} ${error.message}` : error.message;
}
