import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { startProxy, type RunningProxy } from 'modeltape/proxy';
import { tempDir } from '../support/temp-dir.js';

const dir = tempDir();
let proxy: RunningProxy | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await proxy?.close();
  proxy = undefined;
});

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', reject);
    sockets.push(socket);
  });
}

// What the proxy answers before it closes the connection, and how long that took.
function untilClosed(socket: Socket): Promise<{ text: string; afterMs: number }> {
  const started = Date.now();
  let text = '';
  socket.on('data', (chunk) => (text += chunk));
  return new Promise((resolve) => socket.on('close', () => resolve({ text, afterMs: Date.now() - started })));
}

describe('a client that is slow or idle', () => {
  test('sending its headers a byte at a time (slowloris) gets a 408 once the headers timeout passes, and the log says why', async () => {
    const logs: string[] = [];
    proxy = await startProxy({
      tape: `${dir}/t.jsonl`,
      mode: 'passthrough',
      log: (message) => logs.push(message),
      limits: { headersTimeoutMs: 300, requestTimeoutMs: 5_000 },
    });
    const socket = await open(proxy.port);
    const closed = untilClosed(socket);
    const head = 'POST /openai/v1/chat/completions HTTP/1.1\r\nhost: x\r\nx-slow: ';
    let index = 0;
    const trickle = setInterval(() => {
      if (!socket.destroyed) socket.write(head[index++ % head.length]!);
    }, 40);
    const { text, afterMs } = await closed;
    clearInterval(trickle);
    expect(text).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
    expect(afterMs).toBeGreaterThanOrEqual(250);
    expect(afterMs).toBeLessThan(3_000);
    expect(logs.join('\n')).toMatch(
      /closed a connection from .*: it did not send a whole request \(headers within 300 ms, headers and body within 5000 ms; --headers-timeout, --request-timeout\)/,
    );
  });

  test('sending its body slower than the request timeout gets a 408 too', async () => {
    const logs: string[] = [];
    proxy = await startProxy({
      tape: `${dir}/t.jsonl`,
      mode: 'passthrough',
      log: (message) => logs.push(message),
      limits: { headersTimeoutMs: 200, requestTimeoutMs: 500 },
    });
    const socket = await open(proxy.port);
    const closed = untilClosed(socket);
    socket.write('POST /openai/v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{');
    const trickle = setInterval(() => {
      if (!socket.destroyed) socket.write(' ');
    }, 40);
    const { text, afterMs } = await closed;
    clearInterval(trickle);
    expect(text).toMatch(/^HTTP\/1\.1 408/);
    expect(afterMs).toBeGreaterThanOrEqual(400);
    expect(afterMs).toBeLessThan(3_000);
    expect(logs.some((line) => line.includes('did not send a whole request'))).toBe(true);
  });
});

describe('connections', () => {
  test('past the cap are closed as they arrive, with a message naming the cap and the flag; those within it are served', async () => {
    const logs: string[] = [];
    proxy = await startProxy({ tape: `${dir}/t.jsonl`, mode: 'passthrough', log: (message) => logs.push(message), limits: { maxConnections: 2 } });
    const held = [await open(proxy.port), await open(proxy.port)];
    const third = await open(proxy.port);
    const { text } = await untilClosed(third);
    expect(text).toBe('');
    expect(logs.join('\n')).toMatch(/refused a connection from 127\.0\.0\.1:\d+: 2 connections are already open \(--max-connections\)/);
    // The held ones still get answers (404: no upstream named "nowhere").
    const answer = untilClosed(held[0]!);
    held[0]!.write('GET /nowhere/x HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
    expect((await answer).text).toMatch(/^HTTP\/1\.1 404/);
  });
});

describe('--host', () => {
  test('other than loopback warns that the proxy is reachable from the network, and what it exposes', async () => {
    const logs: string[] = [];
    proxy = await startProxy({
      tape: `${dir}/t.jsonl`,
      mode: 'auto',
      allowRecordInCi: true,
      host: '0.0.0.0',
      log: (message) => logs.push(message),
      upstreams: { openai: 'http://127.0.0.1:9' },
    });
    const warning = logs.find((line) => line.includes('reachable from the network'));
    expect(warning).toContain(`listens on http://0.0.0.0:${proxy.port}`);
    expect(warning).toContain(`every answer recorded on ${dir}/t.jsonl`);
    expect(warning).toContain('a relay to http://127.0.0.1:9');
    expect(warning).toContain('Listen on 127.0.0.1 (the default)');
  });

  for (const host of ['127.0.0.1', '::1', 'localhost']) {
    test(`${host} says nothing of the network`, async () => {
      const logs: string[] = [];
      try {
        proxy = await startProxy({ tape: `${dir}/t.jsonl`, mode: 'passthrough', host, log: (message) => logs.push(message) });
      } catch (error) {
        // A machine without IPv6 loopback cannot listen on ::1; nothing to check there.
        if ((error as NodeJS.ErrnoException).code === 'EADDRNOTAVAIL') return;
        throw error;
      }
      expect(logs.filter((line) => line.includes('reachable from the network'))).toEqual([]);
    });
  }
});
