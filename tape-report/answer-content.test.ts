import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { recordedExchange } from '../mutation/operators/check-mutation.js';
import { answerContent } from './answer-content.js';

// Real wire samples (their provenance: test/fixtures/mutation/PROVENANCE.md).
const fixture = (name: string): string => readFileSync(new URL(`../test/fixtures/mutation/${name}`, import.meta.url), 'utf8');
const framed = (name: string): string =>
  fixture(name)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => `data: ${line}\r\n\r\n`)
    .join('');
const sse = (text: string) => ({ text, format: 'sse' as const });
const chat = { upstream: 'openai', path: '/v1/chat/completions', request: { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'hi' }] } };
const responses = { upstream: 'openai', path: '/v1/responses', request: { model: 'gpt-4.1', input: 'hi', stream: true } };
const messages = { upstream: 'anthropic', path: '/v1/messages', request: { model: 'claude-sonnet-4-5', max_tokens: 64, stream: true, messages: [] } };
const gemini = { upstream: 'gemini', path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent', request: { contents: [] } };

describe('what an answer says: its text, its tool calls with parsed arguments, the model that answered', () => {
  test('OpenAI chat: a stream’s argument fragments joined per call, in order, as the body gives them whole', () => {
    expect(answerContent(recordedExchange({ ...chat, stream: sse(fixture('openai/chat-stream-parallel-tool-calls.sse')) }))).toEqual({
      read: true,
      text: null,
      toolCalls: [
        { name: 'get_weather', args: { city: 'San Francisco', state: 'CA' } },
        { name: 'get_weather', args: { city: 'Tokyo', state: 'JP' } },
      ],
      answeredModel: 'gpt-4o-2024-08-06',
    });
    expect(answerContent(recordedExchange({ ...chat, body: fixture('openai/chat-completion-parallel-tool-calls.json') })).toolCalls).toEqual([
      { name: 'get_weather', args: { city: 'Paris' } },
      { name: 'get_time', args: { city: 'Tokyo', utc_offset: 9 } },
    ]);
    expect(answerContent(recordedExchange({ ...chat, stream: sse(fixture('openai/chat-stream-text.sse')) })).text).toMatch(
      /^I'm unable to provide real-time weather/,
    );
  });

  test('OpenAI Responses: the stream’s final response object', () => {
    expect(answerContent(recordedExchange({ ...responses, stream: sse(framed('openai/responses-stream-tool-call.data.jsonl')) }))).toEqual({
      read: true,
      text: null,
      toolCalls: [{ name: 'calculator', args: { a: 19, b: 3, op: 'multiply' } }],
      answeredModel: 'gpt-5.1-codex-max',
    });
    expect(answerContent(recordedExchange({ ...responses, stream: sse(framed('openai/responses-stream-text.data.jsonl')) })).text).toBe(
      'The final result is **570**.',
    );
  });

  test('Anthropic Messages: text deltas joined, input_json fragments parsed per block', () => {
    expect(answerContent(recordedExchange({ ...messages, stream: sse(fixture('anthropic/stream-parallel-tool-use.sse')) }))).toEqual({
      read: true,
      text: "I'll check the current weather in Paris for you.",
      toolCalls: [
        { name: 'get_weather', args: { location: 'Paris' } },
        { name: 'get_weather', args: { location: 'Lyon' } },
      ],
      answeredModel: 'claude-opus-4-8',
    });
    expect(answerContent(recordedExchange({ ...messages, stream: sse(fixture('anthropic/stream-text.sse')) })).text).toBe('Hello there!');
  });

  test('Gemini: chunks’ parts merged, the model from modelVersion', () => {
    const call = answerContent(recordedExchange({ ...gemini, stream: sse(framed('gemini/stream-tool-call.data.jsonl')) }));
    expect(call.toolCalls).toEqual([{ name: 'weather', args: { location: 'San Francisco' } }]);
    expect(call.answeredModel).toBe('gemini-3-pro-preview');
    expect(answerContent(recordedExchange({ ...gemini, stream: sse(framed('gemini/stream-text.data.jsonl')) })).text).toBe(
      'There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y',
    );
  });

  test('an error status says nothing; an API not read here is not read', () => {
    expect(answerContent(recordedExchange({ ...chat, status: 404, body: '{"error":{"message":"no"}}' }))).toEqual({
      read: true,
      text: null,
      toolCalls: [],
      answeredModel: undefined,
    });
    expect(answerContent(recordedExchange({ upstream: 'openai', path: '/v1/embeddings', request: { model: 'x', input: 'hi' }, body: '{}' })).read).toBe(false);
  });
});
