import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { checkResponsesStreamGrammar, readResponsesAnswer } from '../../providers/internal.js';
import type { Exchange } from '../../recordings/internal.js';
import type { Mutation } from '../mutation.js';
import { mutationProblems, recordedExchange, sseEvents, streamText } from './check-mutation.js';
import { mutationsOf } from './index.js';

const fixture = (name: string): string => readFileSync(new URL(`../../test/fixtures/mutation/openai/${name}`, import.meta.url), 'utf8');
// The data payloads framed as the Responses API sends them: an `event:` line naming each one's type.
const framed = (name: string): string =>
  fixture(name)
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`)
    .join('');
const tools = ['calculator', 'get_current_weather'].map((name) => ({ type: 'function', name, parameters: { type: 'object', properties: {} } }));
const plain = (file: string): Exchange =>
  recordedExchange({ upstream: 'openai', path: '/v1/responses', request: { model: 'gpt-5.4', input: 'hi', tools }, body: fixture(file) });
const streamed = (file: string): Exchange =>
  recordedExchange({
    upstream: 'openai',
    path: '/v1/responses',
    request: { model: 'gpt-5.4', input: 'hi', tools, stream: true },
    stream: { text: framed(file), format: 'sse' },
  });
const find = (mutations: Mutation[], operator: string, variant = ''): Mutation => {
  const found = mutations.find((mutation) => mutation.operator === operator && mutation.variant === variant);
  if (found === undefined)
    throw new Error(`no ${operator} ${variant} among ${mutations.map((mutation) => `${mutation.operator} ${mutation.variant}`).join(', ')}`);
  return found;
};
const answer = (mutation: Mutation) =>
  readResponsesAnswer((mutation.response.body as { json: unknown }).json) as {
    text: string | null;
    stopReason: string;
    toolCalls: Array<{ id: string; name: string; args: unknown }>;
  };
const events = (mutation: Mutation) => sseEvents(streamText(mutation.response)).map((event) => JSON.parse(event.data) as Record<string, any>);
const terminal = (mutation: Mutation) =>
  events(mutation).find(
    (event) => String(event.type).startsWith('response.') && ['response.completed', 'response.incomplete', 'response.failed'].includes(event.type),
  )!;
function expectAllValid(exchange: Exchange, mutations: Mutation[]): void {
  expect(mutations.length).toBeGreaterThan(0);
  expect(mutations.length).toBeLessThanOrEqual(25);
  for (const mutation of mutations) expect(mutationProblems(exchange, mutation, 'openai-responses'), `${mutation.operator} ${mutation.variant}`).toEqual([]);
}

describe('OpenAI Responses, plain answers', () => {
  test('a text answer: its output_text changes, incomplete in Responses words, a refusal part', () => {
    const exchange = plain('responses-text.json');
    const mutations = mutationsOf(exchange);
    expectAllValid(exchange, mutations);
    // No negation and no auxiliary verb in the story: it is negated as a whole.
    expect(find(mutations, 'text-negated').description).toBe('text "In" → "not In"');
    expect(answer(find(mutations, 'text-negated')).text).toMatch(/^not In a peaceful grove beneath a silver moon, a unicorn named Lumina/);
    expect(answer(find(mutations, 'finish-length')).stopReason).toBe('max_output_tokens');
    expect(answer(find(mutations, 'finish-content-filter')).stopReason).toBe('content_filter');
    expect((find(mutations, 'refusal').response.body as { json: any }).json.output[0].content).toEqual([
      { type: 'refusal', refusal: "I'm sorry, but I can't help with that." },
    ]);
    // temperature 1.0 was recorded as written: the literal stays, and the bytes hash to sha256.
    expect((find(mutations, 'text-emptied').response.body as { layout: { literals: Record<string, string> } }).layout.literals).toMatchObject({
      '.temperature': '1.0',
    });
  });

  test('parallel function calls: arguments as JSON text, drop, rename to another offered tool, reorder', () => {
    const exchange = plain('responses-function-call-parallel.json');
    const mutations = mutationsOf(exchange);
    expectAllValid(exchange, mutations);
    expect(answer(find(mutations, 'tool-argument-changed', 'call 1')).toolCalls[0]!.args).toEqual({ location: 'Boston, MAx', unit: 'celsius' });
    expect(answer(find(mutations, 'tool-call-dropped', 'call 2')).toolCalls.map((call) => call.id)).toEqual(['call_unLAR8MvFNptuiZK6K6HCy5k']);
    expect(answer(find(mutations, 'tool-renamed', 'call 1')).toolCalls[0]!.name).toBe('calculator');
    expect(answer(find(mutations, 'tool-calls-reordered')).toolCalls.map((call) => call.id)).toEqual([
      'call_unLAR8MvFNptuiZK6K6HCy5l',
      'call_unLAR8MvFNptuiZK6K6HCy5k',
    ]);
  });
});

describe('OpenAI Responses, streams', () => {
  test('a text stream: deltas and every event repeating the text agree; incomplete as the terminal event', () => {
    const exchange = streamed('responses-stream-text.data.jsonl');
    const mutations = mutationsOf(exchange);
    expectAllValid(exchange, mutations);
    const number = find(mutations, 'number-changed');
    expect(number.description).toBe('text "570" → "571"');
    const all = events(number);
    expect(
      all
        .filter((event) => event.type === 'response.output_text.delta')
        .map((event) => event.delta)
        .join(''),
    ).toBe('The final result is **571**.');
    expect(all.find((event) => event.type === 'response.output_text.done')!.text).toBe('The final result is **571**.');
    expect(all.find((event) => event.type === 'response.content_part.done')!.part.text).toBe('The final result is **571**.');
    expect(all.find((event) => event.type === 'response.output_item.done')!.item.content[0].text).toBe('The final result is **571**.');
    expect(terminal(number).response.output[0].content[0].text).toBe('The final result is **571**.');
    expect(find(mutations, 'text-negated').description).toBe('text "is" → "is not"');
    const length = find(mutations, 'finish-length');
    expect(terminal(length)).toMatchObject({
      type: 'response.incomplete',
      response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
    });
    expect(sseEvents(streamText(length.response)).at(-1)!.event).toBe('response.incomplete');
    const truncated = sseEvents(streamText(find(mutations, 'stream-truncated').response));
    expect(checkResponsesStreamGrammar(truncated)).toEqual([
      `the stream stops after ${truncated.length} events without response.completed, response.incomplete or response.failed`,
    ]);
    const errored = events(find(mutations, 'stream-error'));
    expect(errored.slice(-2).map((event) => event.type)).toEqual(['error', 'response.failed']);
    expect(checkResponsesStreamGrammar(sseEvents(streamText(find(mutations, 'stream-error').response)))).toEqual([]);
  });

  test('a function-call stream: the argument deltas, .done and the terminal response carry the new arguments', () => {
    const exchange = streamed('responses-stream-tool-call.data.jsonl');
    const mutations = mutationsOf(exchange);
    expectAllValid(exchange, mutations);
    const changed = events(find(mutations, 'tool-argument-changed', 'call 1'));
    const expected = '{"a":20,"b":3,"op":"multiply"}';
    expect(
      changed
        .filter((event) => event.type === 'response.function_call_arguments.delta')
        .map((event) => event.delta)
        .join(''),
    ).toBe(expected);
    expect(changed.find((event) => event.type === 'response.function_call_arguments.done')!.arguments).toBe(expected);
    expect(changed.find((event) => event.type === 'response.output_item.done')!.item.arguments).toBe(expected);
    const dropped = find(mutations, 'tool-call-dropped', 'call 1');
    expect(events(dropped).map((event) => event.type)).toEqual(['response.created', 'response.in_progress', 'response.completed']);
    expect(terminal(dropped).response.output).toEqual([]);
    expect(find(mutations, 'tool-renamed', 'call 1').after).toBe('get_current_weather({"a":19,"b":3,"op":"multiply"})');
  });
});
