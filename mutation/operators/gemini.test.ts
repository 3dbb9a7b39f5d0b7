import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { checkGenerateStreamGrammar, readGenerateAnswer } from '../../providers/internal.js';
import type { Exchange } from '../../recordings/internal.js';
import type { Mutation } from '../mutation.js';
import { mutationProblems, recordedExchange, sseEvents, streamText } from './check-mutation.js';
import { mutationsOf } from './index.js';

const fixture = (name: string): string => readFileSync(new URL(`../../test/fixtures/mutation/gemini/${name}`, import.meta.url), 'utf8');
// The data payloads framed as Gemini frames `alt=sse`: `data: {json}` and a CRLF blank line.
const framed = (name: string): string =>
  fixture(name)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => `data: ${line}\r\n\r\n`)
    .join('');
const request = {
  contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
  tools: [{ functionDeclarations: [{ name: 'weather' }, { name: 'forecast' }] }],
};
const plain = (file: string): Exchange =>
  recordedExchange({ upstream: 'gemini', path: '/v1beta/models/gemini-3-pro-preview:generateContent', request, body: fixture(file) });
const streamed = (file: string): Exchange =>
  recordedExchange({
    upstream: 'gemini',
    path: '/v1beta/models/gemini-3-pro-preview:streamGenerateContent',
    request,
    stream: { text: framed(file), format: 'sse' },
  });
const find = (mutations: Mutation[], operator: string, variant = ''): Mutation => {
  const found = mutations.find((mutation) => mutation.operator === operator && mutation.variant === variant);
  if (found === undefined)
    throw new Error(`no ${operator} ${variant} among ${mutations.map((mutation) => `${mutation.operator} ${mutation.variant}`).join(', ')}`);
  return found;
};
const answer = (mutation: Mutation) =>
  readGenerateAnswer((mutation.response.body as { json: unknown }).json) as {
    text: string | null;
    stopReason: string;
    toolCalls: Array<{ name: string; args: unknown }>;
  };
const frames = (mutation: Mutation) => sseEvents(streamText(mutation.response)).map((event) => JSON.parse(event.data) as Record<string, any>);
const streamedText = (mutation: Mutation): string =>
  frames(mutation)
    .flatMap((frame) => frame.candidates?.[0]?.content?.parts ?? [])
    .map((part: { text?: string }) => part.text ?? '')
    .join('');
function expectAllValid(exchange: Exchange, mutations: Mutation[]): void {
  expect(mutations.length).toBeGreaterThan(0);
  expect(mutations.length).toBeLessThanOrEqual(25);
  for (const mutation of mutations) expect(mutationProblems(exchange, mutation, 'gemini-generate'), `${mutation.operator} ${mutation.variant}`).toEqual([]);
}

describe('Gemini, plain answers', () => {
  test('a text answer: the number, MAX_TOKENS and SAFETY, Google RPC failures; no refusal word', () => {
    const exchange = plain('generate-content-text.json');
    const mutations = mutationsOf(exchange);
    expectAllValid(exchange, mutations);
    expect(mutations.map((mutation) => mutation.operator)).toEqual([
      'text-negated',
      'text-emptied',
      'number-changed',
      'finish-length',
      'finish-content-filter',
      'rate-limited',
      'server-error',
      'overloaded',
    ]);
    expect(answer(find(mutations, 'number-changed')).text).toBe("There are **4** r's in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.");
    expect(answer(find(mutations, 'text-negated')).text).toBe("There are not **3** r's in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.");
    expect(answer(find(mutations, 'finish-length')).stopReason).toBe('MAX_TOKENS');
    expect(answer(find(mutations, 'finish-content-filter')).stopReason).toBe('SAFETY');
    expect(find(mutations, 'rate-limited').response).toMatchObject({ status: 429, body: { json: { error: { code: 429, status: 'RESOURCE_EXHAUSTED' } } } });
  });

  test('parallel function calls: args objects, drop, rename to another declared function, reorder', () => {
    const exchange = plain('generate-content-parallel-tool-calls.json');
    const mutations = mutationsOf(exchange);
    expectAllValid(exchange, mutations);
    expect(answer(find(mutations, 'tool-argument-changed', 'call 2')).toolCalls.map((call) => call.args)).toEqual([
      { location: 'San Francisco' },
      { location: 'Tokyox' },
    ]);
    expect(answer(find(mutations, 'tool-call-dropped', 'call 1')).toolCalls.map((call) => call.args)).toEqual([{ location: 'Tokyo' }]);
    expect(answer(find(mutations, 'tool-renamed', 'call 1')).toolCalls.map((call) => call.name)).toEqual(['forecast', 'weather']);
    expect(answer(find(mutations, 'tool-calls-reordered')).toolCalls.map((call) => call.args)).toEqual([{ location: 'Tokyo' }, { location: 'San Francisco' }]);
  });
});

describe('Gemini, streams', () => {
  test('a text stream: the frames concatenate to the mutated text, CRLF framing kept', () => {
    const exchange = streamed('stream-text.data.jsonl');
    const mutations = mutationsOf(exchange);
    expectAllValid(exchange, mutations);
    expect(streamedText(find(mutations, 'number-changed'))).toMatch(/^There are \*\*4\*\* "r"s in strawberry/);
    expect(streamText(find(mutations, 'number-changed').response)).toMatch(/^data: \{.*\}\r\n\r\ndata: /);
    expect(frames(find(mutations, 'finish-content-filter')).at(-1)!.candidates[0].finishReason).toBe('SAFETY');
    const truncated = sseEvents(streamText(find(mutations, 'stream-truncated').response));
    // Three frames, the last with the finishReason: the first two are left.
    expect(truncated).toHaveLength(2);
    expect(checkGenerateStreamGrammar(truncated)).toEqual(['the stream stops after 2 events without a finishReason']);
    const errored = frames(find(mutations, 'stream-error'));
    expect(errored.at(-1)).toMatchObject({ error: { code: 503, status: 'UNAVAILABLE' } });
  });

  test('a function-call stream: the call is changed, dropped and renamed in its frame', () => {
    const exchange = streamed('stream-tool-call.data.jsonl');
    const mutations = mutationsOf(exchange);
    expectAllValid(exchange, mutations);
    const call = (mutation: Mutation) => frames(mutation)[0]!.candidates[0].content.parts;
    expect(call(find(mutations, 'tool-argument-changed', 'call 1'))[0].functionCall).toEqual({ name: 'weather', args: { location: 'San Franciscox' } });
    expect(call(find(mutations, 'tool-call-dropped', 'call 1'))).toEqual([]);
    expect(call(find(mutations, 'tool-renamed', 'call 1'))[0].functionCall.name).toBe('forecast');
  });
});
