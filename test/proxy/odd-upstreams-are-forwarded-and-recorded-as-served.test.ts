import { existsSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, test } from 'vitest';
import { startProxy, type RunningProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { tempDir } from '../support/temp-dir.js';

const CHAT = {
  id: 'chatcmpl-odd',
  object: 'chat.completion',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Paris' }, finish_reason: 'stop' }],
};
const CHAT_BYTES = Buffer.from(JSON.stringify(CHAT));

const dir = tempDir();
const closers: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function upstreamOf(handler: (request: IncomingMessage, response: ServerResponse, body: Buffer) => void): Promise<string> {
  const server = createHttpServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handler(request, response, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

// A server that writes raw bytes and closes: for framings Node's own server never produces.
async function rawUpstream(answer: string | ((socket: import('node:net').Socket) => void)): Promise<string> {
  const server: Server = createNetServer((socket) => {
    socket.once('data', () => (typeof answer === 'string' ? socket.end(answer) : answer(socket)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function proxyTo(upstream: string, tape: string, mode: 'record' | 'replay' = 'record', logs: string[] = []): Promise<RunningProxy> {
  const proxy = await startProxy({ tape, mode, allowRecordInCi: true, log: (message) => logs.push(message), upstreams: { openai: upstream } });
  closers.push(() => proxy.close());
  return proxy;
}

async function post(proxy: RunningProxy, body = '{"model":"gpt-4o","messages":[]}'): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(`${proxy.baseUrls.openai}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe('Expect: 100-continue', () => {
  test('is answered with 100, the body is forwarded once it comes, and the exchange is recorded', async () => {
    let received = '';
    const upstream = await upstreamOf((request, response, body) => {
      received = body.toString();
      response.writeHead(200, { 'content-type': 'application/json' }).end(CHAT_BYTES);
    });
    const tape = `${dir}/expect.jsonl`;
    const proxy = await proxyTo(upstream, tape);
    const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(2 * 1024 * 1024) }] });
    const result = await new Promise<{ continued: boolean; status: number; text: string }>((resolve, reject) => {
      const request = httpRequest(`${proxy.baseUrls.openai}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
      });
      let continued = false;
      // The body waits for the 100, as curl does for a body over 1 MB.
      request.on('continue', () => {
        continued = true;
        request.end(body);
      });
      request.on('response', (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ continued, status: response.statusCode!, text }));
      });
      request.on('error', reject);
      request.flushHeaders();
    });
    expect(result.continued).toBe(true);
    expect(result.status).toBe(200);
    expect(JSON.parse(result.text)).toEqual(CHAT);
    expect(received).toBe(body);
    const summary = await proxy.close();
    expect(summary.recorded).toBe(1);
    expect(loadTape(tape).exchanges[0]!.exchange.request.headers).not.toHaveProperty('expect');
  });
});

describe('103 Early Hints', () => {
  test('reach the client before the 200, and the tape holds the final 200', async () => {
    const upstream = await upstreamOf((_request, response) => {
      response.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
      setTimeout(() => response.writeHead(200, { 'content-type': 'application/json', 'x-final': 'yes' }).end(CHAT_BYTES), 20);
    });
    const tape = `${dir}/hints.jsonl`;
    const proxy = await proxyTo(upstream, tape);
    const seen = await new Promise<{ hints: string[]; status: number; text: string }>((resolve, reject) => {
      const hints: string[] = [];
      const request = httpRequest(`${proxy.baseUrls.openai}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' } });
      request.on('information', (info) => hints.push(`${info.statusCode} ${String(info.headers.link)}`));
      request.on('response', (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ hints, status: response.statusCode!, text }));
      });
      request.on('error', reject);
      request.end('{"model":"gpt-4o"}');
    });
    expect(seen.hints).toEqual(['103 </style.css>; rel=preload; as=style']);
    expect(seen.status).toBe(200);
    expect(JSON.parse(seen.text)).toEqual(CHAT);
    const summary = await proxy.close();
    expect(summary.recorded).toBe(1);
    const recorded = loadTape(tape).exchanges[0]!.exchange.response;
    expect(recorded.status).toBe(200);
    expect(recorded.headers['x-final']).toBe('yes');
    expect(recorded.headers).not.toHaveProperty('link');
  });
});

describe('stacked content encodings', () => {
  const cases: [string, (bytes: Buffer) => Buffer][] = [
    ['gzip, gzip', (bytes) => gzipSync(gzipSync(bytes))],
    ['deflate, gzip', (bytes) => gzipSync(deflateSync(bytes))],
    ['gzip, br', (bytes) => brotliCompressSync(gzipSync(bytes))],
    ['br', (bytes) => brotliCompressSync(bytes)],
  ];
  for (const [encoding, encode] of cases) {
    test(`"${encoding}" is decoded last coding first, and replay serves what the client got live`, async () => {
      const upstream = await upstreamOf((_request, response) =>
        response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding }).end(encode(CHAT_BYTES)),
      );
      const tape = `${dir}/stacked.jsonl`;
      const recorder = await proxyTo(upstream, tape);
      const live = await post(recorder);
      expect((await recorder.close()).recorded).toBe(1);
      const stored = loadTape(tape).exchanges[0]!.exchange.response;
      expect(stored.body).toMatchObject({ json: CHAT });
      expect(stored.headers).not.toHaveProperty('content-encoding');
      const replayer = await proxyTo(upstream, tape, 'replay');
      const replayed = await post(replayer);
      expect(replayed.status).toBe(200);
      expect(replayed.text).toBe(live.text);
      expect(replayed.text).toBe(CHAT_BYTES.toString());
    });
  }

  test('an unknown coding is recorded as the raw bytes with its header, never as decoded, and replays them so', async () => {
    const raw = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xff, 0x10, 0x80]);
    const upstream = await upstreamOf((_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'x-private' }).end(raw),
    );
    const tape = `${dir}/unknown.jsonl`;
    const recorder = await proxyTo(upstream, tape);
    const live = await fetch(`${recorder.baseUrls.openai}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    }).then(async (response) => ({ encoding: response.headers.get('content-encoding'), bytes: Buffer.from(await response.arrayBuffer()) }));
    expect((await recorder.close()).recorded).toBe(1);
    const stored = loadTape(tape).exchanges[0]!.exchange.response;
    expect(stored.headers['content-encoding']).toBe('x-private');
    expect(stored.body).toEqual({ base64: raw.toString('base64') });
    const replayer = await proxyTo(upstream, tape, 'replay');
    const replayed = await new Promise<{ encoding: string | undefined; bytes: Buffer }>((resolve, reject) => {
      const request = httpRequest(
        `${replayer.baseUrls.openai}/chat/completions`,
        { method: 'POST', headers: { 'content-type': 'application/json' } },
        (response) => {
          expect(response.statusCode).toBe(200);
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ encoding: response.headers['content-encoding'], bytes: Buffer.concat(chunks) }));
        },
      );
      request.on('error', reject);
      request.end('{}');
    });
    expect(live.encoding).toBe('x-private');
    expect(replayed.encoding).toBe('x-private');
    expect(replayed.bytes.equals(raw)).toBe(true);
  });
});

describe('a stream that ends early', () => {
  const head = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n';
  const chunk = (content: string) => `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] })}\n\n`;

  test('a close-delimited stream cut before data: [DONE] reaches the client but is refused for the tape, with the reason', async () => {
    const upstream = await rawUpstream(head + chunk('Par'));
    const tape = `${dir}/cut.jsonl`;
    const proxy = await proxyTo(upstream, tape);
    const live = await post(proxy);
    expect(live.status).toBe(200);
    expect(live.text).toBe(chunk('Par'));
    const summary = await proxy.close();
    expect(summary.recorded).toBe(0);
    expect(summary.refused).toBe(1);
    expect(summary.problems.join('\n')).toMatch(/closed a stream without a length or chunked framing before its terminating event \(data: \[DONE\]/);
    expect(existsSync(tape)).toBe(false); // nothing recorded, so no tape was made
  });

  for (const [name, ending] of [
    ['OpenAI chat', 'data: [DONE]\n\n'],
    ['Anthropic', 'event: message_stop\ndata: {"type":"message_stop"}\n\n'],
    ['Responses', 'event: response.completed\ndata: {"type":"response.completed","response":{}}\n\n'],
    ['Responses (failed)', 'event: response.failed\ndata: {"type":"response.failed","response":{}}\n\n'],
  ] as const) {
    test(`a close-delimited ${name} stream that reached its terminating event is recorded whole`, async () => {
      const upstream = await rawUpstream(head + chunk('Paris') + ending);
      const tape = `${dir}/whole.jsonl`;
      const proxy = await proxyTo(upstream, tape);
      expect((await post(proxy)).status).toBe(200);
      const summary = await proxy.close();
      expect(summary.recorded).toBe(1);
      const frames = loadTape(tape).exchanges[0]!.exchange.response.stream!.frames;
      expect(frames.map((frame) => ('text' in frame ? frame.text : '')).join('')).toBe(chunk('Paris') + ending);
    });
  }

  test('a chunked stream needs no terminating event: its framing says it ended, so it is recorded', async () => {
    const upstream = await upstreamOf((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(chunk('Par'));
      response.end(chunk('is'));
    });
    const tape = `${dir}/chunked.jsonl`;
    const proxy = await proxyTo(upstream, tape);
    expect((await post(proxy)).text).toBe(chunk('Par') + chunk('is'));
    const summary = await proxy.close();
    expect(summary.refused).toBe(0);
    expect(summary.recorded).toBe(1);
  });

  test('a chunked stream the upstream resets midway is an upstream error, and nothing is recorded', async () => {
    const upstream = await rawUpstream((socket) => {
      const first = chunk('Par');
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n${first.length.toString(16)}\r\n${first}\r\n`);
      setTimeout(() => socket.resetAndDestroy(), 30);
    });
    const tape = `${dir}/reset.jsonl`;
    const proxy = await proxyTo(upstream, tape);
    await post(proxy).catch((error: Error) => error);
    const summary = await proxy.close();
    expect(summary.upstreamErrors).toBe(1);
    expect(summary.recorded).toBe(0);
    expect(existsSync(tape)).toBe(false); // nothing recorded, so no tape was made
  });
});
