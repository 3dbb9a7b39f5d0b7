import type { IncomingMessage, ServerResponse } from 'node:http';
import { existsSync } from 'node:fs';
import {
  TapeNotFoundError,
  TapeWriter,
  compileKeyRules,
  redactPathQuery,
  type CompiledKeyRules,
  type Exchange,
  type TapeWriteFailure,
} from '../recordings/internal.js';
import { maskSecrets } from '../core/internal.js';
import type { Escape, OutsideConnection } from '../guard/internal.js';
import { ReplayEngine, prepareResponse, type PreparedResponse, type ReplayMissError } from '../lookup/internal.js';
import {
  admitRequest,
  decideAdmitted,
  refuseTooLarge,
  type DecisionContext,
  type ForwardDecision,
  type MissDecision,
  type RefuseDecision,
} from './decide-request.js';
import type { ProxyRequest } from './proxy-request.js';
import { forwardProxyHandlers } from './forward-proxy-requests.js';
import { readBody, relayUpstream, sendError, sendPrepared, startHttpServer } from './http-server.js';
import { pruneTape } from './prune-tape.js';
import { TAPE_FILE_SYSTEM, resolveProxyOptions, type ProxyMode, type ProxyOptions, type ResolvedProxyOptions } from './proxy-options.js';
import { RequestKeys } from './request-keys.js';
import { ExchangeRecorder, ResponseRecording } from './response-recording.js';
import type { Route } from './router.js';
import { UpstreamClient } from './upstream.js';
import { providerHosts, type Upstream } from './upstream-table.js';

/** What a proxy did, for its summary and for assertions. */
export interface ProxySummary {
  tape: string;
  mode: ProxyMode;
  /** Requests answered from the tape. */
  hits: number;
  /** Requests the tape could not answer (in replay mode: each was an error response). */
  misses: number;
  /** Exchanges appended to the tape. */
  recorded: number;
  /** Requests forwarded without being written (passthrough mode). */
  passthrough: number;
  /**
   * Requests and exchanges refused: not written because they held something shaped like a
   * credential or could not be recorded faithfully (a response over the size limit, a stream cut
   * before its terminating event, a body that does not decode), or not answered at all (a request
   * body over the size limit, a path that would leave its upstream's base).
   */
  refused: number;
  /**
   * Exchanges answered to the client but lost to a failed write (a full disk, an I/O error, a
   * read-only tape): not on the tape, which holds no part of them. Fails the run.
   */
  writeErrors: number;
  /** Requests whose upstream failed (unreachable, reset) before or during the response. */
  upstreamErrors: number;
  /**
   * Requests modeltape itself failed on (a recorded answer Node cannot send, such as a header
   * value holding a line break; or a bug): each got a 500. Fails the run.
   */
  internalErrors: number;
  /** Requests the client abandoned before the response ended (not recorded). */
  aborted: number;
  /** TCP connections opened to any upstream. Always 0 in replay mode. */
  upstreamConnections: number;
  /** The messages of the first misses and refusals, in order. */
  problems: string[];
  /** Every miss, explained (request, key, nearest recording, differences), in order; at most 1,000 kept. */
  missErrors: ReplayMissError[];
  /** Exchanges dropped from the tape by `prune`. */
  pruned: number;
  /**
   * Requests to a provider host that tried to go around the tape: `CONNECT` or absolute-form
   * requests sent to this proxy as a forward proxy (`HTTPS_PROXY`), refused before any
   * connection was made. A `run` adds those its processes' guards stopped.
   */
  escapes: Escape[];
  /** Refused forward-proxy requests to hosts that are neither loopback nor providers. */
  outside: OutsideConnection[];
}

export interface RunningProxy {
  /** e.g. `http://127.0.0.1:43121` */
  readonly url: string;
  readonly port: number;
  /**
   * Base URLs for the official SDKs, as `modeltape run` sets them: `OPENAI_BASE_URL`,
   * `ANTHROPIC_BASE_URL`, `GOOGLE_GEMINI_BASE_URL` (@google/genai; @ai-sdk/google takes
   * `${gemini}/v1beta`) and `OLLAMA_HOST` (the `ollama` client's `host`; ollama-ai-provider-v2
   * takes `${ollama}/api`).
   */
  readonly baseUrls: { openai: string; anthropic: string; gemini: string; ollama: string };
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

const MAX_PROBLEMS_KEPT = 20;
const MAX_MISSES_KEPT = 1000;

/** Starts the recording proxy. Resolves once it listens; `url` has the real port. */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const resolved = resolveProxyOptions(options);
  const { mode } = resolved;
  // Every line the proxy logs (and so every problem in its summary) is masked here, once.
  const log = (message: string): void => resolved.log(maskSecrets(message));
  const { engine, keyRules } = openEngine(resolved, log);

  const stats: Omit<ProxySummary, 'tape' | 'mode' | 'upstreamConnections' | 'outside'> = {
    escapes: [],
    missErrors: [],
    pruned: 0,
    hits: 0,
    misses: 0,
    recorded: 0,
    passthrough: 0,
    refused: 0,
    writeErrors: 0,
    upstreamErrors: 0,
    internalErrors: 0,
    aborted: 0,
    problems: [],
  };
  const problem = (message: string): void => {
    const masked = maskSecrets(message);
    if (stats.problems.length < MAX_PROBLEMS_KEPT) stats.problems.push(masked);
    resolved.log(`modeltape: ${masked}`);
  };

  const keys = new RequestKeys(keyRules);
  const onWriteError = (failure: TapeWriteFailure): void => {
    stats.recorded -= failure.exchanges.length;
    stats.writeErrors += failure.exchanges.length;
    problem(failure.error.message);
  };
  const recorder =
    mode === 'record' || mode === 'auto'
      ? new ExchangeRecorder({
          mode,
          engine: engine!,
          keys,
          writer: TapeWriter.open(resolved.tape, {
            keyRules,
            headerNotes: resolved.tapeNotes,
            onWriteError,
            ...(resolved.configFile === undefined ? {} : { configFile: resolved.configFile }),
            ...(resolved.tapeFileSystem === undefined ? {} : { [TAPE_FILE_SYSTEM]: resolved.tapeFileSystem }),
          }),
          onRecorded: () => {
            stats.recorded++;
          },
          onRefused: (message) => {
            stats.refused++;
            problem(message);
          },
        })
      : undefined;
  // Replay never forwards, so it never even loads the HTTP client.
  const upstreamClient = mode === 'replay' ? undefined : await UpstreamClient.load();
  const context: DecisionContext = { options: resolved, engine, keys };

  const prepared = new WeakMap<Exchange, PreparedResponse>();
  const preparedOf = (exchange: Exchange): PreparedResponse => {
    let ready = prepared.get(exchange);
    if (ready === undefined) {
      ready = prepareResponse(exchange.response);
      prepared.set(exchange, ready);
    }
    return ready;
  };

  const forward = (decision: ForwardDecision, request: ProxyRequest, response: ServerResponse): void => {
    const { route } = decision;
    if (decision.unrecorded !== undefined) {
      stats.refused++;
      problem(decision.unrecorded);
    }
    const recording = decision.record ? new ResponseRecording(resolved.clock, resolved.limits.responseBodyBytes) : undefined;
    relayUpstream(upstreamClient!, route, request, response, recording, {
      onEnd: () => {
        if (recording === undefined) stats.passthrough++;
        else recorder!.recordAfterSend(route, request, recording);
      },
      onAbort: () => {
        stats.aborted++;
      },
      onError: (error) => {
        stats.upstreamErrors++;
        const message = `Upstream "${route.upstream.name}" (${route.upstream.baseUrl}) failed for ${request.method} ${route.path}: ${describeNetworkError(error)}`;
        problem(message);
        return message;
      },
    });
  };

  const miss = (decision: MissDecision, response: ServerResponse): void => {
    stats.misses++;
    if (decision.missError !== undefined && stats.missErrors.length < MAX_MISSES_KEPT) stats.missErrors.push(decision.missError);
    problem(decision.message);
    if ('nearest' in decision.response) {
      // Drift collection: answer as the nearest recording did, so the run reaches its next request.
      sendPrepared(response, preparedOf(decision.response.nearest), 'instant');
      return;
    }
    sendError(response, decision.response.provider, decision.response.status, decision.response.type, decision.message, false);
  };

  const refuse = (decision: RefuseDecision, request: IncomingMessage, response: ServerResponse): void => {
    // An unknown upstream is not among the refusals a summary counts (see ProxySummary.refused): its 404 names the configured upstreams.
    if (decision.reason !== 'unknown_upstream') {
      stats.refused++;
      problem(decision.message);
    }
    // The rest of the body is read and dropped, never held; the connection closes after.
    if (decision.reason === 'request_too_large') response.shouldKeepAlive = false;
    sendError(response, decision.response.provider, decision.response.status, decision.response.type, decision.message, false);
    request.resume();
  };

  const onRequest = (request: IncomingMessage, response: ServerResponse): void => {
    if (forwardProxy.onAbsoluteForm(request, response)) return;
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
          if (decision.kind === 'hit') {
            const ready = preparedOf(decision.exchange);
            stats.hits++;
            sendPrepared(response, ready, resolved.pace);
          } else if (decision.kind === 'forward') forward(decision, proxied, response);
          else miss(decision, response);
        } catch (error) {
          internalError(route, request, response, error as Error);
        }
      },
      () => refuse(refuseTooLarge(context, route, head.method), request, response),
    );
  };

  const internalError = (route: Route, request: IncomingMessage, response: ServerResponse, error: Error): void => {
    const message = `modeltape failed on ${request.method} ${redactPathQuery(request.url ?? '/')}: ${error.message}`;
    stats.internalErrors++;
    problem(message);
    if (!response.headersSent) sendError(response, route.upstream.provider, 500, 'modeltape_internal_error', message, false);
    else response.destroy(error);
  };

  const outside = new Map<string, OutsideConnection>();
  let self = '';
  const forwardProxy = forwardProxyHandlers({
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
  });

  const server = await startHttpServer({
    host: resolved.host,
    port: resolved.port,
    limits: resolved.limits,
    log,
    onRequest,
    onConnect: forwardProxy.onConnect,
  });
  const { url, port } = server;
  self = server.authority;
  if (!isLoopback(resolved.host)) log(networkWarning(url, mode, resolved.tape, resolved.upstreams));
  // A miss on a large route is explained through an index; build it while the run starts, so the
  // first miss does not pay for it (requests are answered between its slices).
  const warming = mode === 'replay' || mode === 'auto' ? engine?.warmNearest() : undefined;

  const summary = (): ProxySummary => ({
    tape: resolved.tape,
    mode,
    ...stats,
    problems: [...stats.problems],
    missErrors: [...stats.missErrors],
    escapes: [...stats.escapes],
    outside: [...outside.values()].map((connection) => ({ ...connection })),
    upstreamConnections: upstreamClient?.connections ?? 0,
  });
  let closing: Promise<ProxySummary> | undefined;
  const close = (options: { prune?: boolean } = {}): Promise<ProxySummary> => {
    closing ??= (async () => {
      warming?.stop();
      await server.close();
      await recorder?.close();
      const clean =
        stats.misses === 0 &&
        stats.refused === 0 &&
        stats.writeErrors === 0 &&
        stats.upstreamErrors === 0 &&
        stats.internalErrors === 0 &&
        stats.aborted === 0 &&
        stats.escapes.length === 0;
      stats.pruned = pruneAtClose(resolved, engine, clean, options.prune, log);
      await upstreamClient?.close();
      return summary();
    })();
    return closing;
  };

  return {
    url,
    port,
    baseUrls: { openai: `${url}/openai/v1`, anthropic: `${url}/anthropic`, gemini: `${url}/gemini`, ollama: `${url}/ollama` },
    options: resolved,
    engine,
    summary,
    close,
  };
}

// The engine a run replays from and numbers its recordings with (none in passthrough), and the
// key rules: the tape's own, unless the run names others.
function openEngine(resolved: ResolvedProxyOptions, log: (message: string) => void): { engine: ReplayEngine | undefined; keyRules: CompiledKeyRules } {
  const { mode } = resolved;
  const keyRules = resolved.keyRules ?? compileKeyRules();
  if (mode === 'passthrough') return { engine: undefined, keyRules };
  if (existsSync(resolved.tape)) {
    // Read once: the tape's own rules key it unless the run names others.
    const loaded = ReplayEngine.fromTape(resolved.tape, {
      repeat: resolved.repeat,
      requireLive: resolved.requireLive,
      ...(resolved.keyRules === undefined ? {} : { keyRules: resolved.keyRules }),
      ...(resolved.configFile === undefined ? {} : { configFile: resolved.configFile }),
    });
    const engine = loaded.engine;
    for (const warning of loaded.warnings) log(`modeltape: warning: ${warning.file}:${warning.line}: ${warning.message}`);
    if (mode === 'record' && engine.size > 0) {
      log(
        `modeltape: ${resolved.tape} already holds ${engine.size} exchanges; record mode appends (repeated requests get later ordinals). Delete the tape to record from scratch.`,
      );
    }
    return { engine, keyRules: engine.keyRules };
  }
  if (mode === 'replay' && resolved.missingTape === 'error') throw new TapeNotFoundError(resolved.tape);
  return { engine: new ReplayEngine({ file: resolved.tape, keyRules, repeat: resolved.repeat }), keyRules };
}

// Pruning is asked for at start (the prune option) or at close ({ prune: true }); a close with
// { prune: false } vetoes it (a caller whose command failed). Returns how many exchanges it dropped.
function pruneAtClose(
  resolved: ResolvedProxyOptions,
  engine: ReplayEngine | undefined,
  clean: boolean,
  prune: boolean | undefined,
  log: (message: string) => void,
): number {
  const { tape, mode } = resolved;
  const wanted = prune ?? resolved.prune;
  if (wanted && mode !== 'auto') {
    log(`modeltape: not pruning ${tape}: pruning drops what a run did not use, so it needs mode auto (this session ran in ${mode}).`);
  } else if (wanted && clean && engine !== undefined) {
    const dropped = engine.unused();
    const pruned = pruneTape(tape, engine);
    if (pruned > 0) {
      const shown = dropped
        .slice(0, 20)
        .map(
          (entry) =>
            `  line ${entry.line ?? '?'}: ${entry.exchange.request.method} ${entry.exchange.request.path} (${entry.exchange.upstream}) #${entry.exchange.ordinal}`,
        );
      if (dropped.length > shown.length) shown.push(`  … and ${dropped.length - shown.length} more`);
      log(`modeltape: pruned ${tape}: dropped ${pruned} exchange${pruned === 1 ? '' : 's'} this run never used:\n${shown.join('\n')}`);
    } else log(`modeltape: pruned ${tape}: every exchange was used, nothing dropped.`);
    return pruned;
  } else if (resolved.prune || prune === true) {
    log(
      `modeltape: not pruning ${tape}: ${clean ? 'the command did not succeed' : 'the run was not clean (a miss, refusal, write error, upstream error, aborted request or escape)'}, so it may not have used every exchange it needs.`,
    );
  }
  return 0;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host) || host === '::ffff:127.0.0.1';
}

// What a proxy listening beyond loopback gives to anyone who can reach it.
function networkWarning(url: string, mode: ProxyMode, tape: string, upstreams: ReadonlyMap<string, Upstream>): string {
  const exposed: string[] = [];
  if (mode !== 'passthrough') exposed.push(`every answer recorded on ${tape}`);
  if (mode !== 'replay') {
    exposed.push(`a relay to ${[...upstreams.values()].map((upstream) => upstream.baseUrl).join(', ')} for any request that brings its own key`);
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
