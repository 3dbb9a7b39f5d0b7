import { constants } from 'node:http2';
import { connect, type Socket } from 'node:net';
import { describe, expect, test } from 'vitest';
import { startProxy } from 'modeltape/proxy';
import { closeAfterEach } from '../support/close-after-each.js';
import { writeTapeByHand } from '../support/hand-written-tape.js';
import { connectHttp2, http2Request } from '../support/http2-client.js';
import { tempDir } from '../support/temp-dir.js';

// Over HTTP/2 a connection carries many requests at once: a fault resets its own stream and the
// session goes on; the proxy's limits (connections, timeouts, a graceful close) hold as for HTTP/1.1.
const CHAT = '/openai/v1/chat/completions';
const STREAMED = { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Count to four' }] };
const FRAMES = ['data: {"n":1}\n\n', 'data: {"n":2}\n\n', 'data: {"n":3}\n\n', 'data: [DONE]\n\n'];
const ask = { path: CHAT, headers: { 'content-type': 'application/json' }, body: JSON.stringify(STREAMED) };

describe('over HTTP/2', () => {
  const dir = tempDir();
  const closing = closeAfterEach();
  const tape = (everyMs = 1) => writeTapeByHand(dir, 'h2', [{ request: STREAMED, response: { sse: FRAMES, everyMs } }]).tape;

  test('a chaos stream cut sends the first frames, then resets the stream; the retry on the same session gets the whole stream', async () => {
    const proxy = closing(await startProxy({ tape: tape(), chaos: { seed: 'h2', rate: 1, kinds: ['stream-cut'] }, log: () => undefined }));
    const session = await connectHttp2(proxy.url, closing);
    const cut = await http2Request(session, ask);
    const [fault] = proxy.summary().chaos!.faults;
    expect(fault).toMatchObject({ kind: 'stream-cut', fired: true });
    expect(cut.status).toBe(200);
    expect(cut.headers['x-modeltape-chaos']).toBe('stream-cut');
    expect(cut.body.toString('utf8')).toBe(FRAMES.slice(0, fault!.afterFrames).join(''));
    expect(cut.rstCode).toBe(constants.NGHTTP2_INTERNAL_ERROR);

    expect(session.destroyed).toBe(false);
    const retried = await http2Request(session, ask);
    expect([retried.status, retried.rstCode]).toEqual([200, 0]);
    expect(retried.body.toString('utf8')).toBe(FRAMES.join(''));
    expect((await proxy.close()).chaos!.faults[0]!.retried).toBe(true);
  });

  test('a chaos dropped connection resets the stream before any header; the session goes on', async () => {
    const proxy = closing(await startProxy({ tape: tape(), chaos: { seed: 'h2', rate: 1, kinds: ['drop-connection'] }, log: () => undefined }));
    const session = await connectHttp2(proxy.url, closing);
    const dropped = await http2Request(session, ask);
    expect(dropped.status).toBeUndefined();
    expect(dropped.body.length).toBe(0);
    expect(dropped.rstCode).toBe(constants.NGHTTP2_INTERNAL_ERROR);
    const retried = await http2Request(session, ask);
    expect([retried.status, retried.body.toString('utf8')]).toEqual([200, FRAMES.join('')]);
    expect((await proxy.close()).chaos!.faults[0]).toMatchObject({ kind: 'drop-connection', fired: true, retried: true });
  });

  test('close() with an idle session open sends GOAWAY and resolves at once', async () => {
    const proxy = closing(await startProxy({ tape: tape(), log: () => undefined }));
    const session = await connectHttp2(proxy.url, closing);
    expect((await http2Request(session, ask)).status).toBe(200);
    const goaway = new Promise<void>((resolve) => session.once('goaway', () => resolve()));
    const started = Date.now();
    await proxy.close();
    expect(Date.now() - started).toBeLessThan(1_000);
    await goaway;
  });

  test('close() sends GOAWAY at once, lets a stream in flight finish, then resolves', async () => {
    const proxy = closing(await startProxy({ tape: tape(200), pace: 'recorded', log: () => undefined }));
    const session = await connectHttp2(proxy.url, closing);
    let streamEnded = false;
    const streaming = http2Request(session, ask).finally(() => (streamEnded = true));
    const goawayInFlight = new Promise<boolean>((resolve) => session.once('goaway', () => resolve(!streamEnded)));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    await proxy.close();
    // The last frame was recorded 600 ms after the first.
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(await goawayInFlight).toBe(true);
    const answer = await streaming;
    expect([answer.status, answer.rstCode, answer.body.toString('utf8')]).toEqual([200, 0, FRAMES.join('')]);
  });

  test('a session counts towards --max-connections like an HTTP/1.1 connection', async () => {
    const logs: string[] = [];
    const proxy = closing(await startProxy({ tape: tape(), log: (message) => logs.push(message), limits: { maxConnections: 1 } }));
    const session = await connectHttp2(proxy.url, closing);
    const refused = await new Promise<string>((resolve, reject) => {
      const socket: Socket = connect(proxy.port, '127.0.0.1');
      let heard = '';
      socket.on('data', (chunk) => (heard += chunk));
      socket.on('error', reject);
      socket.on('close', () => resolve(heard));
    });
    expect(refused).toBe('');
    expect(logs.join('\n')).toMatch(/refused a connection from 127\.0\.0\.1:\d+: 1 connections are already open \(--max-connections\)/);
    // The session within the cap is served.
    expect((await http2Request(session, ask)).status).toBe(200);
  });

  test('a session that opens no stream within the headers timeout is closed, and the log says why', async () => {
    const logs: string[] = [];
    const proxy = closing(await startProxy({ tape: tape(), log: (message) => logs.push(message), limits: { headersTimeoutMs: 300, requestTimeoutMs: 5_000 } }));
    const session = await connectHttp2(proxy.url, closing);
    const started = Date.now();
    await new Promise<void>((resolve) => session.once('close', () => resolve()));
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(logs.join('\n')).toMatch(/closed a connection from .*: it did not send a whole request \(headers within 300 ms/);
  });

  test('a connection that sends only the start of the preface is closed once the headers timeout passes', async () => {
    const logs: string[] = [];
    const proxy = closing(await startProxy({ tape: tape(), log: (message) => logs.push(message), limits: { headersTimeoutMs: 300, requestTimeoutMs: 5_000 } }));
    const socket = connect(proxy.port, '127.0.0.1');
    closing({ close: async () => void socket.destroy() });
    const started = Date.now();
    socket.write('PRI * HTTP/2.0\r\n');
    await new Promise<void>((resolve) => socket.on('close', () => resolve()).resume());
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(logs.some((line) => line.includes('did not send a whole request'))).toBe(true);
  });

  test('a request whose body does not arrive within the request timeout is answered 408; the session goes on', async () => {
    const logs: string[] = [];
    const proxy = closing(await startProxy({ tape: tape(), log: (message) => logs.push(message), limits: { headersTimeoutMs: 5_000, requestTimeoutMs: 400 } }));
    const session = await connectHttp2(proxy.url, closing);
    const started = Date.now();
    const slow = await http2Request(session, { ...ask, body: '{', endBody: false });
    expect(slow.status).toBe(408);
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    expect(logs.some((line) => line.includes('did not send a whole request'))).toBe(true);
    expect((await http2Request(session, ask)).status).toBe(200);
  });

  test('a connection that sends the preface and then garbage loses its session; the proxy goes on', async () => {
    const proxy = closing(await startProxy({ tape: tape(), log: () => undefined }));
    const socket = connect(proxy.port, '127.0.0.1');
    closing({ close: async () => void socket.destroy() });
    socket.write(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1'), Buffer.alloc(64, 0xff)]));
    await new Promise<void>((resolve) =>
      socket
        .on('close', () => resolve())
        .on('error', () => undefined)
        .resume(),
    );
    const session = await connectHttp2(proxy.url, closing);
    expect((await http2Request(session, ask)).status).toBe(200);
    expect(proxy.summary().internalErrors).toBe(0);
  });
});
