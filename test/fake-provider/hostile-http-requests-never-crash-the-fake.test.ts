import { connect } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FakeProvider, type FakeServer } from 'modeltape/fake-provider';

const ROUTES = [
  '/v1/chat/completions',
  '/chat/completions',
  '/openai/v1/chat/completions',
  '/v1/responses',
  '/responses',
  '/v1/messages',
  '/messages',
  '/anthropic/v1/messages',
  '/v1/embeddings',
  '/v1/models',
  '/v1/models/gpt-4o',
  '/v1/models/%ZZ',
  '/v1/chat/completions?stream=%ZZ&&=',
  '/v1/../v1/messages',
  '/nowhere',
  '*',
] as const;

const METHODS = ['POST', 'POST', 'POST', 'POST', 'POST', 'GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'BREW'] as const;

/** A valid request of each wire format, for fields to be broken in. */
const VALID: Array<Record<string, unknown>> = [
  { model: 'gpt-4o', messages: [{ role: 'user', content: 'Where is parcel P-1?' }] },
  {
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'Where?' }],
    stream: true,
    tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
  },
  { model: 'gpt-4.1', input: 'Where is parcel P-1?', stream: true },
  { model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Where is parcel P-1?' }] },
  { model: 'claude-sonnet-4-5', max_tokens: 64, stream: true, messages: [{ role: 'user', content: [{ type: 'text', text: 'Where?' }] }] },
  { model: 'text-embedding-3-small', input: ['a', 'b'], dimensions: 4 },
];

const deep = (depth: number, open: string, close: string, inner = '1'): string => open.repeat(depth) + inner + close.repeat(depth);

/** A body: broken JSON, wrong types in a valid request, any JSON, deep or huge, or bytes that are not UTF-8. */
const body: fc.Arbitrary<Buffer> = fc.oneof(
  { arbitrary: fc.constantFrom(...VALID).map((valid) => Buffer.from(JSON.stringify(valid))), weight: 4 },
  fc.string({ maxLength: 60 }).map((text) => Buffer.from(text)),
  fc
    .constantFrom('', '{', '{"model":', '[1,2', '{"a":1}}', 'null', '"text"', '12', 'true', '{"messages":[}', '\uFEFF{"model":"gpt-4o"}')
    .map((text) => Buffer.from(text)),
  fc.jsonValue({ maxDepth: 4 }).map((value) => Buffer.from(JSON.stringify(value) ?? 'null')),
  fc
    .tuple(
      fc.constantFrom(...VALID),
      fc.constantFrom(
        'model',
        'messages',
        'input',
        'stream',
        'tools',
        'max_tokens',
        'dimensions',
        'response_format',
        'tool_choice',
        '__proto__',
        'constructor',
      ),
      fc.jsonValue({ maxDepth: 3 }),
    )
    .map(([valid, field, value]) => Buffer.from(JSON.stringify({ ...valid, [field]: value }))),
  fc.tuple(fc.constantFrom(...VALID), fc.nat({ max: 3 }), fc.jsonValue({ maxDepth: 2 })).map(([valid, index, value]) => {
    const messages = structuredClone((valid.messages as unknown[] | undefined) ?? []);
    messages[index] = value;
    return Buffer.from(JSON.stringify({ ...valid, messages }));
  }),
  fc
    .integer({ min: 1000, max: 200_000 })
    .chain((depth) =>
      fc.constantFrom(
        deep(depth, '[', ']'),
        deep(depth, '{"a":', '}'),
        `{"model":"gpt-4o","messages":[{"role":"user","content":${deep(depth, '[', ']', '"x"')}}]}`,
      ),
    )
    .map((text) => Buffer.from(text)),
  fc
    .integer({ min: 1, max: 3 })
    .map((megabytes) => Buffer.from(JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(megabytes * 1024 * 1024) }] }))),
  fc
    .uint8Array({ minLength: 1, maxLength: 64 })
    .map((bytes) => Buffer.concat([Buffer.from('{"model":"gpt-4o","messages":[{"role":"user","content":"'), Buffer.from(bytes), Buffer.from('"}]}')])),
);

/** Odd headers: any content type, a lying content-length, chunked framing, long or duplicated headers. */
const headers = fc.record({
  contentType: fc.constantFrom(
    'application/json',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/json; charset=utf-16',
    '',
  ),
  framing: fc.constantFrom('length', 'chunked', 'short-length', 'long-length', 'none'),
  extra: fc.array(
    fc.constantFrom(
      'anthropic-version: 2023-06-01',
      'anthropic-version: ',
      'accept: text/event-stream',
      'accept-encoding: gzip, br, zstd',
      'x-stainless-retry-count: -1',
      'authorization: Bearer not-a-real-key',
      `x-long: ${'y'.repeat(8000)}`,
      'content-type: application/json',
      'expect: 100-continue',
      'connection: close',
    ),
    { maxLength: 4 },
  ),
});

const close = fc.constantFrom('none', 'none', 'none', 'none', 'none', 'none', 'after-headers', 'mid-body');

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends raw bytes and reads the whole answer (the fake closes every connection it is asked to). */
function send(port: number, bytes: Buffer, closeEarly: 'none' | 'after-headers' | 'mid-body', headEnd: number): Promise<Answer | 'closed-by-client'> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within 10 s to ${bytes.subarray(0, 80).toString('latin1')}`));
    }, 10_000);
    socket.on('data', (chunk) => received.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      if (closeEarly !== 'none') return resolve('closed-by-client');
      resolve(parse(Buffer.concat(received)));
    });
    if (closeEarly === 'none') socket.end(bytes);
    else socket.write(bytes.subarray(0, closeEarly === 'after-headers' ? headEnd : headEnd + Math.floor((bytes.length - headEnd) / 2)), () => socket.destroy());
  });
}

function parse(raw: Buffer): Answer {
  let text = raw.toString('utf8');
  // Interim answers (100 Continue for `expect: 100-continue`) come before the final one.
  while (/^HTTP\/1\.1 1\d\d /.test(text) && text.includes('\r\n\r\n')) text = text.slice(text.indexOf('\r\n\r\n') + 4);
  const end = text.indexOf('\r\n\r\n');
  const head = end < 0 ? text : text.slice(0, end);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = end < 0 ? '' : text.slice(end + 4);
  if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
  return { status, headers, body };
}

function dechunk(text: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const line = text.indexOf('\r\n', at);
    if (line < 0) return out;
    const size = Number.parseInt(text.slice(at, line), 16);
    if (!(size > 0)) return out;
    out += text.slice(line + 2, line + 2 + size);
    at = line + 2 + size + 2;
  }
}

const STACK = /\n\s+at .+[(:]\d+|node:internal|\.ts:\d+:\d+|\.js:\d+:\d+/;

/** An answer a provider could give: a status, and a body that is the provider's JSON, an SSE stream, or nothing. */
function expectProviderShaped(answer: Answer, what: string): 'answer' | 'error' {
  expect(answer.status, what).toBeGreaterThanOrEqual(200);
  expect(answer.status, what).toBeLessThan(600);
  expect(STACK.test(answer.body), `${what}: a stack trace in ${answer.body.slice(0, 300)}`).toBe(false);
  const type = answer.headers['content-type'] ?? '';
  if (answer.status >= 400) {
    if (answer.body === '') return 'error'; // node's own 400 for a request it cannot parse at all
    const error = JSON.parse(answer.body) as { error?: { message?: unknown; type?: unknown }; type?: unknown };
    expect(typeof error.error?.message, `${what}: ${answer.body.slice(0, 200)}`).toBe('string');
    expect(typeof error.error?.type, what).toBe('string');
    return 'error';
  }
  if (type.startsWith('text/event-stream')) expect(answer.body.startsWith('event:') || answer.body.startsWith('data:'), what).toBe(true);
  else if (answer.body !== '') JSON.parse(answer.body);
  return 'answer';
}

describe('the FakeProvider listener under hostile requests', () => {
  let server: FakeServer;
  const fake = new FakeProvider({ historyLimit: 50 });
  beforeAll(async () => {
    server = await fake.listen({ maxBodyBytes: 2 * 1024 * 1024 });
  });
  afterAll(async () => {
    await server.close();
  });

  test('every route, method, body, header and early close: it never crashes, answers like a provider, and never shows a stack trace', async () => {
    const seen = { answer: 0, error: 0, closed: 0, tooLarge: 0 };
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), fc.constantFrom(...METHODS), body, headers, close, async (route, method, bytes, header, closeEarly) => {
        const lines = [`${method} ${route} HTTP/1.1`, 'host: 127.0.0.1', 'connection: close'];
        if (header.contentType !== '') lines.push(`content-type: ${header.contentType}`);
        lines.push(...header.extra);
        let payload = bytes;
        if (header.framing === 'length') lines.push(`content-length: ${bytes.length}`);
        else if (header.framing === 'short-length') lines.push(`content-length: ${Math.floor(bytes.length / 2)}`);
        else if (header.framing === 'long-length') lines.push(`content-length: ${bytes.length + 10}`);
        else if (header.framing === 'chunked') {
          lines.push('transfer-encoding: chunked');
          payload = Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n0\r\n\r\n')]);
          if (bytes.length === 0) payload = Buffer.from('0\r\n\r\n');
        } else payload = Buffer.alloc(0);
        const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`);
        // A body longer than its content-length never ends: the client gives up, as a real one would.
        const effectiveClose = header.framing === 'long-length' && closeEarly === 'none' ? 'mid-body' : closeEarly;
        const answer = await send(server.port, Buffer.concat([head, payload]), effectiveClose, head.length);
        if (answer === 'closed-by-client') {
          seen.closed++;
          return;
        }
        const what = `${method} ${route} (${header.framing}, ${bytes.length} bytes: ${bytes.subarray(0, 60).toString('latin1')})`;
        seen[expectProviderShaped(answer, what)]++;
        if (answer.status === 413) seen.tooLarge++;
      }),
      { numRuns: 1000, seed: 20261211, endOnFailure: true },
    );
    // The suite tried each kind of outcome, and the fake still answers a plain request as before.
    expect(seen.answer).toBeGreaterThan(15);
    expect(seen.error).toBeGreaterThan(300);
    expect(seen.closed).toBeGreaterThan(100);
    expect(seen.answer + seen.error + seen.closed).toBe(1000);
    expect(seen.tooLarge).toBeGreaterThan(0);
    const response = await fetch(`${server.baseUrls.openai}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(VALID[0]),
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { object: string }).object).toBe('chat.completion');
  }, 60_000);

  test("a body over maxBodyBytes gets a 413 in the shape of the route's provider, and the fake goes on serving", async () => {
    const huge = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(3 * 1024 * 1024) }] });
    const openai = await fetch(`${server.baseUrls.openai}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: huge });
    expect(openai.status).toBe(413);
    expect(await openai.json()).toEqual({
      error: {
        message: 'The request body is larger than this modeltape FakeProvider reads (maxBodyBytes 2097152).',
        type: 'invalid_request_error',
        param: null,
        code: 'request_too_large',
      },
    });
    const anthropic = await fetch(`${server.baseUrls.anthropic}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: huge });
    expect(anthropic.status).toBe(413);
    expect(await anthropic.json()).toEqual({
      type: 'error',
      error: { type: 'request_too_large', message: 'The request body is larger than this modeltape FakeProvider reads (maxBodyBytes 2097152).' },
    });
    const calls = fake.callCount;
    expect(
      (
        await fetch(`${server.baseUrls.openai}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(VALID[0]),
        })
      ).status,
    ).toBe(200);
    expect(fake.callCount).toBe(calls + 1);
  });
});
