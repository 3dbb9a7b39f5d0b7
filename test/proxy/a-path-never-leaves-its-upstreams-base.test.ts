import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startProxy, type RunningProxy } from 'modeltape/proxy';
import { startStandInUpstream, type StandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// The stand-in for OpenAI sits under a base path (/v1), as a gateway's upstream does.
// Sent byte for byte (fetch and URL would resolve the dot segments before they left the client).
function rawRequest(port: number, target: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`GET ${target} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n`));
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), body: text.slice(text.indexOf('\r\n\r\n') + 4) }));
    socket.on('error', reject);
  });
}

describe('a path sent to an upstream', () => {
  const dir = tempDir({ scope: 'file' });
  let openai: StandInUpstream;
  let other: StandInUpstream;
  let proxy: RunningProxy;
  beforeAll(async () => {
    openai = await startStandInUpstream(() => ({ body: '{}' }));
    other = await startStandInUpstream(() => ({ body: '{}' }));
    proxy = await startProxy({
      tape: `${dir}/paths.jsonl`,
      mode: 'passthrough',
      log: () => undefined,
      upstreams: { openai: `${openai.url}/v1`, other: other.url },
    });
  });
  afterAll(async () => {
    await proxy.close();
    await openai.close();
    await other.close();
  });

  const escapes = [
    '/openai/v1/../../x',
    '/openai/../x',
    '/openai/v1/%2e%2e/%2E%2E/x',
    '/openai/v1/.%2e/x',
    '/openai/v1/%2e%2e%2f%2e%2e%2fx',
    '/openai/v1/..%2fother/x',
    '/openai/./x',
    '/openai/v1/..\\..\\x',
    '/openai/v1/%5c..%5cx',
    '/openai/v1/..',
    '/openai/v1/x/../../../other/x',
    '/openai/v1/x%00/y',
    // Encoded twice (and three times): an upstream behind a gateway that decodes once more sees `..`.
    '/openai/v1/%252e%252e/%252e%252e/x',
    '/openai/v1/%25252e%25252e/x',
    '/openai/v1/%255c..%255cx',
    '/openai/v1/%2525252e%2525252e/x',
    // `..;` is `..` to servers that strip path parameters; overlong UTF-8 is `.` to lenient decoders.
    '/openai/v1/..;/x',
    '/openai/v1/..%3b/x',
    '/openai/v1/%c0%ae%c0%ae/x',
    '/openai/v1/%C0%AE%C0%AE%c0%afx',
  ];
  for (const target of escapes) {
    test(`${JSON.stringify(target)} is refused with a 400 naming why, and nothing reaches any upstream`, async () => {
      const before = openai.received.length + other.received.length;
      const answer = await rawRequest(proxy.port, target);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatch(/could reach past .* \(the base of upstream ..openai..\)/);
      expect(openai.received.length + other.received.length).toBe(before);
    });
  }

  const kept = [
    ['/openai/chat/completions', '/v1/chat/completions'],
    ['/openai//chat/completions', '/v1//chat/completions'],
    ['/openai/files/file-..abc/content', '/v1/files/file-..abc/content'],
    ['/openai/models/a%2Fb', '/v1/models/a%2Fb'],
  ] as const;
  for (const [target, forwarded] of kept) {
    test(`${JSON.stringify(target)} reaches the upstream as ${forwarded}, inside its base path`, async () => {
      const answer = await rawRequest(proxy.port, target);
      expect(answer.status).toBe(200);
      const received = openai.received.at(-1)!.url;
      expect(received).toBe(forwarded);
      expect(received.startsWith('/v1/')).toBe(true);
    });
  }

  test('every path any upstream received starts with its base path and holds no dot segment', () => {
    expect(openai.received.length).toBe(kept.length);
    expect(other.received).toHaveLength(0);
    for (const request of openai.received) {
      expect(request.url.startsWith('/v1/')).toBe(true);
      expect(request.url.split('/')).not.toContain('..');
    }
  });
});
