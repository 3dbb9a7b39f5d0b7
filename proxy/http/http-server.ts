// The proxy's HTTP side: the server and its limits, reading request bodies, writing answers and
// relaying upstream responses to the client, over HTTP/1.1 and cleartext HTTP/2 on one port. What
// to answer is decided elsewhere (decide-request.ts); what is counted, by the caller.
import { createServer, ServerResponse, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import { constants as http2 } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import { errorProviderOf } from '../../providers/internal.js';
import { HOP_BY_HOP_HEADERS } from '../../recordings/internal.js';
import type { PreparedResponse } from '../../lookup/internal.js';
import { CHAOS_HEADER, errorReply, type ErrorAnswer } from '../core/proxy-core.js';
import type { ProxyRequest } from '../core/proxy-request.js';
import type { Pace, ProxyLimits } from '../core/proxy-options.js';
import type { ResponseRecording } from '../core/response-recording.js';
import type { Route } from '../core/router.js';
import type { UpstreamClient, UpstreamHandler } from './upstream.js';
import { Http2Sessions, serveHttp2WithPriorKnowledge, type Http2ProxyRequest, type Http2ProxyResponse } from './http2-sessions.js';

/**
 * A request the proxy serves: over HTTP/1.1, or over HTTP/2, whose `headers` read as HTTP/1.1's
 * (no pseudo-header; `host` from `:authority`; see Http2ProxyRequest).
 */
export type HttpRequest = IncomingMessage | Http2ProxyRequest;

/**
 * Its response. Over HTTP/2 it leaves out connection-specific headers, sends its headers at
 * `writeHead`, and has no connection of its own to end: see {@link sendCut} and {@link dropAnswer}.
 */
export type HttpResponse = ServerResponse | Http2ProxyResponse;

/** Where and with which client limits {@link startHttpServer} listens. */
export interface HttpListenOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  limits: Readonly<Required<ProxyLimits>>;
}

/** What a server does with its connections, and where it tells what it refused. */
export interface HttpServerHandlers {
  /** Where refused and timed-out connections are reported. */
  log: (message: string) => void;
  /** An ordinary request over HTTP/1.1 or HTTP/2, its headers read (the body is the handler's to read). */
  onRequest(request: HttpRequest, response: HttpResponse): void;
  /** A `CONNECT` request (HTTP/1.1; HTTP/2's is answered 405). */
  onConnect(request: IncomingMessage, socket: Socket, head: Buffer): void;
  /** A WebSocket upgrade (a Realtime session; HTTP/1.1 only). */
  onUpgrade(request: IncomingMessage, socket: Socket, head: Buffer): void;
}

/** How {@link startHttpServer} listens and what it tells. */
export interface HttpServerOptions extends HttpListenOptions, HttpServerHandlers {}

/** A listening server. */
export interface HttpServer {
  /** e.g. `http://127.0.0.1:43121` */
  readonly url: string;
  readonly port: number;
  /** `host:port` as clients name it (`[::1]:43121`). */
  readonly authority: string;
  /**
   * Stops accepting, lets in-flight requests finish (for at most 30 s), then closes every
   * connection.
   */
  close(): Promise<void>;
}

/**
 * Starts an HTTP server with the proxy's client limits (connections, header and request
 * timeouts) that never keeps the process alive by itself. Resolves once it listens.
 *
 * One port serves HTTP/1.1 and cleartext HTTP/2 with prior knowledge (h2c, which the AWS SDK
 * speaks to an http:// endpoint): each connection goes to one or the other by its first bytes.
 * Both count towards `maxConnections` and share the timeouts; `CONNECT` and upgrades are
 * HTTP/1.1's only.
 */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  return (await bindHttpServer(options)).serve(options);
}

/** A server that listens but serves nobody yet: its connections are closed until {@link serve} gives it handlers. */
interface BoundHttpServer {
  /** Serves with these handlers from now on (once), and is the server to close. */
  serve(handlers: HttpServerHandlers): HttpServer;
  /** Closes a server never served. */
  close(): Promise<void>;
}

async function bindHttpServer(options: HttpListenOptions): Promise<BoundHttpServer> {
  const { limits } = options;
  let handlers: HttpServerHandlers | undefined;
  const log = (message: string): void => handlers?.log(message);
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const serve = (request: HttpRequest, response: HttpResponse): void => {
    inFlight++;
    response.once('close', () => {
      inFlight--;
      if (inFlight === 0) drained?.();
    });
    handlers!.onRequest(request, response);
  };
  const incomplete = (remoteAddress: string | undefined): void =>
    log(
      `modeltape: closed a connection from ${remoteAddress ?? 'a client'}: it did not send a whole request (headers within ${limits.headersTimeoutMs} ms, headers and body within ${limits.requestTimeoutMs} ms; --headers-timeout, --request-timeout).`,
    );
  // Node checks request timeouts on this interval (30 s by default): a short timeout needs it shorter.
  const checkEvery = Math.max(10, Math.min(1000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4)));
  const server: Server = createServer({ noDelay: true, connectionsCheckingInterval: checkEvery }, serve);
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.maxConnections = limits.maxConnections;
  const sessions = new Http2Sessions({
    headersTimeoutMs: limits.headersTimeoutMs,
    requestTimeoutMs: limits.requestTimeoutMs,
    idleTimeoutMs: server.keepAliveTimeout,
    onRequest: serve,
    onIncomplete: incomplete,
  });
  server.on('drop', (dropped?: { remoteAddress?: string; remotePort?: number }) => {
    log(
      `modeltape: refused a connection from ${dropped?.remoteAddress ?? 'a client'}${dropped?.remotePort === undefined ? '' : `:${dropped.remotePort}`}: ${limits.maxConnections} connections are already open (--max-connections).`,
    );
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      incomplete(socket.remoteAddress);
      if (socket.writable && !socket.destroyed) socket.end(REQUEST_TIMEOUT);
      else socket.destroy();
      return;
    }
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    // A TLS hello on this plain-HTTP port: most often the openai SDK's realtime client, which
    // makes every base URL wss:.
    if ((error as { rawPacket?: Buffer }).rawPacket?.[0] === 0x16) {
      log(
        `modeltape: a client from ${socket.remoteAddress ?? 'this machine'} spoke TLS to the proxy, which speaks plain HTTP on loopback. For the openai SDK's realtime client (it always opens wss:), pass options: loopbackWebSocket() from modeltape/proxy.`,
      );
      socket.destroy();
      return;
    }
    socket.end(
      error.code === 'HPE_HEADER_OVERFLOW'
        ? 'HTTP/1.1 431 Request Header Fields Too Large\r\nconnection: close\r\ncontent-length: 0\r\n\r\n'
        : 'HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n',
    );
  });
  server.on('connect', (request: IncomingMessage, socket: Socket, head: Buffer) => handlers!.onConnect(request, socket, head));
  server.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => handlers!.onUpgrade(request, socket, head));

  // The proxy never keeps a process alive by itself: a test that fails before close() still
  // lets its runner exit (node:test waits for the event loop to empty).
  const peeking = serveHttp2WithPriorKnowledge(server, sessions, {
    timeoutMs: limits.headersTimeoutMs,
    onTimeout: (socket) => {
      incomplete(socket.remoteAddress);
      if (socket.writable && !socket.destroyed) socket.end(REQUEST_TIMEOUT);
      else socket.destroy();
    },
    onConnection: (socket) => socket.unref(),
    // A server no one serves yet has handed its URL to no one: nothing to answer.
    accept: () => handlers !== undefined,
  });
  server.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const close = async (): Promise<void> => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    sessions.goAway();
    for (const socket of peeking) socket.destroy();
    if (inFlight > 0) {
      await Promise.race([
        new Promise<void>((resolve) => {
          drained = resolve;
        }),
        new Promise<void>((resolve) => setTimeout(resolve, 30_000).unref()),
      ]);
    }
    server.closeAllConnections();
    sessions.destroy();
    await closed;
  };
  return {
    serve: (given) => {
      if (handlers !== undefined) throw new Error('An HTTP server serves one set of handlers.');
      handlers = given;
      return { url: `http://${host}:${port}`, port, authority: `${host}:${port}`, close };
    },
    close,
  };
}

/**
 * A listening server set aside for a proxy that has not needed one yet (see
 * {@link reserveHttpServer}): {@link take} makes it that proxy's, {@link release} gives it back.
 */
export interface HttpServerReservation {
  /** The server, listening, serving these handlers from now on. Once; not after {@link release}. */
  take(handlers: HttpServerHandlers): HttpServer;
  /** The server was never taken: it goes back to be reserved again, or closes. */
  release(): void;
}

/**
 * A listening server for a proxy that may never need one, ready to be taken synchronously: a
 * session's URL getters must answer at once, and Node learns a port only after an asynchronous
 * listen. A server released untaken is reserved again by the next proxy, so a suite whose
 * sessions are answered in process listens once, not once per session; a proxy that takes it
 * closes it. Concurrent reservations each hold their own server; at most
 * {@link SPARE_SERVERS_KEPT} released servers wait, idle and unreferenced (they never keep a
 * process alive, and close every connection a client makes before one is taken).
 */
export async function reserveHttpServer(options: HttpListenOptions): Promise<HttpServerReservation> {
  // Only a free port can be shared: a fixed one is the proxy's own.
  const key = options.port === 0 ? `${options.host} ${limitsKey(options.limits)}` : undefined;
  const bound = (key === undefined ? undefined : spareServers.get(key)?.pop()) ?? (await bindHttpServer(options));
  let state: 'reserved' | 'taken' | 'released' = 'reserved';
  return {
    take: (handlers) => {
      if (state !== 'reserved') throw new Error(`This server reservation was ${state} already.`);
      state = 'taken';
      return bound.serve(handlers);
    },
    release: () => {
      if (state !== 'reserved') return;
      state = 'released';
      const spares = key === undefined ? undefined : (spareServers.get(key) ?? []);
      if (key === undefined || spares === undefined || spares.length >= SPARE_SERVERS_KEPT) {
        void bound.close();
        return;
      }
      spares.push(bound);
      spareServers.set(key, spares);
    },
  };
}

/** How many released servers wait for the next reservation, per host and limits. */
export const SPARE_SERVERS_KEPT = 1;

const spareServers = new Map<string, BoundHttpServer[]>();

// Limits as a pool key; the defaults are one object, keyed once.
const limitsKeys = new WeakMap<object, string>();
function limitsKey(limits: Readonly<Required<ProxyLimits>>): string {
  let key = limitsKeys.get(limits);
  if (key === undefined) {
    key = Object.entries(limits).join(' ');
    if (Object.isFrozen(limits)) limitsKeys.set(limits, key);
  }
  return key;
}

const REQUEST_TIMEOUT = 'HTTP/1.1 408 Request Timeout\r\nconnection: close\r\ncontent-length: 0\r\n\r\n';

/**
 * Reads a request body of at most `limit` bytes. Past the limit it holds nothing more, calls
 * `onTooLarge` once and drops the rest as it arrives; otherwise `onBody` gets the whole body.
 */
export function readBody(request: HttpRequest, limit: number, onBody: (body: Buffer) => void, onTooLarge: () => void): void {
  let chunks: Buffer[] = [];
  let length = 0;
  let refused = false;
  request.on('data', (chunk: Buffer) => {
    if (refused) return;
    length += chunk.length;
    if (length > limit) {
      refused = true;
      chunks = [];
      onTooLarge();
      return;
    }
    chunks.push(chunk);
  });
  request.on('end', () => {
    if (refused) return;
    onBody(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length));
  });
}

/** Answers with a recorded response: at once, or (`pace: 'recorded'`) with its frames' recorded gaps. */
export function sendPrepared(response: HttpResponse, prepared: PreparedResponse, pace: Pace): void {
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
    while (index < frames.length && frames[index]!.atMs <= elapsed) writeBody(response, frames[index++]!.bytes);
    if (index < frames.length) timer = setTimeout(next, frames[index]!.atMs - elapsed);
    else response.end();
  };
  flushHeaders(response);
  next();
}

/**
 * A recorded stream cut off (chaos `stream-cut`): its headers and first `afterFrames` frames,
 * then the connection ends without the stream's end, as a provider whose connection dropped.
 * Over HTTP/2 the stream is reset instead (RST_STREAM, INTERNAL_ERROR); the session goes on.
 */
export function sendCut(response: HttpResponse, prepared: PreparedResponse, afterFrames: number, kind: string): void {
  if (!prepared.hasDate) response.sendDate = false;
  response.writeHead(prepared.status, { ...prepared.headers, [CHAOS_HEADER]: kind });
  // The headers go now, even with no frame to carry them.
  flushHeaders(response);
  const frames = (prepared.frames ?? []).slice(0, afterFrames);
  if (response instanceof ServerResponse) {
    for (const frame of frames) response.write(frame.bytes);
    // The frames are written before the socket ends; the chunked body never gets its last chunk.
    response.socket?.end();
    return;
  }
  // A reset goes out ahead of DATA frames still queued: it waits for the last frame's write.
  if (frames.length === 0) dropAnswer(response);
  frames.forEach((frame, index) => writeBody(response, frame.bytes, index === frames.length - 1 ? () => dropAnswer(response) : undefined));
}

/**
 * Ends an answer with no more of it, as a connection that drops (chaos `drop-connection`, a stall
 * the proxy gives up at close): HTTP/1.1 destroys the connection, HTTP/2 resets only the stream
 * (RST_STREAM, INTERNAL_ERROR).
 */
export function dropAnswer(response: HttpResponse): void {
  if (response instanceof ServerResponse) response.socket?.destroy();
  else if (!response.stream.closed) response.stream.close(http2.NGHTTP2_INTERNAL_ERROR);
}

/**
 * After this answer, the client sends no more on its request: HTTP/1.1 closes the connection
 * once the answer is sent; HTTP/2 resets the stream once its answer is sent (RST_STREAM,
 * NO_ERROR: RFC 9113 §8.1), and the session goes on.
 */
export function closeAfterAnswer(response: HttpResponse): void {
  if (response instanceof ServerResponse) response.shouldKeepAlive = false;
  else response.once('finish', () => response.stream.close(http2.NGHTTP2_NO_ERROR));
}

// Writes a piece of the body (`written` once it is handed on); false when the client's buffer is
// full (wait for 'drain'). The two versions' overloads do not unite into one callable.
function writeBody(response: HttpResponse, chunk: Uint8Array, written?: () => void): boolean {
  return response instanceof ServerResponse ? response.write(chunk, written) : response.write(chunk, written);
}

// Sends the headers now. HTTP/2's writeHead has sent them already.
function flushHeaders(response: HttpResponse): void {
  if (response instanceof ServerResponse) response.flushHeaders();
}

/** Answers with an error in the provider's own shape, its type also in `x-modeltape-error`. */
export function sendError(response: HttpResponse, answer: ErrorAnswer, retry: boolean): void {
  const reply = errorReply(answer, retry);
  response.writeHead(reply.status, reply.headers);
  response.end(reply.body);
}

/** How a relayed response ended, for the caller to count. */
export interface RelayEvents {
  /** The whole response was handed to Node to send. */
  onEnd(): void;
  /** The client closed the connection first; the upstream request is aborted. */
  onAbort(): void;
  /** The upstream failed; returns the message the client is answered with (a 502) if nothing was sent yet. */
  onError(error: Error): string;
}

/**
 * Sends a request to its upstream and streams the answer to the client as it comes (with
 * backpressure), feeding `recording` when there is one.
 */
export function relayUpstream(
  client: UpstreamClient,
  route: Route,
  request: ProxyRequest,
  response: HttpResponse,
  recording: ResponseRecording | undefined,
  events: RelayEvents,
): void {
  let done = false;
  const handler: UpstreamHandler = {
    onRequestStart(controller) {
      response.once('close', () => {
        if (!done) {
          done = true;
          events.onAbort();
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
      if (headers['content-length'] === undefined) flushHeaders(response);
    },
    onResponseData(controller, chunk) {
      recording?.data(chunk);
      if (!writeBody(response, chunk)) {
        controller.pause();
        response.once('drain', () => controller.resume());
      }
    },
    onResponseEnd() {
      if (done) return;
      done = true;
      response.end();
      events.onEnd();
    },
    onResponseError(_controller, error) {
      if (done) return;
      done = true;
      const message = events.onError(error);
      // In the shape the client reads the route's errors in: Anthropic's for Claude on Vertex AI, as modeltape's other errors there.
      const provider = errorProviderOf(route.upstream.provider, route.path);
      if (!response.headersSent) sendError(response, { kind: 'error', provider, status: 502, type: 'modeltape_upstream_error', message }, true);
      else response.destroy(error);
    },
  };
  client.dispatch(
    route.upstream,
    { method: request.method, path: route.forwardPath, headers: forwardHeaders(request.headers), body: request.body.length > 0 ? request.body : null },
    handler,
  );
}

/**
 * Headers for the upstream: the client's, minus hop-by-hop ones and framing undici computes.
 * Compression is turned off so the tape can hold plain bytes and frames can be cut as they come.
 * The same given its own result (a request signed after it keeps its signature).
 */
export function forwardHeaders(headers: ProxyRequest['headers']): Record<string, string | string[]> {
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
