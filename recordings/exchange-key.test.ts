import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { canonicalJson } from './canonical-json.js';
import { captureRequest, type RawRequest } from './capture-request.js';
import { ModeltapeError } from '../core/internal.js';
import { compileKeyRules, defaultKeyRules, exchangeKey, keyInputs, sha256Hex, type CompiledKeyRules } from './exchange-key.js';
import type { Exchange, KeyRules, RecordedRequest } from './tape-format.js';
import { createHeader, serializeTape } from './tape-line.js';
import { parseTape } from './tape-reader.js';

const FAKE_OPENAI_KEY = 'sk-proj-FAKEFAKEFAKEFAKEFAKEFAKEFAKE0000';

function raw(overrides: Partial<RawRequest> & { json?: unknown } = {}): RawRequest {
  const { json, ...rest } = overrides;
  return {
    method: 'POST',
    path: '/v1/chat/completions',
    query: '',
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify(json ?? { model: 'gpt-4o', messages: [{ role: 'user', content: 'Say hello' }] })),
    ...rest,
  };
}

function keyOf(request: RawRequest, rules: CompiledKeyRules = compileKeyRules(), upstream = 'openai'): string {
  return exchangeKey(upstream, captureRequest(request, rules), rules);
}

function thrown(action: () => unknown): ModeltapeError {
  try {
    action();
  } catch (error) {
    if (error instanceof ModeltapeError) return error;
    throw error;
  }
  throw new Error('expected a ModeltapeError, nothing was thrown');
}

describe('exchangeKey', () => {
  test("gives the same key whatever order the body's keys were in", () => {
    const first = raw({ body: Buffer.from('{"model":"gpt-4o","temperature":0,"messages":[{"role":"user","content":"hi"}]}') });
    const second = raw({ body: Buffer.from('{"messages":[{"content":"hi","role":"user"}],"temperature":0,"model":"gpt-4o"}') });
    expect(keyOf(first)).toBe(keyOf(second));
  });

  test('gives a different key when array elements are in a different order', () => {
    const first = raw({
      json: {
        messages: [
          { role: 'user', content: 'a' },
          { role: 'user', content: 'b' },
        ],
      },
    });
    const second = raw({
      json: {
        messages: [
          { role: 'user', content: 'b' },
          { role: 'user', content: 'a' },
        ],
      },
    });
    expect(keyOf(first)).not.toBe(keyOf(second));
  });

  test('gives a different key when any body value changes', () => {
    expect(keyOf(raw({ json: { model: 'gpt-4o', temperature: 0 } }))).not.toBe(keyOf(raw({ json: { model: 'gpt-4o', temperature: 1 } })));
    expect(keyOf(raw({ json: { max_tokens: 100 } }))).not.toBe(keyOf(raw({ json: { max_tokens: '100' } })));
  });

  test('gives the same key whatever order the query parameters were in', () => {
    expect(keyOf(raw({ method: 'GET', query: 'limit=2&after=x&alt=sse' }))).toBe(keyOf(raw({ method: 'GET', query: 'alt=sse&limit=2&after=x' })));
    expect(keyOf(raw({ method: 'GET', query: 'limit=2' }))).not.toBe(keyOf(raw({ method: 'GET', query: 'limit=3' })));
  });

  test.each(['key', 'api_key', 'api-key', 'apikey', 'access_token', 'accesstoken', 'token', 'x-goog-api-key', 'client_secret'])(
    'leaves the secret query parameter %j out of the key and out of what is stored',
    (name) => {
      const rules = compileKeyRules();
      const withKey = captureRequest(raw({ query: `alt=sse&${name}=${FAKE_OPENAI_KEY}` }), rules);
      const otherKey = captureRequest(raw({ query: `${name}=another-value&alt=sse` }), rules);
      expect(withKey.query).toEqual([['alt', 'sse']]);
      expect(JSON.stringify(withKey)).not.toContain(FAKE_OPENAI_KEY);
      expect(exchangeKey('gemini', withKey, rules)).toBe(exchangeKey('gemini', otherKey, rules));
      expect(exchangeKey('gemini', withKey, rules)).toBe(exchangeKey('gemini', captureRequest(raw({ query: 'alt=sse' }), rules), rules));
    },
  );

  test.each([
    ['user-agent', 'OpenAI/JS 6.49.0', 'OpenAI/JS 6.50.0'],
    ['x-stainless-retry-count', '0', '1'],
    ['x-stainless-timeout', '600', '30'],
    ['x-stainless-os', 'Linux', 'MacOS'],
    ['traceparent', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', '00-1bf7651916cd43dd8448eb211c80319c-c7ad6b7169203331-01'],
    ['content-length', '57', '58'],
    ['accept-encoding', 'gzip, deflate', 'br'],
    ['authorization', `Bearer ${FAKE_OPENAI_KEY}`, 'Bearer another-fake-key'],
    ['x-api-key', 'sk-ant-api03-FAKEFAKEFAKEFAKEFAKEFAKE0000', 'other'],
    ['idempotency-key', 'stainless-node-retry-1', 'stainless-node-retry-2'],
  ])('never lets the per-call header %j change the key', (name, first, second) => {
    const base = keyOf(raw());
    expect(keyOf(raw({ headers: { 'content-type': 'application/json', [name]: first } }))).toBe(base);
    expect(keyOf(raw({ headers: { 'content-type': 'application/json', [name]: second } }))).toBe(base);
  });

  test.each(['anthropic-version', 'anthropic-beta', 'openai-beta'])('lets the allowlisted header %j change the key', (name) => {
    const without = keyOf(raw());
    const first = keyOf(raw({ headers: { 'content-type': 'application/json', [name]: 'value-1' } }));
    const second = keyOf(raw({ headers: { 'content-type': 'application/json', [name]: 'value-2' } }));
    expect(new Set([without, first, second]).size).toBe(3);
  });

  test('treats a key header the same whatever case its name was sent in', () => {
    const lower = keyOf(raw({ headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' } }));
    const mixed = keyOf(raw({ headers: { 'Content-Type': 'application/json', 'Anthropic-Version': '2023-06-01' } }));
    expect(mixed).toBe(lower);
  });

  test('does not let content-type change the key, although it is stored', () => {
    const rules = compileKeyRules();
    const json = captureRequest(raw({ headers: { 'content-type': 'application/json' } }), rules);
    const charset = captureRequest(raw({ headers: { 'content-type': 'application/json; charset=utf-8' } }), rules);
    expect(charset.headers).toEqual({ 'content-type': 'application/json; charset=utf-8' });
    expect(exchangeKey('openai', json, rules)).toBe(exchangeKey('openai', charset, rules));
  });

  test('makes the upstream name, the method and the path part of the key', () => {
    const rules = compileKeyRules();
    const request = captureRequest(raw(), rules);
    const keys = new Set([
      exchangeKey('openai', request, rules),
      exchangeKey('azure', request, rules),
      exchangeKey('openai', { ...request, path: '/v1/responses' }, rules),
      exchangeKey('openai', { ...request, method: 'PUT' }, rules),
    ]);
    expect(keys.size).toBe(4);
  });

  test('tells a request without a body from one with an empty JSON body', () => {
    expect(keyOf(raw({ body: Buffer.alloc(0) }))).not.toBe(keyOf(raw({ body: Buffer.from('{}') })));
  });

  test('is the sha256 of the canonical JSON of the key inputs', () => {
    const rules = compileKeyRules();
    const request = captureRequest(raw(), rules);
    const expected = createHash('sha256')
      .update(canonicalJson(keyInputs('openai', request, rules)))
      .digest('hex');
    expect(exchangeKey('openai', request, rules)).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('normalizers in the key rules', () => {
  test('make a volatile value at a path key identically while the stored body keeps the original', () => {
    const rules = compileKeyRules({ headers: [], normalizers: [{ path: '.metadata.request_id' }] });
    const first = captureRequest(raw({ json: { model: 'm', metadata: { request_id: 'req-1', user: 'u' } } }), rules);
    const second = captureRequest(raw({ json: { model: 'm', metadata: { request_id: 'req-2', user: 'u' } } }), rules);
    expect(exchangeKey('openai', first, rules)).toBe(exchangeKey('openai', second, rules));
    expect(first.body).toEqual({ json: { model: 'm', metadata: { request_id: 'req-1', user: 'u' } } });
    expect(second.body).toEqual({ json: { model: 'm', metadata: { request_id: 'req-2', user: 'u' } } });
    // Only the normalized value is ignored.
    const otherUser = captureRequest(raw({ json: { model: 'm', metadata: { request_id: 'req-3', user: 'v' } } }), rules);
    expect(exchangeKey('openai', otherUser, rules)).not.toBe(exchangeKey('openai', first, rules));
  });

  test('apply a [*] wildcard path to every element of an array', () => {
    const rules = compileKeyRules({ headers: [], normalizers: [{ path: '.messages[*].timestamp', placeholder: '<ts>' }] });
    const body = (a: string, b: string) => ({
      messages: [
        { content: 'x', timestamp: a },
        { content: 'y', timestamp: b },
      ],
    });
    const first = captureRequest(raw({ json: body('2024-01-01T00:00:00Z', '2024-01-01T00:00:01Z') }), rules);
    const second = captureRequest(raw({ json: body('2025-06-30T12:00:00Z', '2025-06-30T12:00:09Z') }), rules);
    expect(exchangeKey('openai', first, rules)).toBe(exchangeKey('openai', second, rules));
    expect(keyInputs('openai', first, rules).body).toEqual({
      json: {
        messages: [
          { content: 'x', timestamp: '<ts>' },
          { content: 'y', timestamp: '<ts>' },
        ],
      },
    });
    const otherContent = captureRequest(
      raw({
        json: {
          messages: [
            { content: 'z', timestamp: 'a' },
            { content: 'y', timestamp: 'b' },
          ],
        },
      }),
      rules,
    );
    expect(exchangeKey('openai', otherContent, rules)).not.toBe(exchangeKey('openai', first, rules));
  });

  test('replace a pattern inside prompt text, such as a uuid or a timestamp, wherever it appears', () => {
    const rules = compileKeyRules({
      headers: [],
      normalizers: [
        { pattern: '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', flags: 'i', placeholder: '<uuid>' },
        { pattern: '\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z' },
      ],
    });
    const prompt = (id: string, at: string) => ({ messages: [{ role: 'user', content: `Session ${id} started at ${at}; again ${id}.` }] });
    const first = captureRequest(raw({ json: prompt('0F8FAD5B-D9CB-469F-A165-70867728950E', '2024-01-01T10:00:00.123Z') }), rules);
    const second = captureRequest(raw({ json: prompt('7c9e6679-7425-40de-944b-e07fc1f90ae7', '2025-12-31T23:59:59Z') }), rules);
    expect(exchangeKey('openai', first, rules)).toBe(exchangeKey('openai', second, rules));
    expect(keyInputs('openai', first, rules).body).toEqual({
      json: { messages: [{ role: 'user', content: 'Session <uuid> started at <normalized>; again <uuid>.' }] },
    });
    expect(JSON.stringify(first.body)).toContain('0F8FAD5B-D9CB-469F-A165-70867728950E');
  });

  test('do not touch text bodies', () => {
    const rules = compileKeyRules({ headers: [], normalizers: [{ pattern: '\\d+' }] });
    const first = captureRequest(raw({ headers: { 'content-type': 'text/plain' }, body: Buffer.from('call 1') }), rules);
    const second = captureRequest(raw({ headers: { 'content-type': 'text/plain' }, body: Buffer.from('call 2') }), rules);
    expect(exchangeKey('openai', first, rules)).not.toBe(exchangeKey('openai', second, rules));
  });
});

describe('compileKeyRules', () => {
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
    'x-amz-date',
  ])('refuses the credential header %j as a key header', (name) => {
    const error = thrown(() => compileKeyRules({ headers: ['anthropic-version', name], normalizers: [] }));
    expect(error.code).toBe('secret_key_header');
    expect(error.message).toContain(`Header "${name.toLowerCase()}" carries a credential`);
  });

  test('lowercases, deduplicates and sorts header names', () => {
    const compiled = compileKeyRules({ headers: ['OpenAI-Beta', 'anthropic-version', 'openai-beta', 'Anthropic-Beta'], normalizers: [] });
    expect(compiled.rules.headers).toEqual(['anthropic-beta', 'anthropic-version', 'openai-beta']);
    expect([...compiled.headers]).toEqual(['anthropic-beta', 'anthropic-version', 'openai-beta']);
  });

  test('uses anthropic-beta, anthropic-version and openai-beta with no normalizers by default', () => {
    expect(defaultKeyRules()).toEqual({ headers: ['anthropic-beta', 'anthropic-version', 'openai-beta'], normalizers: [] });
    expect(compileKeyRules().rules).toEqual(defaultKeyRules());
  });

  test('copies the rules so later changes to the input do not change the compiled rules', () => {
    const input: KeyRules = { headers: ['openai-beta'], normalizers: [{ path: '.a' }] };
    const compiled = compileKeyRules(input);
    input.headers.push('anthropic-version');
    (input.normalizers[0] as { path: string }).path = '.b';
    expect(compiled.rules).toEqual({ headers: ['openai-beta'], normalizers: [{ path: '.a' }] });
  });

  test('refuses a normalizer whose pattern is not a regular expression, naming it', () => {
    const error = thrown(() => compileKeyRules({ headers: [], normalizers: [{ path: '.a' }, { pattern: '([unclosed' }] }));
    expect(error.code).toBe('invalid_normalizer');
    expect(error.message).toContain('Normalizer 1 has an invalid pattern "([unclosed"');
  });

  test('refuses a normalizer whose path is not JSON access syntax', () => {
    expect(thrown(() => compileKeyRules({ headers: [], normalizers: [{ path: 'metadata.request_id' }] })).code).toBe('invalid_json_path');
  });
});

describe('keyInputs', () => {
  test('lists method, upstream, path, sorted query, key headers and the body in readable form', () => {
    const rules = compileKeyRules();
    const request = captureRequest(
      raw({
        path: '/v1/messages',
        query: 'beta=true&a=1',
        headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'user-agent': 'x' },
        json: { model: 'claude', max_tokens: 10 },
      }),
      rules,
    );
    expect(keyInputs('anthropic', request, rules)).toEqual({
      method: 'POST',
      upstream: 'anthropic',
      path: '/v1/messages',
      query: [
        ['a', '1'],
        ['beta', 'true'],
      ],
      headers: { 'anthropic-version': '2023-06-01' },
      body: { json: { model: 'claude', max_tokens: 10 } },
    });
  });

  test('gives a null body for a request without one', () => {
    const rules = compileKeyRules();
    expect(keyInputs('openai', captureRequest(raw({ method: 'GET', body: new Uint8Array(0) }), rules), rules).body).toBeNull();
  });

  test('lets the key be derived again from a request read back from a tape', () => {
    const rules = compileKeyRules({ headers: ['anthropic-version'], normalizers: [{ path: '.metadata.user_id' }, { pattern: 'run-\\d+', flags: 'i' }] });
    const request = captureRequest(
      raw({
        path: '/v1/messages',
        query: 'z=1&a=2',
        headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
        json: { metadata: { user_id: 'u-1' }, messages: [{ role: 'user', content: 'RUN-7 héllo' }] },
      }),
      rules,
    );
    const key = exchangeKey('anthropic', request, rules);
    const exchange: Exchange = {
      key,
      ordinal: 0,
      upstream: 'anthropic',
      source: 'live',
      request,
      response: { status: 200, headers: {}, body: { json: { ok: true } } },
    };
    const contents = parseTape(serializeTape(createHeader(rules.rules), [exchange]), 'k.jsonl');
    expect(contents.problems).toEqual([]);
    const stored: RecordedRequest = contents.exchanges[0]!.exchange.request;
    expect(exchangeKey('anthropic', stored, compileKeyRules(contents.header!.keyRules))).toBe(key);
  });
});

describe('sha256Hex', () => {
  test('hashes bytes and strings to lowercase hex', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex(Buffer.from('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe("Gemini's function call ids", () => {
  const path = '/v1beta/models/gemini-2.5-flash:generateContent';
  const loop = (callId: string, responseId = callId) => ({
    contents: [
      { role: 'user', parts: [{ text: 'Weather in Paris and Lyon?' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { id: callId, name: 'get_weather', args: { city: 'Paris' } } },
          { functionCall: { id: `${callId}-b`, name: 'get_weather', args: { city: 'Lyon' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: responseId, name: 'get_weather', response: { result: 'rain' } } },
          { functionResponse: { id: `${callId}-b`, name: 'get_weather', response: { result: 'sun' } } },
        ],
      },
    ],
  });

  test('key as their order of first appearance: a client that makes up new ids each run sends the same request', () => {
    const first = keyOf(raw({ path, json: loop('SyyEJMLEMDQRvGl1') }), compileKeyRules(), 'gemini');
    expect(keyOf(raw({ path, json: loop('4dL8lXqbBHUfSXNq') }), compileKeyRules(), 'gemini')).toBe(first);
    expect(keyOf(raw({ path: path.replace('generateContent', 'streamGenerateContent'), json: loop('x') }), compileKeyRules(), 'gemini')).not.toBe(first);
  });

  test('still tell apart which response answers which call, and the stored request keeps the ids as sent', () => {
    const paired = keyOf(raw({ path, json: loop('a') }), compileKeyRules(), 'gemini');
    expect(keyOf(raw({ path, json: loop('a', 'a-b') }), compileKeyRules(), 'gemini')).not.toBe(paired);
    const request = captureRequest(raw({ path, json: loop('SyyEJMLEMDQRvGl1') }), compileKeyRules());
    expect(JSON.stringify(request.body)).toContain('SyyEJMLEMDQRvGl1');
    expect(JSON.stringify(keyInputs('gemini', request, compileKeyRules()).body)).not.toContain('SyyEJMLEMDQRvGl1');
  });

  test('are left alone on any other route', () => {
    const body = { contents: loop('a').contents, model: 'x' };
    expect(keyOf(raw({ path: '/v1/chat/completions', json: body }))).not.toBe(
      keyOf(raw({ path: '/v1/chat/completions', json: { ...body, contents: loop('b').contents } })),
    );
  });
});

describe('JSON-RPC messages (MCP calls)', () => {
  const call = (id: unknown, city = 'Paris') => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_weather', arguments: { city } } });

  test('key without their id, which a client numbers per connection, and the stored request keeps it', () => {
    const first = keyOf(raw({ path: '/', json: call(3) }), compileKeyRules(), 'docs');
    expect(keyOf(raw({ path: '/', json: call('call-77') }), compileKeyRules(), 'docs')).toBe(first);
    expect(keyOf(raw({ path: '/', json: call(3, 'Lyon') }), compileKeyRules(), 'docs')).not.toBe(first);
    const request = captureRequest(raw({ path: '/', json: call(3) }), compileKeyRules());
    expect(request.body).toEqual({ json: call(3) });
    expect(keyInputs('docs', request, compileKeyRules()).body).toEqual({ json: { jsonrpc: '2.0', method: 'tools/call', params: call(3).params } });
  });

  test('key without the progress token the SDKs make of the id', () => {
    const withProgress = (id: number) => ({ ...call(id), params: { ...call(id).params, _meta: { progressToken: id, other: 1 } } });
    expect(keyOf(raw({ path: '/', json: withProgress(3) }))).toBe(keyOf(raw({ path: '/', json: withProgress(8) })));
    expect(keyOf(raw({ path: '/', json: withProgress(3) }))).not.toBe(keyOf(raw({ path: '/', json: call(3) })));
  });

  test('a body that is not JSON-RPC 2.0 keeps its id in the key', () => {
    const body = (id: number) => ({ jsonrpc: '1.0', id, method: 'x' });
    expect(keyOf(raw({ json: body(1) }))).not.toBe(keyOf(raw({ json: body(2) })));
    expect(keyOf(raw({ json: { id: 1, model: 'x' } }))).not.toBe(keyOf(raw({ json: { id: 2, model: 'x' } })));
  });
});

describe('WebSocket messages (Realtime client events)', () => {
  const event = (eventId: string, audio = 'UklGRiQAAABXQVZF') => ({ type: 'input_audio_buffer.append', event_id: eventId, audio });
  const ws = (json: unknown) => raw({ method: 'WS', path: '/v1/realtime', json });

  test('key without their event id, and audio by its digest, while the stored event keeps both', () => {
    const first = keyOf(ws(event('3f2c…uuid-a')));
    expect(keyOf(ws(event('another-id')))).toBe(first);
    expect(keyOf(ws(event('3f2c…uuid-a', 'Zm10IBAAAAABAAEA')))).not.toBe(first);
    const request = captureRequest(ws(event('3f2c…uuid-a')), compileKeyRules());
    expect(request.body).toEqual({ json: event('3f2c…uuid-a') });
    const keyed = keyInputs('openai', request, compileKeyRules()).body as { json: Record<string, unknown> };
    expect(keyed.json.event_id).toBeUndefined();
    expect(keyed.json.audio).toMatch(/^<audio sha256:[0-9a-f]{64} 16 chars>$/);
  });

  test('an HTTP request with an event_id keeps it in its key', () => {
    expect(keyOf(raw({ json: { event_id: 'a', model: 'x' } }))).not.toBe(keyOf(raw({ json: { event_id: 'b', model: 'x' } })));
  });
});
