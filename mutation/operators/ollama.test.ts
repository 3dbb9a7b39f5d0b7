import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { checkOllamaGenerateStreamGrammar, readOllamaChatAnswer } from '../../providers/internal.js';
import type { Exchange } from '../../recordings/internal.js';
import type { Mutation } from '../mutation.js';
import { mutationProblems, ndjsonLines, recordedExchange, streamText } from './check-mutation.js';
import { mutationsOf } from './index.js';

const fixture = (name: string): string => readFileSync(new URL(`../../test/fixtures/mutation/ollama/${name}`, import.meta.url), 'utf8');
const tools = ['get_current_weather', 'get_weather', 'get_time'].map((name) => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties: {} } },
}));
const chat = (file: string): Exchange =>
  recordedExchange({
    upstream: 'ollama',
    path: '/api/chat',
    request: { model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }], tools, stream: false },
    body: fixture(file),
  });
const chatStream = (file: string): Exchange =>
  recordedExchange({
    upstream: 'ollama',
    path: '/api/chat',
    request: { model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }], tools },
    stream: { text: fixture(file), format: 'ndjson' },
  });
const find = (mutations: Mutation[], operator: string, variant = ''): Mutation => {
  const found = mutations.find((mutation) => mutation.operator === operator && mutation.variant === variant);
  if (found === undefined)
    throw new Error(`no ${operator} ${variant} among ${mutations.map((mutation) => `${mutation.operator} ${mutation.variant}`).join(', ')}`);
  return found;
};
const answer = (mutation: Mutation) =>
  readOllamaChatAnswer((mutation.response.body as { json: unknown }).json) as { stopReason: string; toolCalls: Array<{ name: string; args: unknown }> };
const lines = (mutation: Mutation) => ndjsonLines(streamText(mutation.response)).map((line) => JSON.parse(line) as Record<string, any>);
function expectAllValid(exchange: Exchange, mutations: Mutation[], api: 'ollama-chat' | 'ollama-generate'): void {
  expect(mutations.length).toBeGreaterThan(0);
  expect(mutations.length).toBeLessThanOrEqual(25);
  for (const mutation of mutations) expect(mutationProblems(exchange, mutation, api), `${mutation.operator} ${mutation.variant}`).toEqual([]);
}

describe('Ollama chat', () => {
  test('parallel tool calls in a plain answer: arguments objects, drop, rename, reorder; done_reason length', () => {
    const exchange = chat('chat-parallel-tool-calls.json');
    const mutations = mutationsOf(exchange);
    expectAllValid(exchange, mutations, 'ollama-chat');
    expect(mutations.some((mutation) => mutation.operator === 'finish-content-filter' || mutation.operator === 'refusal')).toBe(false);
    expect(answer(find(mutations, 'tool-argument-changed', 'call 1')).toolCalls[0]!.args).toEqual({ format: 'celsiusx', location: 'Paris, FR' });
    expect(answer(find(mutations, 'tool-call-dropped', 'call 1')).toolCalls.map((call) => call.args)).toEqual([{ format: 'celsius', location: 'Tokyo, JP' }]);
    expect(answer(find(mutations, 'tool-renamed', 'call 1')).toolCalls[0]!.name).toBe('get_weather');
    expect(answer(find(mutations, 'tool-calls-reordered')).toolCalls.map((call) => (call.args as { location: string }).location)).toEqual([
      'Tokyo, JP',
      'Paris, FR',
    ]);
    expect(answer(find(mutations, 'finish-length')).stopReason).toBe('length');
    expect(find(mutations, 'rate-limited').response).toMatchObject({ status: 429, body: { json: { error: 'too many requests (modeltape mutate)' } } });
  });

  test('a streamed tool call: one JSON a line, the done line kept last', () => {
    const exchange = chatStream('chat-stream-tool-call.ndjson');
    const mutations = mutationsOf(exchange);
    expectAllValid(exchange, mutations, 'ollama-chat');
    expect(lines(find(mutations, 'tool-argument-changed', 'call 1'))[0]!.message.tool_calls).toEqual([
      { function: { name: 'get_weather', arguments: { city: 'Tokyox' } } },
    ]);
    expect(lines(find(mutations, 'tool-call-dropped', 'call 1'))[0]!.message).toEqual({ role: 'assistant', content: '' });
    expect(lines(find(mutations, 'finish-length')).at(-1)).toMatchObject({ done: true, done_reason: 'length' });
    const errored = lines(find(mutations, 'stream-error'));
    expect(errored).toHaveLength(2);
    expect(errored[1]).toEqual({ error: 'an internal error occurred (modeltape mutate)' });
  });
});

describe('Ollama generate', () => {
  const exchange = recordedExchange({
    upstream: 'ollama',
    path: '/api/generate',
    request: { model: 'granite3.3:2b', prompt: 'Describe a rabbit in 2 short sentences' },
    stream: { text: fixture('generate-stream-text.ndjson'), format: 'ndjson' },
  });
  const mutations = mutationsOf(exchange);
  const text = (mutation: Mutation): string =>
    lines(mutation)
      .map((line) => line.response ?? '')
      .join('');

  test('a streamed answer: the response pieces concatenate to the mutated text', () => {
    expectAllValid(exchange, mutations, 'ollama-generate');
    expect(mutations.map((mutation) => mutation.operator)).toEqual([
      'text-negated',
      'text-emptied',
      'finish-length',
      'stream-truncated',
      'rate-limited',
      'server-error',
      'overloaded',
      'stream-error',
    ]);
    expect(text(find(mutations, 'text-negated'))).toMatch(/^Rabbits are not small to medium-sized mammals known for their fluffy tails/);
    expect(text(find(mutations, 'text-emptied'))).toBe('');
    const truncated = ndjsonLines(streamText(find(mutations, 'stream-truncated').response));
    expect(truncated).toHaveLength(63);
    expect(checkOllamaGenerateStreamGrammar(truncated)).toEqual(['the stream stops after 63 lines without a done:true object']);
  });

  test('a plain answer', () => {
    const single = recordedExchange({
      upstream: 'ollama',
      path: '/api/generate',
      request: { model: 'granite3.3:2b', prompt: 'hi', stream: false },
      body: JSON.stringify(JSON.parse(fixture('generate-stream-text.ndjson').trim().split('\n').at(-1)!)),
    });
    expect(mutationsOf(single).map((mutation) => mutation.operator)).toEqual(['finish-length', 'rate-limited', 'server-error', 'overloaded']);
  });
});
