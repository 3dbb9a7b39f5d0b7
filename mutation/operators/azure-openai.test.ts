import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import type { Exchange } from '../../recordings/internal.js';
import type { Mutation } from '../mutation.js';
import { mutationProblems, recordedExchange, sseEvents, streamText } from './check-mutation.js';
import { mutationsOf } from './index.js';

// Azure OpenAI's answers are OpenAI's: the same operators apply, its failures are its own (its
// 429), and `content-filtered` makes one filtered, which no other provider's answer admits.

const fixture = (path: string): string => readFileSync(new URL(`../../test/fixtures/${path}`, import.meta.url), 'utf8');
const AZURE_PATH = '/openai/deployments/gpt-4o-dev/chat/completions';
const request = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
// Azure's streams open with the prompt's annotations (test/fixtures/azure/README.md): the real
// OpenAI stream with that chunk before it.
const azureStream = (): string =>
  `data: ${JSON.stringify({ choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: [{ prompt_index: 0, content_filter_results: { hate: { filtered: false, severity: 'safe' } } }] })}\n\n` +
  fixture('mutation/openai/chat-stream-text.sse');

const plain = (upstream: string, path: string): Exchange =>
  recordedExchange({ upstream, path, request, body: fixture('azure/chat-completion-annotations.json') });
const streamed = (upstream: string, path: string): Exchange =>
  recordedExchange({ upstream, path, request: { ...request, stream: true }, stream: { text: azureStream(), format: 'sse' } });
const find = (mutations: Mutation[], operator: string, variant = ''): Mutation => {
  const found = mutations.find((mutation) => mutation.operator === operator && mutation.variant === variant);
  if (found === undefined)
    throw new Error(`no ${operator} ${variant} among ${mutations.map((mutation) => `${mutation.operator} ${mutation.variant}`).join(', ')}`);
  return found;
};
const bodyOf = (mutation: Mutation): Record<string, any> => (mutation.response.body as { json: Record<string, any> }).json;

function expectAllValid(exchange: Exchange, mutations: Mutation[]): void {
  expect(mutations.length).toBeGreaterThan(0);
  for (const mutation of mutations) expect(mutationProblems(exchange, mutation, 'openai-chat'), `${mutation.operator} ${mutation.variant}`).toEqual([]);
  expect(new Set(mutations.map((mutation) => `${mutation.operator}/${mutation.variant}`)).size).toBe(mutations.length);
}

describe('an Azure OpenAI chat completion', () => {
  const exchange = plain('azure', AZURE_PATH);
  const mutations = mutationsOf(exchange);

  test('admits OpenAI’s operators and content-filtered, each a valid recording, in a fixed order', () => {
    expectAllValid(exchange, mutations);
    expect(mutations.map((mutation) => `${mutation.operator}${mutation.variant === '' ? '' : ` ${mutation.variant}`}`)).toEqual([
      'text-negated',
      'text-emptied',
      'finish-length',
      'finish-content-filter',
      'refusal',
      'rate-limited',
      'server-error',
      'overloaded',
      'content-filtered completion',
      'content-filtered prompt',
    ]);
    expect(JSON.stringify(mutationsOf(plain('azure', AZURE_PATH)))).toBe(JSON.stringify(mutations));
  });

  test('content-filtered completion: no content, finish_reason content_filter, the choice’s results naming the category', () => {
    const filtered = find(mutations, 'content-filtered', 'completion');
    const choice = bodyOf(filtered).choices[0];
    expect(choice.finish_reason).toBe('content_filter');
    expect(choice.message.content).toBeNull();
    expect(choice.content_filter_results.hate).toEqual({ filtered: true, severity: 'high' });
    expect(choice.content_filter_results.violence).toEqual({ filtered: false, severity: 'safe' });
    // The prompt's annotations and everything else as recorded.
    expect(bodyOf(filtered).prompt_filter_results).toEqual(JSON.parse(fixture('azure/chat-completion-annotations.json')).prompt_filter_results);
    expect(filtered.before).toBe('finish_reason stop, content "Example model response will be returned "');
  });

  test('content-filtered prompt: the resource’s 400 content_filter in the shape of the real one', () => {
    const refused = find(mutations, 'content-filtered', 'prompt');
    expect(refused.response.status).toBe(400);
    expect(refused.response.stream).toBeUndefined();
    const real = JSON.parse(fixture('azure/error-400-content-filter.json')).error;
    const error = bodyOf(refused).error;
    expect(Object.keys(error)).toEqual(Object.keys(real));
    expect(Object.keys(error.innererror.content_filter_result).sort()).toEqual(Object.keys(real.innererror.content_filter_result).sort());
    expect([error.code, error.param, error.innererror.code, error.innererror.content_filter_result.hate]).toEqual([
      'content_filter',
      'prompt',
      'ResponsibleAIPolicyViolation',
      { filtered: true, severity: 'high' },
    ]);
    expect(error.message).toMatch(/^The response was filtered due to the prompt triggering Azure OpenAI's content management policy\..*\(modeltape mutate\)$/);
  });

  test('rate-limited is the resource’s own 429, saying when to retry', () => {
    const limited = find(mutations, 'rate-limited');
    expect(limited.response.status).toBe(429);
    expect(bodyOf(limited)).toEqual({ error: { code: '429', message: expect.stringMatching(/Please retry after 0 seconds\..*\(modeltape mutate\)$/) } });
    expect(limited.response.headers).toMatchObject({ 'retry-after-ms': '0', 'retry-after': '0' });
  });
});

describe('an Azure OpenAI stream', () => {
  const exchange = streamed('azure', AZURE_PATH);
  const mutations = mutationsOf(exchange);

  test('keeps the prompt annotation chunk first; content-filtered ends the stream filtered', () => {
    expectAllValid(exchange, mutations);
    const filtered = find(mutations, 'content-filtered', 'completion');
    const chunks = sseEvents(streamText(filtered.response))
      .filter((event) => event.data !== '[DONE]')
      .map((event) => JSON.parse(event.data) as Record<string, any>);
    expect(chunks[0]!.prompt_filter_results).toHaveLength(1);
    const finish = chunks.find((chunk) => chunk.choices?.[0]?.finish_reason !== null && chunk.choices?.[0]?.finish_reason !== undefined)!;
    expect(finish.choices[0].finish_reason).toBe('content_filter');
    expect(finish.choices[0].content_filter_results.hate).toEqual({ filtered: true, severity: 'high' });
    expect(find(mutations, 'content-filtered', 'prompt').response.status).toBe(400);
  });
});

test('the same answers from OpenAI’s own API admit no content-filtered mutation, and fail in OpenAI’s words', () => {
  for (const exchange of [plain('openai', '/v1/chat/completions'), streamed('openai', '/v1/chat/completions')]) {
    const mutations = mutationsOf(exchange);
    expect(mutations.length).toBeGreaterThan(0);
    expect(mutations.filter((mutation) => mutation.operator === 'content-filtered')).toEqual([]);
    expect(bodyOf(find(mutations, 'rate-limited')).error.code).toBe('rate_limit_exceeded');
  }
});
