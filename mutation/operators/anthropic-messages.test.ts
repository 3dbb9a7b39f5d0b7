import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { checkMessagesStreamGrammar, readMessagesAnswer } from '../../providers/internal.js';
import type { Exchange } from '../../recordings/internal.js';
import type { Mutation } from '../mutation.js';
import { mutationProblems, recordedExchange, sseEvents, streamText } from './check-mutation.js';
import { mutationsOf } from './index.js';

const fixture = (name: string): string => readFileSync(new URL(`../../test/fixtures/mutation/anthropic/${name}`, import.meta.url), 'utf8');
const request = { model: 'claude-sonnet-4-5', max_tokens: 1024, messages: [{ role: 'user', content: 'hi' }] };
const tools = [{ name: 'get_weather', input_schema: { type: 'object', properties: {} } }];
const plain = (file: string, extra: Record<string, unknown> = {}): Exchange =>
  recordedExchange({
    upstream: 'anthropic',
    path: '/v1/messages',
    request: { ...request, ...extra },
    body: fixture(file),
    headers: { 'request-id': 'req_011CSHoEeqs5C35K2UUqR7Fy' },
  });
const streamed = (file: string, extra: Record<string, unknown> = {}): Exchange =>
  recordedExchange({
    upstream: 'anthropic',
    path: '/v1/messages',
    request: { ...request, stream: true, ...extra },
    stream: { text: fixture(file), format: 'sse' },
  });
const find = (mutations: Mutation[], operator: string, variant = ''): Mutation => {
  const found = mutations.find((mutation) => mutation.operator === operator && mutation.variant === variant);
  if (found === undefined)
    throw new Error(`no ${operator} ${variant} among ${mutations.map((mutation) => `${mutation.operator} ${mutation.variant}`).join(', ')}`);
  return found;
};
const answer = (mutation: Mutation) =>
  readMessagesAnswer((mutation.response.body as { json: unknown }).json) as {
    text: string | null;
    stopReason: string;
    toolCalls: Array<{ id: string; name: string; args: unknown }>;
  };
// The message a client assembles from a Messages stream.
const assembled = (mutation: Mutation) => {
  const blocks: Array<{ type: string; text?: string; id?: string; name?: string; json?: string }> = [];
  let stop: unknown;
  for (const event of sseEvents(streamText(mutation.response))) {
    const data = JSON.parse(event.data) as Record<string, any>;
    if (data.type === 'content_block_start') blocks[data.index] = { ...data.content_block, json: '' };
    if (data.type === 'content_block_delta' && data.delta.type === 'text_delta') blocks[data.index]!.text += data.delta.text;
    if (data.type === 'content_block_delta' && data.delta.type === 'input_json_delta') blocks[data.index]!.json += data.delta.partial_json;
    if (data.type === 'message_delta') stop = data.delta.stop_reason;
  }
  return {
    text: blocks
      .filter((block) => block.type === 'text')
      .map((block) => block.text)
      .join(''),
    calls: blocks.filter((block) => block.type === 'tool_use').map((block) => ({ id: block.id, name: block.name, input: JSON.parse(block.json || '{}') })),
    stop,
  };
};
function expectAllValid(exchange: Exchange, mutations: Mutation[]): void {
  expect(mutations.length).toBeGreaterThan(0);
  expect(mutations.length).toBeLessThanOrEqual(25);
  for (const mutation of mutations) expect(mutationProblems(exchange, mutation, 'anthropic-messages'), `${mutation.operator} ${mutation.variant}`).toEqual([]);
}

describe('Anthropic Messages, a plain answer', () => {
  const exchange = plain('message.json');
  const mutations = mutationsOf(exchange);

  test('text, stop reasons in Anthropic words, failures with its 529', () => {
    expectAllValid(exchange, mutations);
    expect(mutations.map((mutation) => mutation.operator)).toEqual([
      'text-negated',
      'text-emptied',
      'finish-length',
      'finish-content-filter',
      'refusal',
      'rate-limited',
      'server-error',
      'overloaded',
    ]);
    expect(find(mutations, 'text-negated').description).toBe('text "are" → "are not"');
    expect(answer(find(mutations, 'text-negated')).text).toBe(
      "Hello! I'm doing well, thanks for asking. How are not you doing today? Is there anything I can help you with?",
    );
    expect(answer(find(mutations, 'finish-length')).stopReason).toBe('max_tokens');
    expect(answer(find(mutations, 'finish-content-filter'))).toMatchObject({ stopReason: 'refusal', text: expect.stringContaining('Hello!') });
    expect(answer(find(mutations, 'refusal'))).toMatchObject({ stopReason: 'refusal', text: null });
    expect(find(mutations, 'overloaded').response).toMatchObject({
      status: 529,
      body: { json: { type: 'error', error: { type: 'overloaded_error' }, request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy' } },
    });
  });

  test('structured output: fields removed and retyped in the text block', () => {
    const structured = plain('message-json-output.json', { output_config: { format: { type: 'json_schema', schema: { type: 'object' } } } });
    const all = mutationsOf(structured);
    expectAllValid(structured, all);
    expect(all.filter((mutation) => mutation.operator.startsWith('field-')).map((mutation) => `${mutation.operator} ${mutation.variant}`)).toEqual([
      'field-removed .recipe',
      'field-retyped .recipe',
    ]);
    expect(JSON.parse(answer(find(all, 'field-removed', '.recipe')).text!)).toEqual({});
    expect(typeof JSON.parse(answer(find(all, 'field-retyped', '.recipe')).text!).recipe).toBe('string');
  });
});

describe('Anthropic Messages, streams', () => {
  test('a text stream: the text deltas concatenate to the mutated text, the grammar holds', () => {
    const exchange = streamed('stream-text.sse');
    const mutations = mutationsOf(exchange);
    expectAllValid(exchange, mutations);
    expect(assembled(find(mutations, 'text-emptied')).text).toBe('');
    expect(assembled(find(mutations, 'finish-length')).stop).toBe('max_tokens');
    expect(assembled(find(mutations, 'refusal'))).toEqual({ text: '', calls: [], stop: 'refusal' });
    const truncated = sseEvents(streamText(find(mutations, 'stream-truncated').response));
    expect(truncated.map((event) => event.event)).not.toContain('message_delta');
    expect(checkMessagesStreamGrammar(truncated)).toEqual([`the stream stops after ${truncated.length} events without message_stop`]);
    const errored = sseEvents(streamText(find(mutations, 'stream-error').response));
    expect(errored[errored.length - 1]).toEqual({
      event: 'error',
      data: JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded (modeltape mutate)' } }),
    });
    expect(checkMessagesStreamGrammar(errored)).toEqual([]);
  });

  test('two tool_use blocks after a text block: arguments, drop (the block indexes close up), rename, reorder', () => {
    const exchange = streamed('stream-parallel-tool-use.sse', { tools });
    const mutations = mutationsOf(exchange);
    expectAllValid(exchange, mutations);
    const original = assembled({ response: exchange.response } as Mutation);
    expect(original.calls.map((call) => call.input)).toEqual([{ location: 'Paris' }, { location: 'Lyon' }]);
    expect(assembled(find(mutations, 'tool-argument-changed', 'call 2')).calls.map((call) => call.input)).toEqual([
      { location: 'Paris' },
      { location: 'Lyonx' },
    ]);
    expect(find(mutations, 'tool-argument-changed', 'call 2').after).toBe('get_weather({"location":"Lyonx"})');
    const dropped = assembled(find(mutations, 'tool-call-dropped', 'call 1'));
    expect(dropped).toMatchObject({ stop: 'tool_use', calls: [{ id: 'toolu_01NRLabsLyVHZPKxbKvkfSMo', input: { location: 'Lyon' } }] });
    expect(assembled(find(mutations, 'tool-calls-reordered')).calls.map((call) => call.id)).toEqual([
      'toolu_01NRLabsLyVHZPKxbKvkfSMo',
      'toolu_01NRLabsLyVHZPKxbKvkfSMn',
    ]);
    // Only one tool was offered: the rename is to one it was not.
    expect(assembled(find(mutations, 'tool-renamed', 'call 1')).calls.map((call) => call.name)).toEqual(['not_get_weather', 'get_weather']);
    // The recorded spacing of partial_json ("location": "Paris") is kept where the arguments are rewritten.
    expect(streamText(find(mutations, 'tool-argument-changed', 'call 1').response)).toContain('"partial_json":"on\\": \\"P"');
  });

  test('dropping the only tool call of a stream ends the turn', () => {
    const exchange = streamed('stream-tool-use.sse', { tools });
    const mutations = mutationsOf(exchange);
    expectAllValid(exchange, mutations);
    expect(assembled(find(mutations, 'tool-call-dropped', 'call 1'))).toMatchObject({ calls: [], stop: 'end_turn' });
  });
});
