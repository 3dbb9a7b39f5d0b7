import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { checkChatStreamGrammar, readChatAnswer } from '../../providers/internal.js';
import type { Exchange } from '../../recordings/internal.js';
import type { Mutation } from '../mutation.js';
import { mutationProblems, recordedExchange, sseEvents, streamText } from './check-mutation.js';
import { mutationsOf } from './index.js';

const fixture = (name: string): string => readFileSync(new URL(`../../test/fixtures/mutation/openai/${name}`, import.meta.url), 'utf8');
const path = '/v1/chat/completions';
const tools = ['get_weather', 'get_time'].map((name) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: {} } } }));
const plain = (file: string, request: Record<string, unknown> = {}): Exchange =>
  recordedExchange({
    upstream: 'openai',
    path,
    request: { model: 'gpt-4.1-nano', messages: [{ role: 'user', content: 'hi' }], ...request },
    body: fixture(file),
  });
const streamed = (file: string, request: Record<string, unknown> = {}): Exchange =>
  recordedExchange({
    upstream: 'openai',
    path,
    request: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], stream: true, ...request },
    stream: { text: fixture(file), format: 'sse' },
  });
const find = (mutations: Mutation[], operator: string, variant = ''): Mutation => {
  const found = mutations.find((mutation) => mutation.operator === operator && mutation.variant === variant);
  if (found === undefined)
    throw new Error(`no ${operator} ${variant} among ${mutations.map((mutation) => `${mutation.operator} ${mutation.variant}`).join(', ')}`);
  return found;
};
const bodyOf = (mutation: Mutation): unknown => (mutation.response.body as { json: unknown }).json;
// The answer a client assembles from a chat stream: text, refusal, tool calls by index, finish reason.
const assembled = (mutation: Mutation) => {
  let text = '';
  let refusal = '';
  let finish: unknown;
  const calls: Array<{ id?: string; name: string; arguments: string }> = [];
  for (const event of sseEvents(streamText(mutation.response))) {
    if (event.data === '[DONE]') continue;
    const chunk = JSON.parse(event.data) as { choices?: Array<{ delta: Record<string, any>; finish_reason: unknown }> };
    for (const choice of chunk.choices ?? []) {
      if (typeof choice.delta.content === 'string') text += choice.delta.content;
      if (typeof choice.delta.refusal === 'string') refusal += choice.delta.refusal;
      for (const call of choice.delta.tool_calls ?? []) {
        calls[call.index] ??= { name: '', arguments: '' };
        if (call.id !== undefined) calls[call.index]!.id = call.id;
        if (call.function?.name !== undefined) calls[call.index]!.name = call.function.name;
        calls[call.index]!.arguments += call.function?.arguments ?? '';
      }
      if (choice.finish_reason !== null && choice.finish_reason !== undefined) finish = choice.finish_reason;
    }
  }
  return { text, refusal, calls, finish };
};

function expectAllValid(exchange: Exchange, mutations: Mutation[]): void {
  expect(mutations.length).toBeGreaterThan(0);
  expect(mutations.length).toBeLessThanOrEqual(25);
  for (const mutation of mutations) expect(mutationProblems(exchange, mutation, 'openai-chat'), `${mutation.operator} ${mutation.variant}`).toEqual([]);
  // operator + variant names each mutation once
  expect(new Set(mutations.map((mutation) => `${mutation.operator}/${mutation.variant}`)).size).toBe(mutations.length);
}

describe('OpenAI chat, a plain text answer', () => {
  const exchange = plain('chat-completion.json');
  const mutations = mutationsOf(exchange);

  test('lists every operator the answer admits, in a fixed order, each valid for the tape with a hash of its bytes', () => {
    expectAllValid(exchange, mutations);
    expect(mutations.map((mutation) => mutation.operator)).toEqual([
      'text-negated',
      'text-emptied',
      'number-changed',
      'finish-length',
      'finish-content-filter',
      'refusal',
      'rate-limited',
      'server-error',
      'overloaded',
    ]);
    expect(JSON.stringify(mutationsOf(plain('chat-completion.json')))).toBe(JSON.stringify(mutations));
  });

  test('text-negated and number-changed change the words, keep the recorded layout and hash the new bytes', () => {
    const negated = find(mutations, 'text-negated');
    const content = (readChatAnswer(bodyOf(negated)) as { text: string }).text;
    const recorded = (readChatAnswer((exchange.response.body as { json: unknown }).json) as { text: string }).text;
    expect(negated.description).toBe('text "can" → "can not"');
    expect(content).toBe(recorded.replace('the smallest light can illuminate', 'the smallest light can not illuminate'));
    expect(negated.before).toContain('light can illuminate');
    expect(negated.after).toContain('light can not illuminate');
    const number = find(mutations, 'number-changed');
    expect((readChatAnswer(bodyOf(number)) as { text: string }).text).toContain('October 32st');
    // The recorded body was indented with \u escapes; the mutant is too.
    const body = number.response.body as { layout?: { indent?: string; ascii?: boolean } };
    expect(body.layout).toMatchObject({ indent: '  ', ascii: true });
  });

  test('the finish operators say it in chat words, read back by the answer reader', () => {
    expect((readChatAnswer(bodyOf(find(mutations, 'finish-length'))) as { stopReason: string }).stopReason).toBe('length');
    expect((readChatAnswer(bodyOf(find(mutations, 'finish-content-filter'))) as { stopReason: string }).stopReason).toBe('content_filter');
    const refusal = bodyOf(find(mutations, 'refusal')) as { choices: Array<{ message: { content: unknown; refusal: unknown } }> };
    expect(refusal.choices[0]!.message).toMatchObject({ content: null, refusal: "I'm sorry, but I can't help with that." });
    expect(find(mutations, 'text-emptied').response.body).toMatchObject({ json: { choices: [{ message: { content: '' } }] } });
  });

  test('the failures are OpenAI error bodies with their statuses', () => {
    const limited = find(mutations, 'rate-limited').response;
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ json: { error: { type: 'requests', code: 'rate_limit_exceeded', param: null } } });
    expect(find(mutations, 'server-error').response.status).toBe(500);
    expect(find(mutations, 'overloaded').response).toMatchObject({ status: 503, body: { json: { error: { code: 'server_is_overloaded' } } } });
  });
});

describe('OpenAI chat, parallel tool calls in a plain answer', () => {
  const exchange = plain('chat-completion-parallel-tool-calls.json', { tools });
  const mutations = mutationsOf(exchange);
  const calls = (mutation: Mutation) => (readChatAnswer(bodyOf(mutation)) as { toolCalls: Array<{ name: string; args: unknown }> }).toolCalls;

  test('each call gets its own changed argument, drop and rename, and the two are reordered', () => {
    expectAllValid(exchange, mutations);
    expect(mutations.filter((mutation) => mutation.operator.startsWith('tool-')).map((mutation) => `${mutation.operator} ${mutation.variant}`)).toEqual([
      'tool-argument-changed call 1',
      'tool-argument-changed call 2',
      'tool-call-dropped call 1',
      'tool-call-dropped call 2',
      'tool-renamed call 1',
      'tool-renamed call 2',
      'tool-calls-reordered ',
    ]);
    expect(calls(find(mutations, 'tool-argument-changed', 'call 1'))[0]!.args).toEqual({ city: 'Parisx' });
    expect(calls(find(mutations, 'tool-argument-changed', 'call 2'))[1]!.args).toEqual({ city: 'Tokyox', utc_offset: 9 });
    expect(find(mutations, 'tool-argument-changed', 'call 1').description).toBe(`get_weather's .city "Paris" → "Parisx"`);
    expect(calls(find(mutations, 'tool-call-dropped', 'call 1')).map((call) => call.name)).toEqual(['get_time']);
    expect((readChatAnswer(bodyOf(find(mutations, 'tool-call-dropped', 'call 1'))) as { stopReason: string }).stopReason).toBe('tool_calls');
    expect(calls(find(mutations, 'tool-renamed', 'call 1')).map((call) => call.name)).toEqual(['get_time', 'get_time']);
    expect(calls(find(mutations, 'tool-renamed', 'call 2')).map((call) => call.name)).toEqual(['get_weather', 'get_weather']);
    expect(calls(find(mutations, 'tool-calls-reordered')).map((call) => call.name)).toEqual(['get_time', 'get_weather']);
  });
});

describe('OpenAI chat, structured output', () => {
  const exchange = plain('chat-completion-structured.json', {
    response_format: { type: 'json_schema', json_schema: { name: 'weather', schema: { type: 'object', properties: {} } } },
  });
  const mutations = mutationsOf(exchange);
  const content = (mutation: Mutation): unknown => JSON.parse((readChatAnswer(bodyOf(mutation)) as { text: string }).text);

  test('removes and retypes the first three fields, one mutation each, and does not negate JSON', () => {
    expectAllValid(exchange, mutations);
    expect(mutations.some((mutation) => mutation.operator === 'text-negated' || mutation.operator === 'number-changed')).toBe(false);
    expect(mutations.filter((mutation) => mutation.operator === 'field-removed').map((mutation) => mutation.variant)).toEqual([
      '.city',
      '.temperature_c',
      '.sunny',
    ]);
    expect(content(find(mutations, 'field-removed', '.city'))).toEqual({ temperature_c: 14, sunny: false, advice: 'Take an umbrella.' });
    expect(content(find(mutations, 'field-retyped', '.temperature_c'))).toMatchObject({ temperature_c: '14' });
    expect(content(find(mutations, 'field-retyped', '.city'))).toMatchObject({ city: 5 });
    expect(content(find(mutations, 'field-retyped', '.sunny'))).toMatchObject({ sunny: 'false' });
  });
});

describe('OpenAI chat, a streamed text answer', () => {
  const exchange = streamed('chat-stream-text.sse');
  const mutations = mutationsOf(exchange);
  const original = assembled({ response: exchange.response } as Mutation);

  test('every mutant but the cut ones keeps the chunk grammar, frames keep their times', () => {
    expectAllValid(exchange, mutations);
    expect(mutations.map((mutation) => mutation.operator)).toEqual([
      'text-negated',
      'text-emptied',
      'finish-length',
      'finish-content-filter',
      'refusal',
      'stream-truncated',
      'rate-limited',
      'server-error',
      'overloaded',
      'stream-error',
    ]);
    const negated = find(mutations, 'text-negated');
    expect(negated.response.stream!.frames.map((frame) => frame.atMs)).toEqual(exchange.response.stream!.frames.map((frame) => frame.atMs));
    // Only the frame holding the word changed.
    const changed = negated.response.stream!.frames.filter((frame, index) => JSON.stringify(frame) !== JSON.stringify(exchange.response.stream!.frames[index]));
    expect(changed).toHaveLength(1);
  });

  test('the deltas concatenate to the mutated text', () => {
    const negated = find(mutations, 'text-negated');
    // No negation and no auxiliary verb in "I'm unable to provide…": the text is negated as a whole.
    expect(negated.description).toBe(`text "I'm" → "not I'm"`);
    expect(assembled(negated).text).toBe(`not ${original.text}`);
    expect(original.text.startsWith("I'm unable to provide real-time weather updates.")).toBe(true);
    expect(assembled(find(mutations, 'text-emptied')).text).toBe('');
    expect(assembled(find(mutations, 'refusal'))).toMatchObject({ text: '', refusal: "I'm sorry, but I can't help with that." });
    expect(assembled(find(mutations, 'finish-length')).finish).toBe('length');
  });

  test('stream-truncated ends before the finish; stream-error sends the first frames then an error chunk', () => {
    const truncated = find(mutations, 'stream-truncated');
    const events = sseEvents(streamText(truncated.response));
    expect(events.length).toBeGreaterThan(0);
    expect(events.some((event) => event.data === '[DONE]' || event.data.includes('"finish_reason":"stop"'))).toBe(false);
    expect(checkChatStreamGrammar(events)).toEqual([`the stream stops after ${events.length} events without data: [DONE]`]);
    const errored = sseEvents(streamText(find(mutations, 'stream-error').response));
    expect(JSON.parse(errored[errored.length - 1]!.data)).toMatchObject({ error: { type: 'server_error' } });
    expect(checkChatStreamGrammar(errored)).toEqual([]);
    const failure = find(mutations, 'rate-limited').response;
    expect(failure.stream).toBeUndefined();
    expect(failure.headers['content-type']).toBe('application/json');
  });
});

describe('OpenAI chat, streamed parallel tool calls', () => {
  const exchange = streamed('chat-stream-parallel-tool-calls.sse', { tools });
  const mutations = mutationsOf(exchange);

  test('the argument deltas concatenate to the new JSON, indexes stay 0, 1', () => {
    expectAllValid(exchange, mutations);
    const changed = assembled(find(mutations, 'tool-argument-changed', 'call 2'));
    expect(changed.calls.map((call) => JSON.parse(call.arguments))).toEqual([
      { city: 'San Francisco', state: 'CA' },
      { city: 'Tokyox', state: 'JP' },
    ]);
    const dropped = assembled(find(mutations, 'tool-call-dropped', 'call 1'));
    expect(dropped.calls).toEqual([{ id: 'call_CTf1nWJLqSeRgDqaCG27xZ75', name: 'get_weather', arguments: '{"city":"Tokyo","state":"JP"}' }]);
    expect(dropped.finish).toBe('tool_calls');
    const reordered = assembled(find(mutations, 'tool-calls-reordered'));
    expect(reordered.calls.map((call) => call.id)).toEqual(['call_CTf1nWJLqSeRgDqaCG27xZ75', 'call_CTf1nWJLqSeRgDqaCG27xZ74']);
    expect(reordered.calls.map((call) => JSON.parse(call.arguments).city)).toEqual(['Tokyo', 'San Francisco']);
    expect(assembled(find(mutations, 'tool-renamed', 'call 1')).calls.map((call) => call.name)).toEqual(['get_time', 'get_weather']);
  });

  test('dropping the only call of a one-call stream finishes with stop', () => {
    const single = streamed('chat-stream-tool-call.sse', { tools: tools.slice(0, 1) });
    const all = mutationsOf(single);
    expectAllValid(single, all);
    const dropped = assembled(find(all, 'tool-call-dropped', 'call 1'));
    expect(dropped).toMatchObject({ calls: [], finish: 'stop' });
    expect(assembled(find(all, 'tool-renamed', 'call 1')).calls[0]!.name).toBe('not_get_weather');
  });
});

describe('what is not a model turn', () => {
  test('errors, embeddings and unknown paths admit no mutation', () => {
    const error = plain('chat-completion.json');
    expect(mutationsOf({ ...error, response: { ...error.response, status: 400 } })).toEqual([]);
    expect(mutationsOf({ ...error, request: { ...error.request, path: '/v1/embeddings' } })).toEqual([]);
    expect(mutationsOf({ ...error, request: { ...error.request, path: '/v1/unknown' } })).toEqual([]);
  });
});
