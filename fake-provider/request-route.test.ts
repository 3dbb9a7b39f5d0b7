import { describe, expect, test } from 'vitest';
import { requestRoute } from './request-route.js';

describe('requestRoute', () => {
  test('reads the route, the provider and the shown path, the same the first time and every time after', () => {
    const cases: Array<[string, string, Record<string, string>, unknown]> = [
      [
        'POST',
        '/openai/v1/chat/completions',
        {},
        { path: '/v1/chat/completions', prefixed: 'openai', route: { api: 'openai-chat', provider: 'openai' }, provider: 'openai' },
      ],
      [
        'POST',
        '/v1/messages',
        {},
        { path: '/v1/messages', prefixed: undefined, route: { api: 'anthropic-messages', provider: 'anthropic' }, provider: 'anthropic' },
      ],
      ['GET', '/v1/models', { 'anthropic-version': '2023-06-01' }, { route: { api: 'anthropic-models', provider: 'anthropic' }, provider: 'anthropic' }],
      ['GET', '/v1/models', {}, { route: { api: 'openai-models', provider: 'openai' }, provider: 'openai' }],
      ['POST', '/v1/nope', { 'x-goog-api-key': 'fake' }, { route: undefined, provider: 'gemini' }],
      ['POST', '/v1/nope', {}, { route: undefined, provider: 'openai' }],
      ['POST', '/api/nope', {}, { route: undefined, provider: 'ollama' }],
      [
        'POST',
        '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
        {},
        { route: { api: 'gemini-generate', provider: 'gemini', model: 'gemini-2.5-flash', stream: true } },
      ],
    ];
    for (const [method, path, headers, expected] of cases) {
      const first = requestRoute(method, path, headers);
      expect(first).toMatchObject(expected as object);
      expect(requestRoute(method, path, { ...headers })).toEqual(first);
    }
    expect(cases).toHaveLength(8);
  });

  test('a key in the query is shown redacted, and what is kept cannot be changed by a caller', () => {
    const route = requestRoute('POST', '/v1/chat/completions?api-key=sk-fake-0123456789abcdef&x=1', {});
    expect(route.shownPath).not.toContain('sk-fake');
    expect(route.shownPath).toContain('x=1');
    expect(Object.isFrozen(route) && Object.isFrozen(route.route)).toBe(true);
  });

  test('stays right after far more paths than it keeps', () => {
    for (let index = 0; index < 600; index++) expect(requestRoute('GET', `/v1/responses/resp_${index}`, {}).route?.api).toBe('openai-responses-stored');
    expect(requestRoute('POST', '/v1/responses', {}).route?.api).toBe('openai-responses');
  });
});
