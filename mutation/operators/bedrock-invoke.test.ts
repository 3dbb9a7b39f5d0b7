import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { checkMessagesStreamGrammar, readConverseAnswer, readMessagesAnswer, type ConverseAnswer, type ModelAnswer } from '../../providers/internal.js';
import { createHeader, defaultKeyRules, eventStreamMessagesOf, parseTape, serializeTape, type Exchange } from '../../recordings/internal.js';
import { NOVA_LITE, bedrockExchange, claudeChunks, novaChunks } from '../../test/support/bedrock-exchanges.js';
import type { Mutation } from '../mutation.js';
import { mutationProblems } from './check-mutation.js';
import { mutationsOf } from './index.js';

const sample = (name: string): { headers: Record<string, string>; body: unknown } =>
  JSON.parse(readFileSync(new URL(`../../test/fixtures/bedrock/${name}`, import.meta.url), 'utf8')) as { headers: Record<string, string>; body: unknown };
const claudeRequest = { anthropic_version: 'bedrock-2023-05-31', max_tokens: 64, messages: [{ role: 'user', content: 'Weather in Paris?' }] };
const novaRequest = { messages: [{ role: 'user', content: [{ text: 'Say hello' }] }], inferenceConfig: { maxTokens: 64 } };
const find = (mutations: Mutation[], operator: string, variant = ''): Mutation => {
  const found = mutations.find((mutation) => mutation.operator === operator && mutation.variant === variant);
  if (found === undefined)
    throw new Error(`no ${operator} ${variant} among ${mutations.map((mutation) => `${mutation.operator} ${mutation.variant}`).join(', ')}`);
  return found;
};
const json = (mutation: Mutation): unknown => (mutation.response.body as { json: unknown }).json;
const messagesOf = (exchange: Exchange, mutation: Mutation) =>
  eventStreamMessagesOf(
    parseTape(serializeTape(createHeader(defaultKeyRules()), [{ ...exchange, response: mutation.response }]), 'm.jsonl').exchanges[0]!.exchange.response,
  )!;
function expectAllValid(exchange: Exchange, mutations: Mutation[]): void {
  expect(mutations.length).toBeGreaterThan(0);
  for (const mutation of mutations) expect(mutationProblems(exchange, mutation, 'bedrock-invoke'), `${mutation.operator} ${mutation.variant}`).toEqual([]);
}

describe('Bedrock InvokeModel with a Claude body: Anthropic Messages, Bedrock failures', () => {
  test('a plain answer is edited by the Anthropic Messages operators; its failures are Bedrock exceptions', () => {
    const { headers, body } = sample('invoke-claude-response.json');
    const exchange = bedrockExchange({ operation: 'invoke', request: claudeRequest, headers, body: JSON.stringify(body) });
    const mutations = mutationsOf(exchange);
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
    expect((readMessagesAnswer(json(find(mutations, 'finish-length'))) as ModelAnswer).stopReason).toBe('max_tokens');
    expect((readMessagesAnswer(json(find(mutations, 'number-changed'))) as ModelAnswer).text).toContain('43');
    expect(find(mutations, 'rate-limited').response.headers['x-amzn-errortype']).toMatch(/^ThrottlingException:/);
    expect(json(find(mutations, 'rate-limited'))).toEqual({ message: expect.stringContaining('(modeltape mutate)') });
  });

  test("a stream's chunks carry the changed Anthropic events in their bytes, and break off with Bedrock's exception", () => {
    const exchange = bedrockExchange({ operation: 'invoke-with-response-stream', request: claudeRequest, messages: claudeChunks() });
    const mutations = mutationsOf(exchange);
    expectAllValid(exchange, mutations);
    const inner = (mutation: Mutation) => messagesOf(exchange, mutation).map((message) => message.json as Record<string, any>);
    const argument = inner(find(mutations, 'tool-argument-changed', 'call 1'));
    expect(
      argument
        .filter((event) => event.delta?.type === 'input_json_delta')
        .map((event) => event.delta.partial_json)
        .join(''),
    ).toBe('{"city":"Parisx"}');
    expect(inner(find(mutations, 'finish-length')).find((event) => event.type === 'message_delta')!.delta.stop_reason).toBe('max_tokens');
    const dropped = inner(find(mutations, 'tool-call-dropped', 'call 1'));
    expect(dropped.some((event) => event.content_block?.type === 'tool_use')).toBe(false);
    expect(dropped.find((event) => event.type === 'message_delta')!.delta.stop_reason).toBe('end_turn');
    // Each chunk still a chunk, its padding kept.
    const frames = messagesOf(exchange, find(mutations, 'text-emptied'));
    expect(frames.every((message) => message.event === 'chunk' && (message.frame.event as { json: { p?: string } }).json.p !== undefined)).toBe(true);
    expect(checkMessagesStreamGrammar(frames.map((message) => ({ event: (message.json as { type: string }).type, data: message.data })))).toEqual([]);

    const broken = messagesOf(exchange, find(mutations, 'stream-error'));
    expect(broken.at(-1)).toMatchObject({ exception: true, event: 'modelStreamErrorException' });
    expect(broken.some((message) => message.event === 'chunk' && (message.json as { type: string }).type === 'error')).toBe(false);
    const truncated = messagesOf(exchange, find(mutations, 'stream-truncated'));
    expect(truncated.map((message) => (message.json as { type: string }).type).at(-1)).toBe('content_block_stop');
  });
});

describe('Bedrock InvokeModel with a Nova body: Converse shapes', () => {
  test('a plain answer is edited as a Converse body', () => {
    const { headers, body } = sample('invoke-nova-response.json');
    const exchange = bedrockExchange({ operation: 'invoke', model: NOVA_LITE, request: novaRequest, headers, body: JSON.stringify(body) });
    const mutations = mutationsOf(exchange);
    expectAllValid(exchange, mutations);
    expect((readConverseAnswer(json(find(mutations, 'text-emptied'))) as ConverseAnswer).text).toBe('');
    expect((readConverseAnswer(json(find(mutations, 'finish-length'))) as ConverseAnswer).stopReason).toBe('max_tokens');
  });

  test("a stream's chunks are Converse events under their type's key", () => {
    const exchange = bedrockExchange({ operation: 'invoke-with-response-stream', model: NOVA_LITE, request: novaRequest, messages: novaChunks() });
    const mutations = mutationsOf(exchange);
    expectAllValid(exchange, mutations);
    const number = messagesOf(exchange, find(mutations, 'number-changed')).map((message) => message.json as Record<string, any>);
    expect(
      number
        .filter((event) => event.contentBlockDelta !== undefined)
        .map((event) => event.contentBlockDelta.delta.text)
        .join(''),
    ).toBe('Hello from Nova 3.');
    const length = messagesOf(exchange, find(mutations, 'finish-length')).map((message) => message.json as Record<string, any>);
    expect(length.find((event) => event.messageStop !== undefined)!.messageStop.stopReason).toBe('max_tokens');
    expect(messagesOf(exchange, find(mutations, 'stream-error')).at(-1)).toMatchObject({ exception: true, event: 'modelStreamErrorException' });
  });
});

describe('what is not mutated', () => {
  test("another model's InvokeModel body (Llama's generation) and a recorded error admit no mutation", () => {
    const llama = bedrockExchange({
      operation: 'invoke',
      model: 'meta.llama3-1-70b-instruct-v1:0',
      request: { prompt: 'hi' },
      body: JSON.stringify({ generation: 'Hi', prompt_token_count: 2, generation_token_count: 1, stop_reason: 'stop' }),
    });
    expect(mutationsOf(llama)).toEqual([]);
    const throttled = bedrockExchange({ operation: 'converse', request: novaRequest, status: 429, body: JSON.stringify({ message: 'Too many requests' }) });
    expect(mutationsOf(throttled)).toEqual([]);
  });
});
