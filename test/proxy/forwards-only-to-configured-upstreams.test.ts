import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { expect, test } from 'vitest';
import { startProxy } from 'modeltape/proxy';
import { closeAfterEach } from '../support/close-after-each.js';
import { startStandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

const dir = tempDir();
const started = closeAfterEach();

test('forwards only to configured upstreams: an unknown name, an absolute URL and CONNECT are all refused', async () => {
  const standIn = started(await startStandInUpstream());
  const proxy = started(await startProxy({ tape: `${dir}/open.jsonl`, mode: 'passthrough', upstreams: { openai: standIn.url } }));

  const unknown = await fetch(`${proxy.url}/evil/v1/chat/completions`, { method: 'POST', body: '{}' });
  expect(unknown.status).toBe(404);
  const message = ((await unknown.json()) as { error: { message: string } }).error.message;
  expect(message).toContain('No upstream named "evil"');
  expect(message).toContain('configured upstreams: openai (http://127.0.0.1:');
  expect(message).toContain('anthropic (https://api.anthropic.com)');

  // A forward-proxy request names an absolute URL in the request line.
  const port = new URL(proxy.url).port;
  const absolute = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port, method: 'GET', path: `${standIn.url}/v1/models` }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
  // The stand-in is the openai upstream: asking for it around the proxy is an escape.
  expect(absolute.status).toBe(403);
  expect(absolute.body).toContain('modeltape refused to connect to 127.0.0.1:');

  // CONNECT tunnels are not served at all: the socket is closed without a 200.
  const reply = await new Promise<string>((resolve) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(`CONNECT 127.0.0.1:${new URL(standIn.url).port} HTTP/1.1\r\nHost: x\r\n\r\n`));
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('close', () => resolve(text));
    socket.on('error', () => resolve(text));
  });
  expect(reply).not.toContain(' 200 ');
  expect(reply).toContain('HTTP/1.1 403 Forbidden');

  expect(standIn.received).toHaveLength(0);
  const summary = await proxy.close();
  expect(summary.upstreamConnections).toBe(0);
  expect(summary.escapes.map((escape) => [escape.via, escape.path])).toEqual([
    ['proxy', '/v1/models'],
    ['proxy', undefined],
  ]);
});

test('passthrough forwards to the configured upstream and writes nothing', async () => {
  const standIn = started(await startStandInUpstream());
  const tape = `${dir}/passthrough.jsonl`;
  const proxy = started(await startProxy({ tape, mode: 'passthrough', upstreams: { openai: standIn.url } }));
  const response = await fetch(`${proxy.baseUrls.openai}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"model":"gpt-4o","messages":[]}',
  });
  expect(response.status).toBe(200);
  expect(((await response.json()) as { object: string }).object).toBe('chat.completion');
  expect(standIn.received.map((received) => received.url)).toEqual(['/v1/chat/completions']);
  expect(await proxy.close()).toMatchObject({ passthrough: 1, recorded: 0 });
  const { existsSync } = await import('node:fs');
  expect(existsSync(tape)).toBe(false);
});
