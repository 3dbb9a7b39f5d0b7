import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startProxy, type RunningProxy } from 'modeltape/proxy';
import { readTape } from 'modeltape/recordings';
import { recordTape } from '../support/record-tape.js';
import { startStandInUpstream, type StandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// One hostile request: what is written to the socket, and whether the client then stops writing
// (half-closes) before the request is whole.
interface Hostile {
  bytes: Buffer;
  cutAt: number | undefined;
}

const PATH_PARTS = [
  'openai',
  'anthropic',
  'v1',
  'chat',
  'completions',
  'messages',
  'nope',
  '..',
  '.',
  '%2e%2e',
  '%2E',
  '',
  '\\',
  '%5c',
  '%00',
  '%ZZ',
  '%2f',
  'é',
  '~',
  '*',
  ';token=x',
];
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'BREW', 'post', 'M-SEARCH'];
const HEADER_NAMES = [
  'content-type',
  'content-encoding',
  'accept-encoding',
  'expect',
  'x-fuzz',
  'authorization',
  'transfer-encoding',
  'connection',
  'anthropic-version',
  'upgrade',
];
const HEADER_VALUES = [
  'application/json',
  'text/event-stream',
  'gzip',
  'gzip, gzip',
  'br',
  'x-unknown',
  '100-continue',
  'chunked',
  'close',
  'keep-alive',
  'websocket',
  '',
  ' ',
  '\t',
  'Bearer sk-test-FAKE',
  'a'.repeat(300),
];

const hostilePath = fc
  .array(fc.constantFrom(...PATH_PARTS), { minLength: 0, maxLength: 6 })
  .chain((parts) => fc.tuple(fc.constant(parts), fc.option(fc.constantFrom('a=1', 'key=FAKE', '', '%', 'x=%ZZ&&'), { nil: undefined })))
  .map(([parts, query]) => `/${parts.join('/')}${query === undefined ? '' : `?${query}`}`);
// Half of them reach a real route, so the record path is exercised too.
const path = fc.oneof(
  hostilePath,
  fc.constantFrom('/openai/v1/chat/completions', '/anthropic/v1/messages', '/openai/v1/responses?stream=true', '/openai/v1/embeddings'),
);

const body = fc.oneof(
  fc.constant(Buffer.alloc(0)),
  fc.jsonValue({ maxDepth: 4 }).map((value) => Buffer.from(JSON.stringify(value) ?? 'null')),
  fc
    .constantFrom('{"model":"gpt-4o","n":1e400}', '{"a":-0}', '{"model":', '[[[[[[[[[[', '{"__proto__":{"x":1}}', 'data: [DONE]\n\n')
    .map((text) => Buffer.from(text)),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
  fc.jsonValue({ maxDepth: 2 }).map((value) => gzipSync(Buffer.from(JSON.stringify(value) ?? 'null'))),
);

const framing = fc.constantFrom('length', 'wrong-length', 'chunked', 'bad-chunked', 'none', 'double-length');

const hostile: fc.Arbitrary<Hostile> = fc
  .record({
    method: fc.constantFrom(...METHODS),
    path,
    headers: fc.array(fc.tuple(fc.constantFrom(...HEADER_NAMES), fc.constantFrom(...HEADER_VALUES)), { maxLength: 5 }),
    body,
    framing,
    cut: fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: fc.double({ min: 0, max: 1, noNaN: true }), weight: 1 }),
  })
  .map(({ method, path: target, headers, body: payload, framing: frame, cut }) => {
    const lines = [`${method} ${target} HTTP/1.1`, 'host: 127.0.0.1'];
    // The fuzzed headers may not say how the body is framed: that is the framing's to say.
    for (const [name, value] of headers) if (name !== 'transfer-encoding' && name !== 'connection') lines.push(`${name}: ${value}`);
    lines.push('connection: close');
    let content = payload;
    if (frame === 'length') lines.push(`content-length: ${payload.length}`);
    if (frame === 'wrong-length') lines.push(`content-length: ${payload.length + 7}`);
    if (frame === 'double-length') lines.push(`content-length: ${payload.length}`, `content-length: ${payload.length + 1}`);
    if (frame === 'chunked' || frame === 'bad-chunked') {
      lines.push('transfer-encoding: chunked');
      const size = frame === 'chunked' ? payload.length.toString(16) : 'zz';
      content = Buffer.concat([Buffer.from(`${size}\r\n`), payload, Buffer.from('\r\n0\r\n\r\n')]);
    }
    const bytes = Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), content]);
    // A wrong length is a request the client never finishes: it half-closes after its bytes.
    const cutAt = cut !== undefined ? Math.floor(cut * bytes.length) : frame === 'wrong-length' ? bytes.length : undefined;
    return { bytes, cutAt };
  });

// What came back: a status line, or nothing before the proxy closed the connection.
function send(port: number, request: Hostile): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false });
    }, 5_000);
    socket.on('data', (chunk) => (text += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
    socket.on('connect', () => {
      if (request.cutAt === undefined) socket.write(request.bytes);
      else {
        socket.write(request.bytes.subarray(0, request.cutAt));
        socket.end();
      }
    });
  });
}

const STATUS_LINE = /^HTTP\/1\.1 [1-5]\d\d [^\r\n]*\r\n/;

async function stillServes(proxy: RunningProxy): Promise<boolean> {
  const answer = await send(proxy.port, { bytes: Buffer.from('GET /no-such-upstream/x HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n'), cutAt: undefined });
  return /^HTTP\/1\.1 404/.test(answer.text);
}

function checkAnswer(answer: { text: string; closed: boolean }): void {
  expect(answer.closed, 'the proxy neither answered nor closed within 5 s').toBe(true);
  // Either a well-formed response (possibly after 100 Continue) or a clean close with nothing said.
  if (answer.text !== '') expect(answer.text).toMatch(STATUS_LINE);
}

describe('hostile requests (fast-check, fixed seed)', () => {
  const dir = tempDir({ scope: 'file' });
  let upstream: StandInUpstream;
  beforeAll(async () => {
    let count = 0;
    upstream = await startStandInUpstream((request) => {
      count++;
      if (count % 5 === 0) return { frames: ['data: {"choices":[{"delta":{"content":"a"}}]}\n\n', 'data: [DONE]\n\n'] };
      if (count % 7 === 0) return { headers: { 'content-encoding': 'gzip' }, body: 'not gzip at all' };
      return { body: JSON.stringify({ id: `chatcmpl-${count}`, echo: request.body.length }) };
    });
  });
  afterAll(() => upstream.close());

  test('in replay: every request is answered well-formed or closed cleanly, the proxy keeps serving, and no upstream socket opens', async () => {
    const tape = `${dir}/replay.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      await fetch(`${openai}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"model":"gpt-4o","messages":[]}',
      }).then((response) => response.text());
    });
    const proxy = await startProxy({
      tape,
      mode: 'replay',
      log: () => undefined,
      limits: { requestBodyBytes: 4096, headersTimeoutMs: 2_000, requestTimeoutMs: 3_000 },
    });
    let answered = 0;
    try {
      await fc.assert(
        fc.asyncProperty(hostile, async (request) => {
          const answer = await send(proxy.port, request);
          checkAnswer(answer);
          if (answer.text !== '') answered++;
        }),
        { numRuns: 400, seed: 20261211 },
      );
      expect(await stillServes(proxy)).toBe(true);
    } finally {
      const summary = await proxy.close();
      expect(summary.upstreamConnections).toBe(0);
    }
    // Most hostile requests still got an answer; a run where none did checked nothing.
    expect(answered).toBeGreaterThan(250);
  });

  test('in record: the same, and every line of the tape it wrote loads', async () => {
    const tape = `${dir}/record.jsonl`;
    const proxy = await startProxy({
      tape,
      mode: 'record',
      allowRecordInCi: true,
      log: () => undefined,
      upstreams: { openai: `${upstream.url}/base`, anthropic: `${upstream.url}/base` },
      limits: { requestBodyBytes: 4096, headersTimeoutMs: 2_000, requestTimeoutMs: 3_000 },
    });
    let answered = 0;
    try {
      await fc.assert(
        fc.asyncProperty(hostile, async (request) => {
          const answer = await send(proxy.port, request);
          checkAnswer(answer);
          if (answer.text !== '') answered++;
        }),
        { numRuns: 400, seed: 20261212 },
      );
      expect(await stillServes(proxy)).toBe(true);
    } finally {
      await proxy.close();
    }
    expect(answered).toBeGreaterThan(250);
    // Nothing went past an upstream's base path, however the path was spelled.
    expect(upstream.received.length).toBeGreaterThan(10);
    for (const received of upstream.received) {
      expect(received.url.startsWith('/base/')).toBe(true);
      const segments = received.url
        .split('?')[0]!
        .split('/')
        .map((segment) => {
          try {
            return decodeURIComponent(segment);
          } catch {
            return segment;
          }
        });
      expect(
        segments.flatMap((segment) => segment.split(/[/\\]/)).filter((part) => part === '.' || part === '..'),
        received.url,
      ).toEqual([]);
    }
    const written = readTape(tape);
    expect(written.problems).toEqual([]);
    expect(written.warnings).toEqual([]);
    expect(written.lineCount).toBe(written.exchanges.length + 1);
    // Some hostile requests reached the stand-in and were recorded: the record path was exercised.
    expect(written.exchanges.length).toBeGreaterThan(10);
  });
});
