import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { readResponsesAnswer } from './read-answer.js';
import { readResponsesRequest } from './read-request.js';
import { renderResponsesRequest } from './render-request.js';

const sample = (name: string): unknown => JSON.parse(readFileSync(new URL(`../../../test/fixtures/samples/openai/${name}`, import.meta.url), 'utf8'));

describe('readResponsesAnswer', () => {
  test("reads the published example's text answer: the message's output_text, the status and usage", () => {
    const answer = readResponsesAnswer(sample('responses-text.json'));
    expect(answer).toMatchObject({ toolCalls: [], stopReason: 'completed', usage: { input: 36, output: 87 } });
    expect((answer as { text: string }).text).toMatch(/^In a peaceful grove beneath a silver moon/);
  });

  test("reads the published example's function call by its call_id, with parsed arguments", () => {
    expect(readResponsesAnswer(sample('responses-function-call.json'))).toEqual({
      text: null,
      toolCalls: [{ id: 'call_unLAR8MvFNptuiZK6K6HCy5k', name: 'get_current_weather', args: { location: 'Boston, MA', unit: 'celsius' } }],
      stopReason: 'completed',
      usage: { input: 291, output: 23 },
    });
  });

  test('skips reasoning items, joins text parts, and gives the reason an answer is incomplete', () => {
    const answer = readResponsesAnswer({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output: [
        { type: 'reasoning', id: 'rs_1', summary: [] },
        {
          type: 'message',
          role: 'assistant',
          content: [
            { type: 'output_text', text: 'Hel', annotations: [] },
            { type: 'output_text', text: 'lo', annotations: [] },
          ],
        },
      ],
    });
    expect(answer).toEqual({ text: 'Hello', toolCalls: [], stopReason: 'max_output_tokens', usage: { input: 0, output: 0 } });
  });

  test('keeps arguments that are not JSON as text, with the reason', () => {
    const answer = readResponsesAnswer({ status: 'completed', output: [{ type: 'function_call', call_id: 'c1', name: 'f', arguments: '{"a":' }] });
    expect(answer).toMatchObject({ toolCalls: [{ id: 'c1', name: 'f', args: '{"a":', argumentsError: expect.any(String) as string }] });
  });

  test('says what is missing from a body without an output list', () => {
    expect(readResponsesAnswer({ error: { message: 'no' } })).toEqual({ problem: expect.stringContaining('answered without an output list') as string });
  });
});

describe('renderResponsesRequest', () => {
  test('renders turns as input items that read back as the same conversation', () => {
    const body = renderResponsesRequest({
      model: 'gpt-4o',
      system: 'Be brief.',
      turns: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', text: 'Checking.', toolCalls: [{ id: 'call_1', name: 'get_weather', args: { city: 'Paris' } }] },
        { role: 'tool', callId: 'call_1', name: 'get_weather', content: '14 °C', isError: false },
      ],
      tools: [{ name: 'get_weather', description: 'Weather.', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
      output: undefined,
      maxTokens: 512,
    });
    expect(body).toMatchObject({ model: 'gpt-4o', instructions: 'Be brief.', max_output_tokens: 512, store: false });
    const turn = readResponsesRequest(body, 0);
    expect(turn.system).toBe('Be brief.');
    expect(turn.tools.map((tool) => tool.name)).toEqual(['get_weather']);
    expect(turn.exchanges).toEqual([{ toolCallId: 'call_1', name: 'get_weather', result: '14 °C', isError: false }]);
  });

  test('asks for a JSON answer as a strict text.format json_schema', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false };
    const body = renderResponsesRequest({ model: 'gpt-4o', system: '', turns: [{ role: 'user', content: 'x' }], tools: [], output: schema, maxTokens: 10 });
    expect(body).not.toHaveProperty('instructions');
    expect(body.text).toEqual({ format: { type: 'json_schema', name: 'output', strict: true, schema } });
  });
});
