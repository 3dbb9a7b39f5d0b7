import { describe, expect, test } from 'vitest';
import { HOP_BY_HOP_HEADERS, SECRET_HEADERS, isSecretHeader, isSecretQueryParameter, redactQuery, redactResponseHeaders, redactUrl } from './redaction.js';

const FAKE_OPENAI_KEY = 'sk-proj-FAKEFAKEFAKEFAKEFAKEFAKEFAKE0000';

const CREDENTIAL_HEADERS = [
  'authorization',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
  'cookie',
  'set-cookie',
  'openai-organization',
  'openai-project',
  'anthropic-organization-id',
];

describe('redactResponseHeaders', () => {
  test.each(CREDENTIAL_HEADERS)('removes the credential header %j, whatever its case', (name) => {
    const upper = name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => `${dash}${letter.toUpperCase()}`);
    for (const spelled of [name, upper]) {
      const kept = redactResponseHeaders({ 'content-type': 'application/json', [spelled]: `Bearer ${FAKE_OPENAI_KEY}` });
      expect(kept).toEqual({ 'content-type': 'application/json' });
    }
  });

  test('removes every credential header at once and keeps the rest', () => {
    const headers: Record<string, string | string[]> = { 'x-request-id': 'req_1', 'openai-processing-ms': '120' };
    for (const name of CREDENTIAL_HEADERS) headers[name] = 'FAKE-value';
    headers['set-cookie'] = ['__cf_bm=FAKE; path=/', '_cfuvid=FAKE; path=/'];
    expect(redactResponseHeaders(headers)).toEqual({ 'openai-processing-ms': '120', 'x-request-id': 'req_1' });
    expect(CREDENTIAL_HEADERS.every((name) => SECRET_HEADERS.has(name))).toBe(true);
  });

  test('removes hop-by-hop headers and the payload framing headers', () => {
    const kept = redactResponseHeaders({
      connection: 'keep-alive',
      'keep-alive': 'timeout=5',
      'transfer-encoding': 'chunked',
      'proxy-authenticate': 'Basic',
      'proxy-connection': 'keep-alive',
      te: 'trailers',
      trailer: 'x',
      upgrade: 'h2c',
      host: 'api.openai.com',
      'Content-Length': '123',
      'content-encoding': 'gzip',
      'content-type': 'text/event-stream',
    });
    expect(kept).toEqual({ 'content-type': 'text/event-stream' });
    expect(HOP_BY_HOP_HEADERS.size).toBe(9);
  });

  test('removes AWS signature headers', () => {
    expect(redactResponseHeaders({ 'x-amz-security-token': 'FAKE', 'X-Amz-Date': '20240101T000000Z', 'x-amzn-requestid': 'r' })).toEqual({
      'x-amzn-requestid': 'r',
    });
  });

  test('lowercases names, keeps repeated headers as arrays and skips undefined values', () => {
    const values = ['a=1', 'b=2'];
    const kept = redactResponseHeaders({ 'X-Request-Id': 'req_1', Link: values, 'x-missing': undefined });
    expect(kept).toEqual({ 'x-request-id': 'req_1', link: ['a=1', 'b=2'] });
    expect(kept.link).not.toBe(values);
  });

  test('returns the names sorted after lowercasing', () => {
    const kept = redactResponseHeaders({ 'X-Request-Id': 'req_1', 'content-type': 'application/json', Date: 'Mon' });
    expect(Object.keys(kept)).toEqual(['content-type', 'date', 'x-request-id']);
  });
});

describe('isSecretHeader', () => {
  test('is true for every credential header and any x-amz- header, in any case', () => {
    for (const name of [...CREDENTIAL_HEADERS, 'proxy-authorization', 'X-Amz-Security-Token', 'x-amz-content-sha256', 'AUTHORIZATION'])
      expect(isSecretHeader(name)).toBe(true);
  });

  test('is false for ordinary headers', () => {
    for (const name of ['content-type', 'anthropic-version', 'openai-beta', 'x-request-id', 'user-agent', 'x-amzn-requestid'])
      expect(isSecretHeader(name)).toBe(false);
  });
});

describe('isSecretQueryParameter', () => {
  test.each([
    'key',
    'KEY',
    'api_key',
    'api-key',
    'apikey',
    'apiKey',
    'access_token',
    'access-token',
    'accesstoken',
    'token',
    'auth',
    'secret',
    'client_secret',
    'signature',
    'sig',
    'password',
    'x-amz-signature',
    'x-goog-api-key',
    'refresh_token',
    'session-token',
    'app_secret',
  ])('treats %j as a credential', (name) => {
    expect(isSecretQueryParameter(name)).toBe(true);
  });

  test.each(['model', 'alt', 'limit', 'after', 'api-version', 'keyword', 'monkey', 'tokens', 'max_tokens', 'pageToken', 'order'])(
    'treats %j as an ordinary parameter',
    (name) => {
      expect(isSecretQueryParameter(name)).toBe(false);
    },
  );
});

describe('redactQuery', () => {
  test('drops credentials and sorts by name, then value', () => {
    expect(
      redactQuery([
        ['model', 'b'],
        ['key', FAKE_OPENAI_KEY],
        ['alt', 'sse'],
        ['model', 'a'],
        ['access_token', 'FAKE'],
      ]),
    ).toEqual([
      ['alt', 'sse'],
      ['model', 'a'],
      ['model', 'b'],
    ]);
  });

  test('gives an empty list for no parameters', () => {
    expect(redactQuery(new URLSearchParams(''))).toEqual([]);
  });
});

describe('redactUrl', () => {
  test.each([
    ['http://127.0.0.1:9/?api_key=hunter2', 'http://127.0.0.1:9/?api_key=REDACTED'],
    ['http://127.0.0.1:9/v1?region=eu&token=hunter2', 'http://127.0.0.1:9/v1?region=eu&token=REDACTED'],
    ['http://ada:hunter2@127.0.0.1:9/', 'http://REDACTED@127.0.0.1:9/'],
    ['https://token-only@example.test/v1', 'https://REDACTED@example.test/v1'],
    ['http://127.0.0.1:9/#access_token=hunter2&state=1', 'http://127.0.0.1:9/#state=1&access_token=REDACTED'],
    ['http//127.0.0.1:9/?key=hunter2', 'http//127.0.0.1:9/?key=REDACTED'],
    ['https://api.openai.com/v1', 'https://api.openai.com/v1'],
    ['http://127.0.0.1:9/?region=eu#section', 'http://127.0.0.1:9/?region=eu#section'],
  ])('shows %j as %j', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });
});
