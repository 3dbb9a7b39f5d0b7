import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { recordedExchange } from '../mutation/operators/check-mutation.js';
import {
  NOVA_LITE,
  bedrockExchange,
  claudeChunks,
  converseRequest,
  converseToolBody,
  converseToolStream,
  modelStreamError,
  novaChunks,
} from '../test/support/bedrock-exchanges.js';
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

  test('Ollama: /api/chat whole and streamed (content pieces joined, tool calls in order), /api/generate’s response pieces joined', () => {
    const ollamaChat = { upstream: 'ollama', path: '/api/chat', request: { model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }] } };
    const whole = answerContent(recordedExchange({ ...ollamaChat, body: fixture('ollama/chat-parallel-tool-calls.json') }));
    expect(whole.toolCalls.map((call) => call.name)).toEqual(['get_current_weather', 'get_current_weather']);
    expect(whole.answeredModel).toBe('llama3.2');
    expect(
      answerContent(recordedExchange({ ...ollamaChat, stream: { format: 'ndjson', text: fixture('ollama/chat-stream-tool-call.ndjson') } })),
    ).toMatchObject({
      read: true,
      toolCalls: [{ name: 'get_weather', args: { city: 'Tokyo' } }],
    });
    const generated = answerContent(
      recordedExchange({
        upstream: 'ollama',
        path: '/api/generate',
        request: { model: 'granite3.3:2b', prompt: 'hi' },
        stream: { format: 'ndjson', text: fixture('ollama/generate-stream-text.ndjson') },
      }),
    );
    expect(generated.text).toMatch(/^Rabbits/);
    expect(generated).toMatchObject({ read: true, toolCalls: [], answeredModel: 'granite3.3:2b' });
  });

  test('Bedrock: Converse and ConverseStream, InvokeModel’s Claude and Nova bodies and streams; a stream’s exception ends what is read', () => {
    expect(answerContent(bedrockExchange({ operation: 'converse', request: converseRequest(), body: converseToolBody() }))).toEqual({
      read: true,
      text: 'Checking the weather.',
      toolCalls: [{ name: 'get_weather', args: { city: 'Paris' } }],
      answeredModel: undefined,
    });
    expect(answerContent(bedrockExchange({ operation: 'converse-stream', request: converseRequest(), messages: converseToolStream() }))).toMatchObject({
      text: 'It is 14 degrees in Paris.',
      toolCalls: [
        { name: 'get_weather', args: { city: 'Paris', days: 3 } },
        { name: 'get_time', args: { city: 'Paris' } },
      ],
    });
    const claude = { anthropic_version: 'bedrock-2023-05-31', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] };
    expect(answerContent(bedrockExchange({ operation: 'invoke-with-response-stream', request: claude, messages: claudeChunks() }))).toEqual({
      read: true,
      text: 'Paris is sunny.',
      toolCalls: [{ name: 'get_weather', args: { city: 'Paris' } }],
      answeredModel: 'claude-3-5-haiku-20241022',
    });
    const nova = { messages: [{ role: 'user', content: [{ text: 'hi' }] }] };
    expect(answerContent(bedrockExchange({ operation: 'invoke-with-response-stream', model: NOVA_LITE, request: nova, messages: novaChunks() })).text).toBe(
      'Hello from Nova 2.',
    );
    const novaBody = JSON.stringify({ output: { message: { role: 'assistant', content: [{ text: 'Hi.' }] } }, stopReason: 'end_turn' });
    expect(answerContent(bedrockExchange({ operation: 'invoke', model: NOVA_LITE, request: nova, body: novaBody })).text).toBe('Hi.');
    const broken = [...novaChunks().slice(0, 2), modelStreamError()];
    expect(answerContent(bedrockExchange({ operation: 'invoke-with-response-stream', model: NOVA_LITE, request: nova, messages: broken })).text).toBe(
      'Hello from ',
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
