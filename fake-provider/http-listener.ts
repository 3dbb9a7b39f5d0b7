import { createServer, ServerResponse, type IncomingMessage, type Server } from 'node:http';
import { constants as http2 } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { googleAuthAnswer, Http2Sessions, serveHttp2WithPriorKnowledge, type Http2ProxyRequest, type Http2ProxyResponse } from '../proxy/internal.js';
import type { FakeRequest } from './fake-request.js';
import { FAKE_HEADER, type WireResponse } from './wire-response.js';

export interface ListenOptions {
  /** 0 picks a free port. @default 0 */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /**
   * The largest request body the fake reads; a larger one gets a provider-shaped 413 and the
   * connection is closed, so a hostile client cannot make it buffer without bound. @default 32 MiB
   */
  maxBodyBytes?: number;
}

export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

/** A client asking to upgrade its connection (a WebSocket), with its headers one string each. */
export interface UpgradeRequest {
  request: IncomingMessage;
  headers: Record<string, string>;
  socket: Duplex;
  head: Buffer;
}

/** A fake serving over HTTP. */
export interface FakeServer {
  /** e.g. `http://127.0.0.1:43121` */
  url: string;
  port: number;
  /**
   * The base URL for each SDK: `openai` and `@ai-sdk/openai` take `/v1` (the `openai` SDK's
   * `OpenAIRealtimeWS` too, with `loopbackWebSocket()` from `modeltape/proxy`); `@anthropic-ai/sdk` the bare
   * URL (`@ai-sdk/anthropic` takes `/v1`); `@google/genai` (`httpOptions.baseUrl`) and the `ollama`
   * client (`host`) the bare URL (`@ai-sdk/google` takes `/v1beta`); `@aws-sdk/client-bedrock-runtime`
   * the bare URL as its `endpoint`; `@google/genai` with `vertexai: true` the bare URL
   * (`AnthropicVertex` takes `/v1`), with `placeholderGoogleCredentials(url)` as its credentials; the
   * `openai` package's `AzureOpenAI` `/azure` as its `endpoint` (an `OpenAI` client on Azure's v1
   * routes takes `/azure/openai/v1`).
   */
  baseUrls: { openai: string; anthropic: string; gemini: string; ollama: string; bedrock: string; vertex: string; azure: string };
  /** Stops serving; hung and open connections are closed. */
  close(): Promise<void>;
}

// A request over HTTP/1.1, or over cleartext HTTP/2 (whose headers read as HTTP/1.1's), and its response.
type Request = IncomingMessage | Http2ProxyRequest;
type Response = ServerResponse | Http2ProxyResponse;

/**
 * Serves `handle` over node:http: frames written one by one, drops and hangs as the wire says.
 * One port speaks HTTP/1.1 and cleartext HTTP/2 with prior knowledge, which the AWS SDK's Bedrock
 * Runtime client speaks to an http:// endpoint by default. `upgrade` takes the connections that
 * ask to be upgraded (HTTP/1.1); without it they are closed.
 */
export async function serveOverHttp(
  handle: (request: FakeRequest) => WireResponse | Promise<WireResponse>,
  options: ListenOptions,
  sleep: (milliseconds: number) => Promise<void>,
  upgrade?: (upgrade: UpgradeRequest) => void,
): Promise<FakeServer> {
  const sockets = new Set<Socket>();
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const serve = (request: Request, response: Response): void => {
    const chunks: Buffer[] = [];
    let received = 0;
    let refused = false;
    request.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received <= maxBodyBytes) chunks.push(chunk);
      else if (!refused) {
        refused = true;
        chunks.length = 0;
        tooLarge(request.url ?? '/', response, maxBodyBytes);
      }
    });
    request.on('end', () => {
      if (refused) return;
      // placeholderGoogleCredentials(server.url): the Google token exchange a Vertex AI client makes first.
      const google = googleAuthAnswer(request.method ?? 'GET', request.url ?? '/');
      if (google !== undefined) {
        response.writeHead(google.status, { ...google.headers, [FAKE_HEADER]: '1' }).end(google.body);
        return;
      }
      const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      let wire: WireResponse | Promise<WireResponse>;
      try {
        wire = handle({ method: request.method ?? 'GET', path: request.url ?? '/', headers: headersOf(request), body: bytes.toString('utf8'), bytes });
      } catch (error) {
        failed(response, error);
        return;
      }
      // Most answers are decided at once: no promise in between.
      if (wire instanceof Promise)
        wire.then(
          (decided) => written(response, decided, sleep),
          (error: unknown) => failed(response, error),
        );
      else written(response, wire, sleep);
    });
  };
  const server: Server = createServer({ noDelay: true }, serve);
  // Node's own HTTP/1.1 timeouts: a header within 60 s, the whole request within 300 s.
  const sessions = new Http2Sessions({
    headersTimeoutMs: server.headersTimeout,
    requestTimeoutMs: server.requestTimeout || 300_000,
    idleTimeoutMs: server.keepAliveTimeout,
    onRequest: serve,
    onIncomplete: () => undefined,
  });
  serveHttp2WithPriorKnowledge(server, sessions, {
    timeoutMs: server.headersTimeout,
    onTimeout: (socket) => socket.destroy(),
    onConnection: (socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    },
  });
  // An upgraded connection stays in `sockets`, so close() ends its session too.
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (upgrade === undefined) socket.destroy();
    else upgrade({ request, headers: headersOf(request), socket, head });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = options.host ?? '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    port,
    baseUrls: { openai: `${url}/v1`, anthropic: url, gemini: url, ollama: url, bedrock: url, vertex: url, azure: `${url}/azure` },
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      sessions.destroy();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

/** The request's headers, one string each: node:http's own record, unless a header came as a list (set-cookie). */
function headersOf(request: Request): Record<string, string> {
  const received = request.headers;
  let listed = false;
  for (const name in received) if (Array.isArray(received[name])) listed = true;
  if (!listed) return received as Record<string, string>;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(received)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  return headers;
}

/** The fake's handler threw or rejected: a 500 in OpenAI's error shape, or, once the headers are out, a cut connection. */
function failed(response: Response, error: unknown): void {
  if (response.headersSent) {
    cutConnection(response);
    return;
  }
  response.writeHead(500, { 'content-type': 'application/json', 'x-should-retry': 'false', [FAKE_HEADER]: '1' });
  response.end(
    JSON.stringify({
      error: { message: `modeltape FakeProvider failed: ${(error as Error).message}`, type: 'fake_internal_error', param: null, code: null },
    }),
  );
}

function written(response: Response, wire: WireResponse, sleep: (milliseconds: number) => Promise<void>): void {
  // A response that cannot even be written (an invalid header value) closes the connection.
  try {
    if (wire.delayMs)
      sleep(wire.delayMs)
        .then(() => write(response, wire))
        .catch(() => cutConnection(response));
    else write(response, wire);
  } catch {
    cutConnection(response);
  }
}

/** A body over the limit: a 413 in the provider's own error shape, then the connection is closed. */
function tooLarge(url: string, response: Response, maxBodyBytes: number): void {
  const message = `The request body is larger than this modeltape FakeProvider reads (maxBodyBytes ${maxBodyBytes}).`;
  const anthropic = /^(\/anthropic)?(\/v1)?\/messages(\?|$)/.test(url);
  const body = anthropic
    ? { type: 'error', error: { type: 'request_too_large', message } }
    : { error: { message, type: 'invalid_request_error', param: null, code: 'request_too_large' } };
  if (response.headersSent) return;
  response.writeHead(413, { 'content-type': 'application/json', connection: 'close', 'x-should-retry': 'false', [FAKE_HEADER]: '1' });
  response.end(JSON.stringify(body), () => cutConnection(response));
}

function write(response: Response, wire: WireResponse): void {
  const cut = wire.cut;
  if (cut !== undefined && wire.frames === undefined) {
    // A drop closes the socket without a response; a hang leaves it open until the client leaves.
    if (cut.kind === 'drop') cutConnection(response);
    return;
  }
  if (wire.frames === undefined) {
    const body = wire.body ?? '';
    const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    // The same header lines as setHeader('content-length') then writeHead(status, headers) would
    // write, without node:http's per-header bookkeeping, when no name could repeat another.
    if (lowerCaseNamesWithoutLength(wire.headers)) response.writeHead(wire.status, { 'content-length': length, ...wire.headers });
    else {
      response.setHeader('content-length', length);
      response.writeHead(wire.status, wire.headers);
    }
    response.end(body);
    return;
  }
  response.writeHead(wire.status, wire.headers);
  const limit = cut === undefined ? wire.frames.length : Math.min(cut.afterFrames, wire.frames.length);
  if (cut === undefined) {
    for (const frame of wire.frames) writeFrame(response, frame);
    response.end();
    return;
  }
  // Cut after the frames have reached the socket, without the stream's proper end.
  const drop = (): void => {
    if (cut.kind === 'drop') cutConnection(response);
  };
  if (limit === 0) {
    // No frame to carry them: the headers go alone (HTTP/2's writeHead has sent them), then the connection is cut.
    if (response instanceof ServerResponse) response.flushHeaders();
    setImmediate(drop);
    return;
  }
  for (let index = 0; index < limit; index++) {
    writeFrame(response, wire.frames[index]!, index === limit - 1 ? drop : undefined);
  }
}

/** Whether every header name is lower case and none is content-length: then no two name one header. */
function lowerCaseNamesWithoutLength(headers: Record<string, string>): boolean {
  for (const name in headers) if (name === 'content-length' || name !== name.toLowerCase()) return false;
  return true;
}

// The two versions' write overloads do not unite into one callable.
function writeFrame(response: Response, frame: string | Uint8Array, written?: () => void): void {
  if (response instanceof ServerResponse) response.write(frame, written);
  else response.write(frame, written);
}

/**
 * Ends an answer with no more of it: HTTP/1.1 destroys the connection; HTTP/2 resets only the
 * stream (RST_STREAM, INTERNAL_ERROR), as a provider's load balancer does, and the session goes on.
 */
function cutConnection(response: Response): void {
  if (response instanceof ServerResponse) response.socket?.destroy();
  else if (!response.stream.closed) response.stream.close(http2.NGHTTP2_INTERNAL_ERROR);
}
