import { describe, expect, test } from 'vitest';
import type { DriftRequest } from './drift-report.js';
import { viewOf } from './view-of.js';

function request(path: string, upstream: string, json: unknown): DriftRequest {
  return { method: 'POST', path, upstream, query: [], headers: { 'content-type': 'application/json' }, body: { json } };
}

const messages = { model: 'm', messages: [{ role: 'user', content: 'Hi' }] };

describe('viewOf reads which wire API a body is in from its route', () => {
  test('the route decides over the upstream name: Anthropic’s OpenAI-compatible chat path reads as chat', () => {
    expect(viewOf(request('/v1/chat/completions', 'anthropic', messages)).format).toBe('OpenAI Chat Completions');
    expect(viewOf(request('/v1/messages', 'openai', { ...messages, max_tokens: 5 })).format).toBe('Anthropic Messages');
    expect(viewOf(request('/anthropic/v1/messages', 'local', messages)).format).toBe('Anthropic Messages');
    expect(viewOf(request('/v1/responses', 'openai', { model: 'm', input: 'Hi' })).format).toBe('OpenAI Responses');
  });

  test('a path no provider has falls back to the body’s shape', () => {
    expect(viewOf(request('/custom/generate', 'local', messages)).format).toBe('OpenAI Chat Completions');
    expect(viewOf(request('/custom/generate', 'my-anthropic', messages)).format).toBe('Anthropic Messages');
    expect(viewOf(request('/custom/generate', 'local', { model: 'm', input: 'Hi', instructions: 'Be brief.' })).format).toBe('OpenAI Responses');
    expect(viewOf(request('/custom/generate', 'local', { model: 'm', input: 'Hi' })).format).toBe('JSON');
  });

  test('a route whose body does not fit it is shown as fields, not read as a conversation', () => {
    const view = viewOf(request('/v1/responses', 'openai', { model: 'm', input: 7 }));
    expect(view.format).toBe('JSON');
    expect(view.fields.map((field) => field.name)).toEqual(['model', 'input']);
  });
});
