import { connect, type IncomingHttpHeaders } from 'node:http2';
import { createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { HTTP2_PREFACE, Http2Sessions, http1Headers, type Http2ProxyRequest, type Http2ProxyResponse } from './http2-sessions.js';

describe('http1Headers', () => {
  test('drops the pseudo-headers and names the authority as host', () => {
    const headers = http1Headers({
      ':method': 'POST',
      ':path': '/model/x/converse',
      ':authority': '127.0.0.1:4000',
      ':scheme': 'http',
      'content-type': 'application/json',
      'x-amz-date': '20260105T000000Z',
    });
    expect(headers).toEqual({ host: '127.0.0.1:4000', 'content-type': 'application/json', 'x-amz-date': '20260105T000000Z' });
  });

  test('keeps a host header when there is no :authority', () => {
    expect(http1Headers({ ':method': 'GET', ':path': '/', host: 'example.test' })).toEqual({ host: 'example.test' });
  });
});

test('the preface is the 24 bytes of RFC 9113 §3.4', () => {
  expect(HTTP2_PREFACE.length).toBe(24);
  expect(HTTP2_PREFACE.toString('latin1')).toBe('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
});

describe('an HTTP/2 session', () => {
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  // Sessions fed from a plain TCP server on loopback; `handler` answers each request.
  async function serve(handler: (request: Http2ProxyRequest, response: Http2ProxyResponse) => void): Promise<string> {
    const sessions = new Http2Sessions({
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 5_000,
      idleTimeoutMs: 5_000,
      onRequest: handler,
      onIncomplete: () => undefined,
    });
    const server = createServer((socket) => sessions.accept(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    stop = async () => {
      sessions.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    };
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  function get(url: string, headers: Record<string, string> = {}): Promise<{ headers: IncomingHttpHeaders; body: string }> {
    const session = connect(url);
    const stream = session.request({ ':path': '/a/b?c=1', ...headers });
    stream.end();
    let body = '';
    let received: IncomingHttpHeaders = {};
    stream.on('response', (answer) => (received = answer));
    stream.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    return new Promise((resolve, reject) => {
      stream.on('error', reject);
      stream.on('close', () => {
        session.close();
        resolve({ headers: received, body });
      });
    });
  }

  test("shows the handler a request as HTTP/1.1's: method and url on their own, no pseudo-header", async () => {
    const seen: Array<{ method: string; url: string; headers: Record<string, unknown> }> = [];
    const url = await serve((request, response) => {
      seen.push({ method: request.method, url: request.url, headers: { ...request.headers } });
      response.end('ok');
    });
    expect((await get(url, { 'x-amz-target': 'fake' })).body).toBe('ok');
    expect(seen).toEqual([{ method: 'GET', url: '/a/b?c=1', headers: { host: url.slice('http://'.length), 'x-amz-target': 'fake' } }]);
  });

  test('leaves out the connection-specific headers HTTP/2 forbids instead of throwing on them', async () => {
    const url = await serve((_request, response) => {
      response.setHeader('keep-alive', 'timeout=5');
      response.setHeader('x-kept', 'set');
      response.writeHead(200, {
        connection: 'keep-alive',
        'transfer-encoding': 'chunked',
        upgrade: 'websocket',
        'proxy-connection': 'close',
        'content-type': 'text/plain',
      });
      response.end('fine');
    });
    const answer = await get(url);
    expect(answer.body).toBe('fine');
    const names = Object.keys(answer.headers).filter((name) => !name.startsWith(':') && name !== 'date');
    expect(names.sort()).toEqual(['content-type', 'x-kept']);
  });
});
