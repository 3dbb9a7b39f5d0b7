import { connect, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';

/**
 * An HTTP/2 session with prior knowledge (h2c) to `url`, open once its preface is exchanged,
 * handed to `closing` (see closeAfterEach) to be destroyed after the test.
 */
export async function connectHttp2(url: string, closing: (thing: { close(): Promise<void> }) => unknown): Promise<ClientHttp2Session> {
  const session = connect(url);
  session.on('error', () => undefined);
  closing({ close: async () => void session.destroy() });
  await new Promise<void>((resolve, reject) => {
    session.once('connect', () => resolve());
    session.once('error', reject);
  });
  return session;
}

/** What one stream brought back. */
export interface Http2Answer {
  /** undefined when the stream was reset before any response header. */
  status: number | undefined;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /**
   * Each DATA chunk as it arrived, `atMs` after the response headers and `sinceRequestMs` after the
   * request was sent (a busy machine may deliver the headers late, never a chunk early: a bound
   * below is safe only from the request).
   */
  chunks: Array<{ atMs: number; sinceRequestMs: number; text: string }>;
  /** The stream's RST_STREAM code: 0 (NGHTTP2_NO_ERROR) for a stream that ended normally. */
  rstCode: number | undefined;
}

/** Sends one request on `session` and waits for its stream to close. */
export function http2Request(
  session: ClientHttp2Session,
  request: { method?: string; path: string; headers?: Record<string, string>; body?: string; endBody?: boolean },
): Promise<Http2Answer> {
  const stream = session.request({ ':method': request.method ?? 'POST', ':path': request.path, ...request.headers });
  if (request.endBody === false) stream.write(request.body ?? '');
  else stream.end(request.body);
  let status: number | undefined;
  let headers: IncomingHttpHeaders = {};
  const requested = performance.now();
  let started = requested;
  const chunks: Http2Answer['chunks'] = [];
  const bytes: Buffer[] = [];
  stream.on('response', (received) => {
    headers = received;
    status = Number(received[':status']);
    started = performance.now();
  });
  stream.on('data', (chunk: Buffer) => {
    bytes.push(chunk);
    const now = performance.now();
    chunks.push({ atMs: now - started, sinceRequestMs: now - requested, text: chunk.toString('utf8') });
  });
  // A reset stream also errors; its code is what is asserted.
  stream.on('error', () => undefined);
  return new Promise((resolve) => {
    stream.once('close', () => resolve({ status, headers, body: Buffer.concat(bytes), chunks, rstCode: stream.rstCode }));
  });
}
