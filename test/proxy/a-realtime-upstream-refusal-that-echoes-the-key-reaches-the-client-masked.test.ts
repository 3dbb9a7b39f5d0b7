import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { WebSocket } from 'ws';
import { startProxy, type RunningProxy } from 'modeltape/proxy';
import { fakeOpenAiKey } from '../support/fake-keys.js';
import { tempDir } from '../support/temp-dir.js';

// An upstream that refuses a Realtime upgrade may quote the key it was sent (a 401 naming it).
// modeltape's own answer to the client carries the upstream's words: never the key, whole or cut.

const dir = tempDir();
let closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

// Refuses every upgrade with a 401 whose body quotes the Authorization it was sent, after `padding` characters.
async function echoingUpstream(padding: number): Promise<string> {
  const server = createServer((_request, response) => response.writeHead(404).end());
  server.on('upgrade', (request, socket) => {
    const key = String(request.headers.authorization ?? '').replace(/^Bearer /, '');
    const body = JSON.stringify({ error: { message: `${'.'.repeat(padding)}Incorrect API key provided: ${key}.`, type: 'invalid_request_error' } });
    socket.end(`HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

// What the client's WebSocket gets back for its upgrade: the status and the body.
function refusal(url: string, key: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const client = new WebSocket(url, { headers: { authorization: `Bearer ${key}` } });
    client.on('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    client.on('open', () => reject(new Error('the upgrade was accepted')));
    client.on('error', () => undefined);
  });
}

// The key whole, and cut where the message is cut (at 500 characters of the upstream's body): 431
// characters of padding put its first 20 there, too few for any rule to know it as a key.
test.each([
  ['whole', 0],
  ['where the quote is cut', 431],
])('the 401 an upstream answers with the key in it reaches the client and the log masked: the key %s', async (_where, padding) => {
  const key = fakeOpenAiKey();
  const secret = key.slice('sk-proj-'.length);
  const logged: string[] = [];
  const proxy: RunningProxy = await startProxy({
    tape: `${dir}/realtime.jsonl`,
    mode: 'record',
    allowRecordInCi: true,
    upstreams: { openai: await echoingUpstream(padding) },
    log: (line) => logged.push(line),
  });
  closers.push(() => proxy.close());
  const answer = await refusal(`${proxy.url.replace(/^http/, 'ws')}/openai/v1/realtime?model=gpt-realtime`, key);
  expect(answer.status).toBe(401);
  expect(answer.body).toContain('the upstream refused the WebSocket upgrade with 401');
  const outputs = { 'the answer to the client': answer.body, 'the log': logged.join('\n'), 'the summary': JSON.stringify(await proxy.close()) };
  for (const [name, text] of Object.entries(outputs)) {
    // No 6 characters of the key's own part, anywhere: the key is gone, not cut short.
    for (let at = 0; at + 6 <= secret.length; at++) expect(text, name).not.toContain(secret.slice(at, at + 6));
  }
  // Shown as its marker (the marker itself may be cut).
  expect(answer.body).toContain('[openai-key');
});
