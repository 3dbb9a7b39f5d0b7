// The proxy's HTTP/2 side: cleartext HTTP/2 with prior knowledge (h2c), which the AWS SDK's
// Bedrock Runtime client speaks to an http:// endpoint. Its connections come from the one port
// startHttpServer listens on, which tells them from HTTP/1.1 ones by their first bytes; its
// requests reach the same handler as HTTP/1.1's, and look like them.
import type { IncomingHttpHeaders } from 'node:http';
import {
  constants,
  createServer,
  Http2ServerRequest,
  Http2ServerResponse,
  type IncomingHttpHeaders as Http2IncomingHttpHeaders,
  type OutgoingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { ReadableOptions } from 'node:stream';

/** The first bytes of every HTTP/2 connection (RFC 9113 §3.4). */
export const HTTP2_PREFACE: Buffer = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

// Fields HTTP/2 forbids in a message (RFC 9113 §8.2.2); Node throws on a response that has one.
// They describe one HTTP/1.1 connection: a recording's or an upstream's, never this stream's.
const CONNECTION_SPECIFIC: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
  'te',
]);

/**
 * An HTTP/2 request whose `headers` read as an HTTP/1.1 request's: no pseudo-header (`:method`,
 * `:path`, `:authority`, `:scheme`), and `host` from `:authority`. The method and the path stay
 * on `method` and `url`, so what reads a request (admission, keys, recording, the headers
 * forwarded upstream) reads both versions alike.
 */
export class Http2ProxyRequest extends Http2ServerRequest {
  constructor(stream: ServerHttp2Stream, headers: Http2IncomingHttpHeaders, options: ReadableOptions, rawHeaders: readonly string[]) {
    super(stream, headers, options, rawHeaders);
    // `headers` is a getter of Http2ServerRequest: an own property hides it. Node's own `method`,
    // `url` and `authority` read the stream's headers, not this.
    Object.defineProperty(this, 'headers', { value: http1Headers(headers), enumerable: true });
  }
}

/**
 * An HTTP/2 response that leaves out the connection-specific headers HTTP/2 forbids (see
 * CONNECTION_SPECIFIC) instead of throwing on them. Its `writeHead` sends the headers at once.
 */
export class Http2ProxyResponse extends Http2ServerResponse<Http2ProxyRequest> {
  override setHeader(name: string, value: number | string | readonly string[]): void {
    if (!CONNECTION_SPECIFIC.has(name.toLowerCase())) super.setHeader(name, value);
  }

  override writeHead(statusCode: number, headers?: OutgoingHttpHeaders): this;
  override writeHead(statusCode: number, statusMessage: string, headers?: OutgoingHttpHeaders): this;
  override writeHead(statusCode: number, messageOrHeaders?: string | OutgoingHttpHeaders, headers?: OutgoingHttpHeaders): this {
    // HTTP/2 has no reason phrase: it is dropped, as Node would with a warning.
    const given = typeof messageOrHeaders === 'string' ? headers : messageOrHeaders;
    return super.writeHead(statusCode, given === undefined ? {} : allowedHeaders(given));
  }
}

/** Copies `headers` without the fields HTTP/2 forbids. */
function allowedHeaders(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
  const allowed: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (!CONNECTION_SPECIFIC.has(name.toLowerCase())) allowed[name] = value;
  return allowed;
}

/** HTTP/2 request headers as HTTP/1.1 shows them: no pseudo-header, `host` from `:authority`. */
export function http1Headers(headers: Http2IncomingHttpHeaders): IncomingHttpHeaders {
  const plain: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (!name.startsWith(':')) plain[name] = value;
  const authority = headers[':authority'];
  if (authority !== undefined) plain.host = authority;
  return plain;
}

/** What {@link Http2Sessions} serves and how long it waits. */
export interface Http2SessionsOptions {
  /** A session that opens no stream within it is closed (and `onIncomplete` told). */
  headersTimeoutMs: number;
  /** A request whose headers and body do not all arrive within it is answered 408. */
  requestTimeoutMs: number;
  /** A session with no open stream is closed after it (HTTP/1.1's keep-alive timeout). */
  idleTimeoutMs: number;
  onRequest(request: Http2ProxyRequest, response: Http2ProxyResponse): void;
  /** A session sent no request in time, or a request did not arrive whole in time. */
  onIncomplete(remoteAddress: string | undefined): void;
}

/**
 * The HTTP/2 sessions of one proxy: a `node:http2` server that never listens, given the
 * connections whose first bytes were HTTP/2's. Nothing here keeps the process alive: the sockets
 * come unref'd and every timer is unref'd.
 */
export class Http2Sessions {
  readonly #options: Http2SessionsOptions;
  readonly #sessions = new Set<ServerHttp2Session>();
  readonly #server;

  constructor(options: Http2SessionsOptions) {
    this.#options = options;
    this.#server = createServer({ Http2ServerRequest: Http2ProxyRequest, Http2ServerResponse: Http2ProxyResponse }, (request, response) =>
      this.#serve(request, response),
    );
    this.#server.on('session', (session) => this.#track(session));
  }

  /** Serves a connection whose first bytes were the HTTP/2 preface (given back to the socket unread). */
  accept(socket: Socket): void {
    this.#server.emit('connection', socket);
  }

  /** Sends GOAWAY on every session: it takes no new stream and closes once its open ones end. */
  goAway(): void {
    for (const session of this.#sessions) session.close();
  }

  /** Closes every session now, resetting its open streams. */
  destroy(): void {
    for (const session of this.#sessions) session.destroy();
  }

  #track(session: ServerHttp2Session): void {
    const { headersTimeoutMs, idleTimeoutMs, onIncomplete } = this.#options;
    this.#sessions.add(session);
    let open = 0;
    let served = false;
    let timer: NodeJS.Timeout | undefined;
    // Closed when no stream is open for a while: at first for the headers timeout, as an HTTP/1.1
    // connection that sends no request; after a stream, for the keep-alive timeout.
    const whenIdle = (): void => {
      timer = setTimeout(
        () => {
          if (!served) onIncomplete(session.socket?.remoteAddress);
          session.close();
        },
        served ? idleTimeoutMs : headersTimeoutMs,
      ).unref();
    };
    whenIdle();
    session.on('stream', (stream: ServerHttp2Stream) => {
      open++;
      served = true;
      clearTimeout(timer);
      stream.once('close', () => {
        if (--open === 0 && !session.closed) whenIdle();
      });
    });
    session.once('close', () => {
      clearTimeout(timer);
      this.#sessions.delete(session);
    });
  }

  #serve(request: Http2ProxyRequest, response: Http2ProxyResponse): void {
    const { requestTimeoutMs, onIncomplete } = this.#options;
    // As HTTP/1.1's request timeout: the headers and the whole body within it. Only this stream
    // is answered 408 and reset; the session's other streams go on.
    const timer = setTimeout(() => {
      onIncomplete(request.socket.remoteAddress);
      if (!response.headersSent) response.writeHead(408, { 'content-length': '0' });
      response.end();
      response.stream.close(constants.NGHTTP2_NO_ERROR);
    }, requestTimeoutMs).unref();
    const settled = (): void => clearTimeout(timer);
    request.once('end', settled);
    response.once('close', settled);
    this.#options.onRequest(request, response);
  }
}

/** How long {@link serveHttp2WithPriorKnowledge} waits for a connection's first bytes, and what it does then. */
export interface PriorKnowledgeOptions {
  /** A connection that sends too little to tell (nothing, or the start of the preface) within it is given to `onTimeout`. */
  timeoutMs: number;
  onTimeout(socket: Socket): void;
  /** Each new connection, before its first bytes are read. */
  onConnection?(socket: Socket): void;
  /** Whether to serve a new connection at all: one refused is destroyed unread. @default () => true */
  accept?(socket: Socket): boolean;
}

/**
 * Makes one HTTP/1.1 server's port serve cleartext HTTP/2 with prior knowledge too: each
 * connection goes to `sessions` when its first bytes are the HTTP/2 preface, else to the
 * server's own HTTP/1.1 handling. The HTTP/1.1 server keeps listening (its connection cap,
 * `drop`, and the tracking its timeouts need stay Node's own); its connection listener runs
 * only for the HTTP/1.1 connections. Returns the connections whose first bytes are still awaited
 * (to destroy at close).
 */
export function serveHttp2WithPriorKnowledge(server: Server, sessions: Http2Sessions, options: PriorKnowledgeOptions): ReadonlySet<Socket> {
  // Node's http.Server serves a connection in the one 'connection' listener it installs: if that
  // changes, fail here, not on a request.
  const connectionListeners = server.listeners('connection');
  if (connectionListeners.length !== 1) throw new Error(`node:http's Server has ${connectionListeners.length} connection listeners; modeltape expects 1.`);
  const serveHttp1 = connectionListeners[0] as (this: Server, socket: Socket) => void;
  server.removeListener('connection', serveHttp1);
  const peeking = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    if (options.accept?.(socket) === false) {
      socket.destroy();
      return;
    }
    options.onConnection?.(socket);
    peeking.add(socket);
    let seen = Buffer.alloc(0);
    // A connection that sends too little to tell is held no longer than one that sends no whole
    // HTTP/1.1 header.
    const timer = setTimeout(() => options.onTimeout(socket), options.timeoutMs).unref();
    const stop = (): void => {
      clearTimeout(timer);
      peeking.delete(socket);
      socket.off('readable', onReadable);
      socket.off('error', onError);
      socket.off('end', onError);
      socket.off('close', stop);
    };
    const onError = (): void => {
      socket.destroy();
    };
    const onReadable = (): void => {
      for (let chunk: Buffer | null = socket.read(); chunk !== null; chunk = socket.read()) seen = Buffer.concat([seen, chunk]);
      const compared = Math.min(seen.length, HTTP2_PREFACE.length);
      const http2Preface = seen.subarray(0, compared).equals(HTTP2_PREFACE.subarray(0, compared));
      if (http2Preface && seen.length < HTTP2_PREFACE.length) return;
      stop();
      // The bytes go back to the socket, for the server that reads the connection from its start.
      socket.unshift(seen);
      if (http2Preface) sessions.accept(socket);
      else serveHttp1.call(server, socket);
    };
    socket.on('readable', onReadable);
    socket.on('error', onError);
    // Ended before its first bytes told anything: nothing to answer.
    socket.on('end', onError);
    socket.on('close', stop);
  });
  return peeking;
}
