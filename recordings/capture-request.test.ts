import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { captureRequest, headerValue, type RawRequest } from './capture-request.js';
import { compileKeyRules, exchangeKey } from './exchange-key.js';

const FAKE_OPENAI_KEY = 'sk-proj-FAKEFAKEFAKEFAKEFAKEFAKEFAKE0000';
const rules = compileKeyRules();

function raw(body: string | Uint8Array, headers: RawRequest['headers'] = { 'content-type': 'application/json' }, query: RawRequest['query'] = ''): RawRequest {
  return { method: 'post', path: '/v1/chat/completions', query, headers, body: typeof body === 'string' ? Buffer.from(body, 'utf8') : body };
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

describe('captureRequest', () => {
  test('keeps the headers a client announces itself by, out of the key, and leaves out one that holds a credential', () => {
    const body = '{"model":"gpt-4o","messages":[]}';
    const sdk = {
      'content-type': 'application/json',
      'User-Agent': 'OpenAI/JS 4.67.3',
      'x-stainless-lang': 'js',
      'x-stainless-package-version': '4.67.3',
      'x-stainless-os': 'Linux',
    };
    const request = captureRequest(raw(body, sdk), rules);
    expect(request.client).toEqual({ 'user-agent': 'OpenAI/JS 4.67.3', 'x-stainless-lang': 'js', 'x-stainless-package-version': '4.67.3' });
    const other = captureRequest(raw(body, { 'content-type': 'application/json', 'user-agent': 'python-httpx/0.27' }), rules);
    expect(other.client).toEqual({ 'user-agent': 'python-httpx/0.27' });
    expect(exchangeKey('openai', other, rules)).toBe(exchangeKey('openai', request, rules));
    const leaky = captureRequest(
      raw(body, { 'content-type': 'application/json', 'user-agent': `my-app key=${FAKE_OPENAI_KEY}`, 'x-stainless-lang': 'js' }),
      rules,
    );
    expect(leaky.client).toEqual({ 'x-stainless-lang': 'js' });
    expect(captureRequest(raw(body), rules).client).toBeUndefined();
  });

  test('parses a JSON body and uppercases the method', () => {
    const request = captureRequest(raw('{"model":"gpt-4o","messages":[{"role":"user","content":"héllo"}]}'), rules);
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.body).toEqual({ json: { model: 'gpt-4o', messages: [{ role: 'user', content: 'héllo' }] } });
  });

  test('keeps invalid JSON declared as JSON as text, exactly', () => {
    const text = '{"model":"gpt-4o",\t"messages": [ ';
    const request = captureRequest(raw(text), rules);
    expect(request.body).toEqual({ text });
    expect(request.bodySha256).toBe(sha256(Buffer.from(text)));
  });

  test('keeps bytes that are not UTF-8 as base64', () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00]);
    const request = captureRequest(raw(bytes, { 'content-type': 'image/png' }), rules);
    expect(request.body).toEqual({ base64: bytes.toString('base64') });
    expect(Buffer.from((request.body as { base64: string }).base64, 'base64').equals(bytes)).toBe(true);
  });

  test('hashes the exact raw bytes: whitespace changes bodySha256 but not the key', () => {
    const compact = captureRequest(raw('{"a":1}'), rules);
    const spaced = captureRequest(raw('{ "a": 1 }'), rules);
    expect(compact.bodySha256).toBe(sha256(Buffer.from('{"a":1}')));
    expect(spaced.bodySha256).toBe(sha256(Buffer.from('{ "a": 1 }')));
    expect(compact.bodySha256).not.toBe(spaced.bodySha256);
    expect(compact.body).toEqual(spaced.body);
    expect(exchangeKey('openai', compact, rules)).toBe(exchangeKey('openai', spaced, rules));
  });

  test('stores no body and the hash of no bytes for an empty request', () => {
    const request = captureRequest({ method: 'GET', path: '/v1/models', query: '', headers: {}, body: new Uint8Array(0) }, rules);
    expect('body' in request).toBe(false);
    expect(request.bodySha256).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  test('stores only the key headers and content-type, lowercased and sorted', () => {
    const request = captureRequest(
      raw('{}', {
        'User-Agent': 'OpenAI/JS 6.49.0',
        'OpenAI-Beta': 'assistants=v2',
        'Content-Type': 'application/json',
        'Anthropic-Version': '2023-06-01',
        'x-stainless-retry-count': '0',
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        'content-length': '2',
        'accept-encoding': 'gzip',
        'x-unset': undefined,
      }),
      rules,
    );
    expect(request.headers).toEqual({ 'anthropic-version': '2023-06-01', 'content-type': 'application/json', 'openai-beta': 'assistants=v2' });
    expect(Object.keys(request.headers)).toEqual(['anthropic-version', 'content-type', 'openai-beta']);
  });

  test.each([
    'authorization',
    'Authorization',
    'x-api-key',
    'api-key',
    'x-goog-api-key',
    'cookie',
    'openai-organization',
    'openai-project',
    'anthropic-organization-id',
    'proxy-authorization',
  ])('never stores the credential header %j', (name) => {
    const request = captureRequest(raw('{}', { 'content-type': 'application/json', [name]: `Bearer ${FAKE_OPENAI_KEY}` }), rules);
    expect(Object.keys(request.headers)).toEqual(['content-type']);
    expect(JSON.stringify(request)).not.toContain('FAKEFAKE');
  });

  test('joins a repeated key header with ", "', () => {
    const request = captureRequest(
      raw('{}', { 'content-type': 'application/json', 'anthropic-beta': ['tools-2024-04-04', 'prompt-caching-2024-07-31'] }),
      rules,
    );
    expect(request.headers['anthropic-beta']).toBe('tools-2024-04-04, prompt-caching-2024-07-31');
  });

  test('sorts the query and drops key-like parameters, from a string or URLSearchParams', () => {
    const fromString = captureRequest(raw('{}', { 'content-type': 'application/json' }, `?b=2&key=${FAKE_OPENAI_KEY}&a=1&a=0`), rules);
    const fromParams = captureRequest(
      raw('{}', { 'content-type': 'application/json' }, new URLSearchParams({ b: '2', api_key: FAKE_OPENAI_KEY, a: '1' })),
      rules,
    );
    expect(fromString.query).toEqual([
      ['a', '0'],
      ['a', '1'],
      ['b', '2'],
    ]);
    expect(fromParams.query).toEqual([
      ['a', '1'],
      ['b', '2'],
    ]);
    expect(JSON.stringify([fromString, fromParams])).not.toContain(FAKE_OPENAI_KEY);
  });

  test('reads the content type whatever case its header name was sent in', () => {
    // A JSON body that is not an object: only the declared content type makes it JSON.
    const lower = captureRequest(raw('42', { 'content-type': 'application/json' }), rules);
    const mixed = captureRequest(raw('42', { 'Content-Type': 'application/json' }), rules);
    expect(lower.body).toEqual({ json: 42 });
    expect(mixed.body).toEqual({ json: 42 });
    expect(exchangeKey('openai', mixed, rules)).toBe(exchangeKey('openai', lower, rules));
  });
});

describe('headerValue', () => {
  test('reads a header by its name or its lowercase name and joins repeated values', () => {
    expect(headerValue({ 'content-type': 'a' }, 'Content-Type')).toBe('a');
    expect(headerValue({ 'x-multi': ['a', 'b'] }, 'x-multi')).toBe('a, b');
    expect(headerValue({ 'x-a': undefined }, 'x-a')).toBeUndefined();
    expect(headerValue({}, 'x-a')).toBeUndefined();
  });
});
