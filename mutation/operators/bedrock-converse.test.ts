import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { assembleConverseStream, readConverseAnswer, type ConverseAnswer } from '../../providers/internal.js';
import { eventStreamMessagesOf, parseTape, serializeTape, createHeader, defaultKeyRules, type Exchange } from '../../recordings/internal.js';
import { bedrockExchange, converseRequest, converseToolBody, converseToolStream } from '../../test/support/bedrock-exchanges.js';
import { converseStream } from '../../test/support/event-stream-messages.js';
import type { Mutation } from '../mutation.js';
import { mutationProblems } from './check-mutation.js';
import { mutationsOf } from './index.js';

const fixture = (name: string): string => readFileSync(new URL(`../../test/fixtures/bedrock/${name}`, import.meta.url), 'utf8');
const find = (mutations: Mutation[], operator: string, variant = ''): Mutation => {
  const found = mutations.find((mutation) => mutation.operator === operator && mutation.variant === variant);
  if (found === undefined)
    throw new Error(`no ${operator} ${variant} among ${mutations.map((mutation) => `${mutation.operator} ${mutation.variant}`).join(', ')}`);
  return found;
};
const answer = (mutation: Mutation): ConverseAnswer => readConverseAnswer((mutation.response.body as { json: unknown }).json) as ConverseAnswer;
// What the AWS SDK would assemble from the mutant's stream, read back from a tape line as replay reads it.
const streamed = (exchange: Exchange, mutation: Mutation) => {
  const read = parseTape(serializeTape(createHeader(defaultKeyRules()), [{ ...exchange, response: mutation.response }]), 'mutant.jsonl');
  const messages = eventStreamMessagesOf(read.exchanges[0]!.exchange.response)!;
  const { body, exception } = assembleConverseStream(messages.map((message) => ({ type: message.event, payload: message.json })));
  return { answer: readConverseAnswer(body) as ConverseAnswer, exception, messages };
};
function expectAllValid(exchange: Exchange, mutations: Mutation[]): void {
  expect(mutations.length).toBeGreaterThan(0);
  for (const mutation of mutations) expect(mutationProblems(exchange, mutation, 'bedrock-converse'), `${mutation.operator} ${mutation.variant}`).toEqual([]);
}

describe('Bedrock Converse, a plain answer', () => {
  test('the captured text answer: text, stop reasons in Converse words, Bedrock failures with x-amzn-errortype', () => {
    const exchange = bedrockExchange({ operation: 'converse', request: converseRequest(), body: fixture('converse-response.json') });
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
    expect(answer(find(mutations, 'number-changed')).text).toContain('There are **4**');
    expect(answer(find(mutations, 'finish-length')).stopReason).toBe('max_tokens');
    expect(answer(find(mutations, 'finish-content-filter')).stopReason).toBe('content_filtered');
    // The layout the body was recorded in is kept: only the changed value differs.
    const length = find(mutations, 'finish-length').response.body as { layout?: unknown };
    expect(length.layout).toBeDefined();

    const throttled = find(mutations, 'rate-limited').response;
    expect(throttled.status).toBe(429);
    expect(throttled.headers['x-amzn-errortype']).toBe('ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/');
    expect((throttled.body as { json: { message: string } }).json.message).toContain('(modeltape mutate)');
    expect(find(mutations, 'server-error').response.headers['x-amzn-errortype']).toMatch(/^InternalServerException:/);
    expect(find(mutations, 'overloaded').response).toMatchObject({
      status: 429,
      headers: { 'x-amzn-errortype': expect.stringMatching(/^ModelNotReadyException:/) },
    });
  });

  test('a tool use: its input changed, the call dropped (stopReason back to end_turn), renamed', () => {
    const exchange = bedrockExchange({ operation: 'converse', request: converseRequest(), body: converseToolBody() });
    const mutations = mutationsOf(exchange);
    expectAllValid(exchange, mutations);
    expect(answer(find(mutations, 'tool-argument-changed', 'call 1')).toolCalls).toEqual([
      { id: 'tooluse_fake_0', name: 'get_weather', args: { city: 'Parisx' } },
    ]);
    const dropped = answer(find(mutations, 'tool-call-dropped', 'call 1'));
    expect(dropped).toMatchObject({ toolCalls: [], stopReason: 'end_turn', text: 'Checking the weather.' });
    expect(answer(find(mutations, 'tool-renamed', 'call 1')).toolCalls[0]!.name).not.toBe('get_weather');
    expect(answer(find(mutations, 'text-emptied')).text).toBe('');
  });
});

describe('Bedrock ConverseStream, event frames', () => {
  const exchange = bedrockExchange({ operation: 'converse-stream', request: converseRequest(), messages: converseToolStream() });
  const mutations = mutationsOf(exchange);

  test('every mutant is a readable event stream that keeps ConverseStream grammar (but those that break it on purpose)', () => {
    expectAllValid(exchange, mutations);
    expect([...new Set(mutations.map((mutation) => mutation.operator))]).toEqual([
      'text-negated',
      'text-emptied',
      'number-changed',
      'tool-argument-changed',
      'tool-call-dropped',
      'tool-renamed',
      'tool-calls-reordered',
      'finish-length',
      'finish-content-filter',
      'stream-truncated',
      'rate-limited',
      'server-error',
      'overloaded',
      'stream-error',
    ]);
    for (const mutation of mutations.filter((each) => each.response.stream !== undefined))
      expect(mutation.response.stream!.frames.every((frame) => 'event' in frame)).toBe(true);
  });

  test('text and tool inputs are edited inside the frames, their padding and timing kept', () => {
    const number = streamed(exchange, find(mutations, 'number-changed'));
    expect(number.answer.text).toBe('It is 15 degrees in Paris.');
    expect(number.messages[1]!.frame).toMatchObject({ atMs: 5, event: { json: { p: expect.any(String) } } });
    const argument = streamed(exchange, find(mutations, 'tool-argument-changed', 'call 1')).answer;
    expect(argument.toolCalls.map((call) => call.args)).toEqual([{ city: 'Parisx', days: 3 }, { city: 'Paris' }]);
    const reordered = streamed(exchange, find(mutations, 'tool-calls-reordered')).answer;
    expect(reordered.toolCalls.map((call) => call.name)).toEqual(['get_time', 'get_weather']);
  });

  test('a dropped call takes its block with it and the blocks after it take its index; none left is an end_turn', () => {
    const first = streamed(exchange, find(mutations, 'tool-call-dropped', 'call 1'));
    expect(first.answer.toolCalls.map((call) => call.name)).toEqual(['get_time']);
    expect(
      first.messages
        .filter((message) => message.event === 'contentBlockStart')
        .map((message) => (message.json as { contentBlockIndex: number }).contentBlockIndex),
    ).toEqual([1]);
    expect(first.answer.stopReason).toBe('tool_use');
  });

  test('stop reasons are changed in messageStop; a truncated stream has no messageStop or metadata', () => {
    expect(streamed(exchange, find(mutations, 'finish-length')).answer.stopReason).toBe('max_tokens');
    expect(streamed(exchange, find(mutations, 'finish-content-filter')).answer.stopReason).toBe('content_filtered');
    const truncated = streamed(exchange, find(mutations, 'stream-truncated'));
    expect(truncated.messages.map((message) => message.event).slice(-1)).toEqual(['contentBlockStop']);
    expect(truncated.answer.usageReported).toBe(false);
  });

  test("a stream error breaks off with Bedrock's modelStreamErrorException message, not an SSE error", () => {
    const mutation = find(mutations, 'stream-error');
    const { messages, exception } = streamed(exchange, mutation);
    const last = messages.at(-1)!;
    expect(last.exception).toBe(true);
    expect(last.frame.event.headers).toEqual({
      ':message-type': 'exception',
      ':exception-type': 'modelStreamErrorException',
      ':content-type': 'application/json',
    });
    expect(last.json).toMatchObject({ message: 'Model Stream Error (modeltape mutate)', originalStatusCode: 500 });
    expect(exception).toBe('modelStreamErrorException');
    expect(messages.length).toBeLessThan(converseToolStream().length);
    expect(mutation.after).toContain('exception modelStreamErrorException');
  });

  test('a plain text stream gets the text and finish mutants, and no tool ones', () => {
    const text = bedrockExchange({ operation: 'converse-stream', request: converseRequest('Say hello'), messages: converseStream('Hello there') });
    const operators = mutationsOf(text).map((mutation) => mutation.operator);
    expectAllValid(text, mutationsOf(text));
    expect(operators).toContain('text-negated');
    expect(operators.some((operator) => operator.startsWith('tool-'))).toBe(false);
  });
});
