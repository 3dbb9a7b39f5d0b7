import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { existsSync } from 'node:fs';
import { JsonTooDeepError, MAX_JSON_DEPTH, abbreviatePath, SecretInTapeError, TapeNotFoundError, TapeWriter, captureRequest, compileKeyRules, exchangeKey, headerValue, HOP_BY_HOP_HEADERS, redactPathQuery, type CompiledKeyRules, type Exchange, type TapeWriteFailure } from '../recordings/internal.js';
import { maskSecrets } from '../core/internal.js';
import type { Escape, OutsideConnection } from '../guard/internal.js';
import { forwardProxyHandlers } from './forward-proxy-requests.js';
import { ReplayEngine, explainMiss, prepareResponse, providerErrorBody, type PreparedResponse, type ReplayMissError } from '../lookup/internal.js';
import { carriesPlaceholderKey, keyVariableOf } from './placeholder-key.js';
import { pruneTape } from './prune-tape.js';
import { type ProviderFlavor, providerHosts, type Upstream } from './upstream-table.js';
import { TAPE_FILE_SYSTEM, resolveProxyOptions, type Pace, type ProxyMode, type ProxyOptions, type ResolvedProxyOptions } from './proxy-options.js';
import { ResponseRecording, describeBytes } from './response-recording.js';
import { routeRequest, type Route } from './router.js';
import { UpstreamClient, type UpstreamHandler } from './upstream.js';

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
  /** Base URLs for the official SDKs: `OPENAI_BASE_URL` and `ANTHROPIC_BASE_URL`. */
  readonly baseUrls: { openai: string; anthropic: string };
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
const KEY_CACHE_LIMIT = 10_000;
const KEY_CACHE_MAX_BODY = 16 * 1024;

/** Starts the recording proxy. Resolves once it listens; `url` has the real port. */
export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const resolved = resolveProxyOptions(options);
  const { mode, clock } = resolved;
  // Every line the proxy logs (and so every problem in its summary) is masked here, once.
  const log = (message: string): void => resolved.log(maskSecrets(message));
  const tapeExists = existsSync(resolved.tape);

  let keyRules: CompiledKeyRules = resolved.keyRules ?? compileKeyRules();
  let engine: ReplayEngine | undefined;
  if (mode !== 'passthrough') {
    if (tapeExists) {
      // Read once: the tape's own rules key it unless the run names others.
      const loaded = ReplayEngine.fromTape(resolved.tape, {
        repeat: resolved.repeat,
        requireLive: resolved.requireLive,
        ...(resolved.keyRules === undefined ? {} : { keyRules: resolved.keyRules }),
        ...(resolved.configFile === undefined ? {} : { configFile: resolved.configFile }),
      });
      engine = loaded.engine;
      keyRules = engine.keyRules;
      for (const warning of loaded.warnings) log(`modeltape: warning: ${warning.file}:${warning.line}: ${warning.message}`);
      if (mode === 'record' && engine.size > 0) {
        log(`modeltape: ${resolved.tape} already holds ${engine.size} exchanges; record mode appends (repeated requests get later ordinals). Delete the tape to record from scratch.`);
      }
    } else if (mode === 'replay' && resolved.missingTape === 'error') {
      throw new TapeNotFoundError(resolved.tape);
    } else {
      engine = new ReplayEngine({ file: resolved.tape, keyRules, repeat: resolved.repeat });
    }
  }
  const onWriteError = (failure: TapeWriteFailure): void => {
    stats.recorded -= failure.exchanges.length;
    stats.writeErrors += failure.exchanges.length;
    problem(failure.error.message);
  };
  const writer =
    mode === 'record' || mode === 'auto'
      ? TapeWriter.open(resolved.tape, {
          keyRules,
          headerNotes: resolved.tapeNotes,
          onWriteError,
          ...(resolved.configFile === undefined ? {} : { configFile: resolved.configFile }),
          ...(resolved.tapeFileSystem === undefined ? {} : { [TAPE_FILE_SYSTEM]: resolved.tapeFileSystem }),
        })
      : undefined;
  // Replay never forwards, so it never even loads the HTTP client.
  const upstreamClient = mode === 'replay' ? undefined : await UpstreamClient.load();

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

  // Computing a key parses and canonicalizes the body; identical requests reuse the result.
  const keyCache = new Map<string, string>();
  const keyFor = (route: Route, request: IncomingMessage, body: Buffer): string => {
    // Large prompts are rarely identical and would make the cache hold megabytes.
    if (body.length > KEY_CACHE_MAX_BODY) return exchangeKey(route.upstream.name, capture(route, request, body), keyRules);
    // content-type decides how a body is read (JSON or text), so it is part of the cache key.
    let cacheKey = `${request.method}\u0000${route.upstream.name}\u0000${route.path}\u0000${route.query}\u0000${request.headers['content-type'] ?? ''}\u0000`;
    for (const name of keyRules.headers) cacheKey += `${headerValue(request.headers, name) ?? ''}\u0000`;
    cacheKey += body.toString('latin1');
    let key = keyCache.get(cacheKey);
    if (key === undefined) {
      key = exchangeKey(route.upstream.name, capture(route, request, body), keyRules);
      if (keyCache.size >= KEY_CACHE_LIMIT) keyCache.clear();
      keyCache.set(cacheKey, key);
    }
    return key;
  };
  const capture = (route: Route, request: IncomingMessage, body: Buffer) =>
    captureRequest({ method: request.method ?? 'GET', path: route.path, query: route.query, headers: request.headers, body }, keyRules);

  const prepared = new WeakMap<Exchange, PreparedResponse>();
  const serve = (response: ServerResponse, exchange: Exchange): void => {
    let ready = prepared.get(exchange);
    if (ready === undefined) {
      ready = prepareResponse(exchange.response);
      prepared.set(exchange, ready);
    }
    stats.hits++;
    sendPrepared(response, ready, resolved.pace);
  };

  let pendingRecordings = 0;
  let recordingsDone: (() => void) | undefined;
  const recordExchange = (route: Route, request: IncomingMessage, body: Buffer, recording: ResponseRecording): void => {
    // Everything here runs after the response was sent, outside any request handler: a failure
    // (a body that does not decode, a line that does not fit the schema) is counted and told,
    // never thrown, or it would take the whole proxy down with it.
    try {
      const recordedRequest = capture(route, request, body);
      const key = exchangeKey(route.upstream.name, recordedRequest, keyRules);
      const exchange: Exchange = {
        key,
        ordinal: engine!.nextOrdinal(key),
        upstream: route.upstream.name,
        source: recording.fromFake ? 'fake' : 'live',
        request: recordedRequest,
        response: recording.finish(),
      };
      writer!.append(exchange);
      // Auto mode replays what it recorded to later identical requests; record mode only
      // needs the ordinals.
      if (mode === 'auto') engine!.addRecorded(exchange);
      else engine!.countRecorded(exchange);
      stats.recorded++;
    } catch (error) {
      stats.refused++;
      problem(error instanceof SecretInTapeError ? error.message : `Could not record ${request.method} ${route.path}: ${(error as Error).message}`);
    }
  };

  const forward = (route: Route, request: IncomingMessage, response: ServerResponse, body: Buffer, record: boolean): void => {
    const recording = record ? new ResponseRecording(clock, resolved.limits.responseBodyBytes) : undefined;
    let done = false;
    const handler: UpstreamHandler = {
      onRequestStart(controller) {
        response.once('close', () => {
          if (!done) {
            done = true;
            stats.aborted++;
            controller.abort(new Error('the client closed the connection'));
          }
        });
      },
      onResponseStart(_controller, status, headers) {
        if (status < 200) {
          // 103 Early Hints go on to the client as hints; the tape keeps the final response (a
          // replayed answer has nothing to preload). Other informational responses stay here.
          if (status === 103 && !response.headersSent) response.writeEarlyHints(clientHeaders(headers));
          return;
        }
        recording?.start(status, headers);
        response.writeHead(status, clientHeaders(headers));
        // A stream's headers reach the client at once, as the upstream's did; a plain body's go
        // out with its first bytes.
        if (headers['content-length'] === undefined) response.flushHeaders();
      },
      onResponseData(controller, chunk) {
        recording?.data(chunk);
        if (!response.write(chunk)) {
          controller.pause();
          response.once('drain', () => controller.resume());
        }
      },
      onResponseEnd() {
        if (done) return;
        done = true;
        response.end();
        if (recording === undefined) {
          stats.passthrough++;
          return;
        }
        // Node sends the response at the next tick; recording waits until it has gone, so the
        // client never waits for the tape.
        pendingRecordings++;
        setImmediate(() => {
          try {
            recordExchange(route, request, body, recording);
          } finally {
            pendingRecordings--;
            if (pendingRecordings === 0) recordingsDone?.();
          }
        });
      },
      onResponseError(_controller, error) {
        if (done) return;
        done = true;
        stats.upstreamErrors++;
        const message = `Upstream "${route.upstream.name}" (${route.upstream.baseUrl}) failed for ${request.method} ${route.path}: ${describeNetworkError(error)}`;
        problem(message);
        if (!response.headersSent) sendError(response, route.upstream.flavor, 502, 'modeltape_upstream_error', message, true);
        else response.destroy(error);
      },
    };
    upstreamClient!.dispatch(
      route.upstream,
      { method: request.method ?? 'GET', path: route.forwardPath, headers: forwardHeaders(request.headers), body: body.length > 0 ? body : null },
      handler,
    );
  };

  // A request that must be recorded but carries the placeholder key would reach the provider
  // only to be refused (401): say what is missing instead, and send nothing.
  const refuseKeyless = (route: Route, request: IncomingMessage, response: ServerResponse): void => {
    stats.misses++;
    const variable = keyVariableOf(route.upstream.flavor);
    const message =
      `${request.method} ${route.path} (${route.upstream.name}) is not on the tape ${resolved.tape} and needs recording, but no real key is set: the request carries modeltape's placeholder key, so nothing was sent.\n` +
      `Set ${variable} to a real key and run again in ${mode} mode (locally, not in CI), or fix the request so that it matches a recording.`;
    problem(message);
    sendError(response, route.upstream.flavor, 401, 'modeltape_no_key', message, false);
  };

  // A body nested past the depth cap has no key: no tape can hold it. Auto mode forwards it
  // unrecorded; replay answers it as a miss that says why.
  const tooDeepToKey = (route: Route, request: IncomingMessage, response: ServerResponse, body: Buffer, error: JsonTooDeepError): void => {
    const where = `${request.method} ${route.path} (${route.upstream.name})`;
    if (mode === 'auto') {
      stats.refused++;
      problem(`${where} was forwarded but not recorded: its request body nests deeper than ${MAX_JSON_DEPTH} levels (at ${abbreviatePath(error.path)}), so no tape can key it.`);
      forward(route, request, response, body, false);
      return;
    }
    stats.misses++;
    const message = `${where} cannot be on the tape ${resolved.tape}: its request body nests deeper than ${MAX_JSON_DEPTH} levels (at ${abbreviatePath(error.path)}), and modeltape never records what it cannot key. Flatten the payload, or keep such calls out of replayed tests.`;
    problem(message);
    sendError(response, route.upstream.flavor, 400, 'modeltape_replay_miss', message, false);
  };

  const onRequest = (route: Route, request: IncomingMessage, response: ServerResponse, body: Buffer): void => {
    if (mode === 'passthrough' || mode === 'record') {
      if (mode === 'record' && carriesPlaceholderKey(request.headers)) return refuseKeyless(route, request, response);
      forward(route, request, response, body, mode === 'record');
      return;
    }
    let key: string;
    try {
      key = keyFor(route, request, body);
    } catch (error) {
      if (!(error instanceof JsonTooDeepError)) throw error;
      return tooDeepToKey(route, request, response, body, error);
    }
    const result = engine!.lookup(key);
    if (result.kind === 'hit') {
      serve(response, result.entry.exchange);
      return;
    }
    if (mode === 'auto') {
      if (carriesPlaceholderKey(request.headers)) return refuseKeyless(route, request, response);
      forward(route, request, response, body, true);
      return;
    }
    stats.misses++;
    const error = explainMiss(engine!, route.upstream.name, capture(route, request, body), key, result, request.url?.split('?')[0] ?? route.path, resolved.advice);
    if (stats.missErrors.length < MAX_MISSES_KEPT) stats.missErrors.push(error);
    problem(error.message);
    if (resolved.onMiss === 'nearest' && error.nearestExchange !== undefined) {
      // Drift collection: answer as the nearest recording did, so the run reaches its next request.
      let ready = prepared.get(error.nearestExchange);
      if (ready === undefined) {
        ready = prepareResponse(error.nearestExchange.response);
        prepared.set(error.nearestExchange, ready);
      }
      sendPrepared(response, ready, 'instant');
      return;
    }
    sendError(response, route.upstream.flavor, 400, 'modeltape_replay_miss', error.message, false);
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
      log(`modeltape: refused ${escape.via === 'proxy' ? 'a forward-proxy request' : 'a request'} to the provider host ${escape.host}${escape.path ?? ''}${escape.process ? ` (${escape.process})` : ''}: nothing may go around the tape.`);
    },
    onOutside(connection) {
      const id = `${connection.host}:${connection.port}\u0000${connection.process ?? ''}`;
      const seen = outside.get(id);
      if (seen) seen.count++;
      else outside.set(id, { ...connection, count: 1 });
    },
  });

  let inFlight = 0;
  let drained: (() => void) | undefined;
  // Node checks request timeouts on this interval (30 s by default): a short timeout needs it shorter.
  const checkEvery = Math.max(10, Math.min(1000, Math.floor(Math.min(resolved.limits.headersTimeoutMs, resolved.limits.requestTimeoutMs) / 4)));
  const server: Server = createServer({ noDelay: true, connectionsCheckingInterval: checkEvery }, (request, response) => {
    inFlight++;
    response.once('close', () => {
      inFlight--;
      if (inFlight === 0) drained?.();
    });
    if (forwardProxy.onAbsoluteForm(request, response)) return;
    const route = routeRequest(request.url ?? '/', resolved.upstreams);
    if ('refused' in route) {
      const message = `Refused ${request.method} ${redactPathQuery(request.url ?? '/')}: ${route.refused}`;
      problem(message);
      stats.refused++;
      sendError(response, route.upstream.flavor, 400, 'modeltape_invalid_path', message, false);
      request.resume();
      return;
    }
    if ('unknown' in route) {
      const known = [...resolved.upstreams.values()].map((upstream) => `${upstream.name} (${upstream.baseUrl})`).join(', ');
      sendError(
        response,
        'openai',
        404,
        'modeltape_unknown_upstream',
        `No upstream named ${JSON.stringify(route.unknown)}. Send requests to /<upstream>/<path>; configured upstreams: ${known}. Add one with --upstream name=url.`,
        false,
      );
      request.resume();
      return;
    }
    const limit = resolved.limits.requestBodyBytes;
    const tooLarge = (): void => {
      stats.refused++;
      const message =
        `Refused ${request.method} ${route.path} (${route.upstream.name}): its body is over the ${describeBytes(limit)} limit of a request, so it was not read and nothing was sent upstream.\n` +
        `Raise the limit with --max-request-body BYTES (limits.requestBodyBytes in the config file, or the limits.requestBodyBytes option).`;
      problem(message);
      // The rest of the body is read and dropped, never held; the connection closes after.
      response.shouldKeepAlive = false;
      sendError(response, route.upstream.flavor, 413, 'modeltape_request_too_large', message, false);
      request.resume();
    };
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > limit) return tooLarge();
    let chunks: Buffer[] = [];
    let length = 0;
    let refused = false;
    request.on('data', (chunk: Buffer) => {
      if (refused) return;
      length += chunk.length;
      if (length > limit) {
        refused = true;
        chunks = [];
        tooLarge();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (refused) return;
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
      try {
        onRequest(route, request, response, body);
      } catch (error) {
        const message = `modeltape failed on ${request.method} ${redactPathQuery(request.url ?? '/')}: ${(error as Error).message}`;
        stats.internalErrors++;
        problem(message);
        if (!response.headersSent) sendError(response, route.upstream.flavor, 500, 'modeltape_internal_error', message, false);
        else response.destroy(error as Error);
      }
    });
  });
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = resolved.limits.headersTimeoutMs;
  server.requestTimeout = resolved.limits.requestTimeoutMs;
  server.maxConnections = resolved.limits.maxConnections;
  server.on('drop', (dropped?: { remoteAddress?: string; remotePort?: number }) => {
    log(`modeltape: refused a connection from ${dropped?.remoteAddress ?? 'a client'}${dropped?.remotePort === undefined ? '' : `:${dropped.remotePort}`}: ${resolved.limits.maxConnections} connections are already open (--max-connections).`);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      log(`modeltape: closed a connection from ${socket.remoteAddress ?? 'a client'}: it did not send a whole request (headers within ${resolved.limits.headersTimeoutMs} ms, headers and body within ${resolved.limits.requestTimeoutMs} ms; --headers-timeout, --request-timeout).`);
      if (socket.writable && !socket.destroyed) socket.end('HTTP/1.1 408 Request Timeout\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      else socket.destroy();
      return;
    }
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(error.code === 'HPE_HEADER_OVERFLOW' ? 'HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\ncontent-length: 0\r\n\r\n' : 'HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
  });
  server.on('connect', forwardProxy.onConnect);
  // The proxy never keeps a process alive by itself: a test that fails before close() still
  // lets its runner exit (node:test waits for the event loop to empty).
  server.unref();
  server.on('connection', (socket) => socket.unref());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(resolved.port, resolved.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = resolved.host.includes(':') ? `[${resolved.host}]` : resolved.host;
  const url = `http://${host}:${port}`;
  self = `${host}:${port}`;
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
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight > 0) {
        await Promise.race([
          new Promise<void>((resolve) => {
            drained = resolve;
          }),
          new Promise<void>((resolve) => setTimeout(resolve, 30_000).unref()),
        ]);
      }
      server.closeAllConnections();
      await closed;
      if (pendingRecordings > 0) {
        await new Promise<void>((resolve) => {
          recordingsDone = resolve;
        });
      }
      writer?.close();
      const clean = stats.misses === 0 && stats.refused === 0 && stats.writeErrors === 0 && stats.upstreamErrors === 0 && stats.internalErrors === 0 && stats.aborted === 0 && stats.escapes.length === 0;
      // Pruning is asked for at start (the prune option) or at close ({ prune: true }); a close
      // with { prune: false } vetoes it (a caller whose command failed).
      const wanted = options.prune ?? resolved.prune;
      if (wanted && mode !== 'auto') {
        log(`modeltape: not pruning ${resolved.tape}: pruning drops what a run did not use, so it needs mode auto (this session ran in ${mode}).`);
      } else if (wanted && clean && engine !== undefined) {
        const dropped = engine.unused();
        stats.pruned = pruneTape(resolved.tape, engine);
        if (stats.pruned > 0) {
          const shown = dropped.slice(0, 20).map((entry) => `  line ${entry.line ?? '?'}: ${entry.exchange.request.method} ${entry.exchange.request.path} (${entry.exchange.upstream}) #${entry.exchange.ordinal}`);
          if (dropped.length > shown.length) shown.push(`  … and ${dropped.length - shown.length} more`);
          log(`modeltape: pruned ${resolved.tape}: dropped ${stats.pruned} exchange${stats.pruned === 1 ? '' : 's'} this run never used:\n${shown.join('\n')}`);
        } else log(`modeltape: pruned ${resolved.tape}: every exchange was used, nothing dropped.`);
      } else if (resolved.prune || options.prune === true) {
        log(`modeltape: not pruning ${resolved.tape}: ${clean ? 'the command did not succeed' : 'the run was not clean (a miss, refusal, write error, upstream error, aborted request or escape)'}, so it may not have used every exchange it needs.`);
      }
      await upstreamClient?.close();
      return summary();
    })();
    return closing;
  };

  return {
    url,
    port,
    baseUrls: { openai: `${url}/openai/v1`, anthropic: `${url}/anthropic` },
    options: resolved,
    engine,
    summary,
    close,
  };
}

function sendPrepared(response: ServerResponse, prepared: PreparedResponse, pace: Pace): void {
  if (!prepared.hasDate) response.sendDate = false;
  response.writeHead(prepared.status, prepared.headers);
  if (prepared.frames === undefined || pace === 'instant') {
    response.end(prepared.body);
    return;
  }
  const frames = prepared.frames;
  const started = performance.now();
  let index = 0;
  let timer: NodeJS.Timeout | undefined;
  response.once('close', () => clearTimeout(timer));
  const next = (): void => {
    const elapsed = performance.now() - started;
    while (index < frames.length && frames[index]!.atMs <= elapsed) response.write(frames[index++]!.bytes);
    if (index < frames.length) timer = setTimeout(next, frames[index]!.atMs - elapsed);
    else response.end();
  };
  response.flushHeaders();
  next();
}

function sendError(response: ServerResponse, flavor: ProviderFlavor, status: number, type: string, message: string, retry: boolean): void {
  const body = providerErrorBody(flavor, status, type, message);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    'x-should-retry': String(retry),
    'x-modeltape-error': type,
  });
  response.end(body);
}

// Headers for the upstream: the client's, minus hop-by-hop ones and framing undici computes.
// Compression is turned off so the tape can hold plain bytes and frames can be cut as they come.
function forwardHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const forwarded: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    // `expect: 100-continue` was answered here (Node sends the 100); undici refuses to send it.
    if (value === undefined || HOP_BY_HOP_HEADERS.has(name) || name === 'content-length' || name === 'accept-encoding' || name === 'expect') continue;
    forwarded[name] = value;
  }
  forwarded['accept-encoding'] = 'identity';
  return forwarded;
}

// Headers for the client: the upstream's, minus hop-by-hop ones (Node frames its own response).
function clientHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP_HEADERS.has(name)) continue;
    kept[name] = value;
  }
  return kept;
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
