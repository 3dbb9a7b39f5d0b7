import { describe, expect, test } from 'vitest';
import { FakeProvider, type FakeProviderOptions } from 'modeltape/fake-provider';

// Each row: a request the real provider refuses before any model runs, with the status, error
// type, param and message it answers. The same table is in docs/fake-provider-refusals.md ("Refusals").
const obj = { type: 'object', properties: {} };
const user = (content: string) => ({ role: 'user', content });

const REFUSALS: Array<{
  name: string;
  path: string;
  body: Record<string, unknown>;
  status: number;
  type: string;
  param?: string | null;
  code?: string | null;
  message: string;
  options?: FakeProviderOptions;
}> = [
  // OpenAI Chat Completions
  {
    name: 'no model',
    path: '/v1/chat/completions',
    body: { messages: [user('hi')] },
    status: 400,
    type: 'invalid_request_error',
    param: null,
    message: 'you must provide a model parameter',
  },
  {
    name: 'empty messages',
    path: '/v1/chat/completions',
    body: { model: 'gpt-4o', messages: [] },
    status: 400,
    type: 'invalid_request_error',
    param: 'messages',
    code: 'empty_array',
    message: "Invalid 'messages': empty array.",
  },
  {
    name: 'an unknown role',
    path: '/v1/chat/completions',
    body: { model: 'gpt-4o', messages: [{ role: 'robot', content: 'x' }] },
    status: 400,
    type: 'invalid_request_error',
    param: 'messages[0].role',
    code: 'invalid_value',
    message: "Invalid value: 'robot'.",
  },
  {
    name: 'a tool message without tool_call_id',
    path: '/v1/chat/completions',
    body: { model: 'gpt-4o', messages: [user('hi'), { role: 'tool', content: 'r' }] },
    status: 400,
    type: 'invalid_request_error',
    param: 'messages[1].tool_call_id',
    code: 'missing_required_parameter',
    message: "Missing required parameter: 'messages[1].tool_call_id'.",
  },
  {
    name: 'a tool message with no tool call before it',
    path: '/v1/chat/completions',
    body: { model: 'gpt-4o', messages: [user('hi'), { role: 'tool', tool_call_id: 'call_1', content: 'r' }] },
    status: 400,
    type: 'invalid_request_error',
    param: 'messages.[1].role',
    message: "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'",
  },
  {
    name: 'tool calls left unanswered',
    path: '/v1/chat/completions',
    body: {
      model: 'gpt-4o',
      messages: [
        user('hi'),
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        user('well?'),
      ],
    },
    status: 400,
    type: 'invalid_request_error',
    param: 'messages.[1].role',
    message: 'The following tool_call_ids did not have response messages: call_9',
  },
  {
    name: 'an invalid tool name',
    path: '/v1/chat/completions',
    body: { model: 'gpt-4o', messages: [user('hi')], tools: [{ type: 'function', function: { name: 'get weather!', parameters: obj } }] },
    status: 400,
    type: 'invalid_request_error',
    param: 'tools[0].function.name',
    code: 'invalid_value',
    message: "Invalid 'tools[0].function.name': string does not match pattern.",
  },
  {
    name: 'more than 128 tools',
    path: '/v1/chat/completions',
    body: {
      model: 'gpt-4o',
      messages: [user('hi')],
      tools: Array.from({ length: 129 }, (_, index) => ({ type: 'function', function: { name: `t${index}`, parameters: obj } })),
    },
    status: 400,
    type: 'invalid_request_error',
    param: 'tools',
    code: 'array_above_max_length',
    message: 'Expected an array with maximum length 128, but got an array with length 129 instead.',
  },
  {
    name: 'json_object mode without the word JSON',
    path: '/v1/chat/completions',
    body: { model: 'gpt-4o', messages: [user('hi')], response_format: { type: 'json_object' } },
    status: 400,
    type: 'invalid_request_error',
    param: 'messages',
    message: "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
  },
  {
    name: 'max_tokens sent to a reasoning model',
    path: '/v1/chat/completions',
    body: { model: 'o3-mini', messages: [user('hi')], max_tokens: 100 },
    status: 400,
    type: 'invalid_request_error',
    param: 'max_tokens',
    code: 'unsupported_parameter',
    message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
  },
  {
    name: 'tool_choice without tools',
    path: '/v1/chat/completions',
    body: { model: 'gpt-4o', messages: [user('hi')], tool_choice: 'required' },
    status: 400,
    type: 'invalid_request_error',
    param: 'tool_choice',
    message: "'tool_choice' is only allowed when 'tools' are specified.",
  },
  {
    name: 'temperature above 2',
    path: '/v1/chat/completions',
    body: { model: 'gpt-4o', messages: [user('hi')], temperature: 3 },
    status: 400,
    type: 'invalid_request_error',
    param: 'temperature',
    code: 'decimal_above_max_value',
    message: 'Expected a value <= 2, but got 3 instead.',
  },
  {
    name: 'stream_options without stream',
    path: '/v1/chat/completions',
    body: { model: 'gpt-4o', messages: [user('hi')], stream_options: { include_usage: true } },
    status: 400,
    type: 'invalid_request_error',
    param: 'stream_options',
    message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
  },
  {
    name: 'n above 128',
    path: '/v1/chat/completions',
    body: { model: 'gpt-4o', messages: [user('hi')], n: 130 },
    status: 400,
    type: 'invalid_request_error',
    param: 'n',
    code: 'integer_above_max_value',
    message: "Invalid 'n': integer above maximum value. Expected a value <= 128, but got 130 instead.",
  },
  // OpenAI Responses
  {
    name: 'responses: max_tokens instead of max_output_tokens',
    path: '/v1/responses',
    body: { model: 'gpt-4o', input: 'hi', max_tokens: 10 },
    status: 400,
    type: 'invalid_request_error',
    param: 'max_tokens',
    code: 'unsupported_parameter',
    message: "In the Responses API, this parameter has moved to 'max_output_tokens'.",
  },
  {
    name: 'responses: a function_call_output with no call',
    path: '/v1/responses',
    body: { model: 'gpt-4o', input: [{ type: 'function_call_output', call_id: 'call_x', output: 'r' }] },
    status: 400,
    type: 'invalid_request_error',
    param: 'input',
    message: 'No tool call found for function call output with call_id call_x.',
  },
  // OpenAI embeddings
  {
    name: 'embeddings: an empty input',
    path: '/v1/embeddings',
    body: { model: 'text-embedding-3-small', input: '' },
    status: 400,
    type: 'invalid_request_error',
    param: null,
    message: "'$.input' is invalid.",
  },
  // Anthropic Messages
  {
    name: 'anthropic: max_tokens missing',
    path: '/v1/messages',
    body: { model: 'claude-opus-4-8', messages: [user('hi')] },
    status: 400,
    type: 'invalid_request_error',
    message: 'max_tokens: Field required',
  },
  // Anthropic's own API accepts an assistant first (since late 2024); Amazon Bedrock refuses it.
  {
    name: 'anthropic on bedrock: a first message that is not from the user',
    path: '/v1/messages',
    body: { model: 'claude-opus-4-8', max_tokens: 10, messages: [{ role: 'assistant', content: 'hello' }, user('hi')] },
    status: 400,
    type: 'invalid_request_error',
    message: 'messages: first message must use the "user" role',
    options: { anthropicPlatform: 'bedrock' },
  },
  {
    name: 'anthropic: a system role among messages',
    path: '/v1/messages',
    body: { model: 'claude-opus-4-8', max_tokens: 10, messages: [{ role: 'system', content: 'x' }] },
    status: 400,
    type: 'invalid_request_error',
    message: "messages.0.role: Input should be 'user' or 'assistant'",
  },
  {
    name: 'anthropic: a tool_result without a preceding tool_use',
    path: '/v1/messages',
    body: { model: 'claude-opus-4-8', max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'r' }] }] },
    status: 400,
    type: 'invalid_request_error',
    message: 'messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_x.',
  },
  {
    name: 'anthropic: a tool_use left without its tool_result',
    path: '/v1/messages',
    body: {
      model: 'claude-opus-4-8',
      max_tokens: 10,
      messages: [user('hi'), { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }] }, user('and?')],
    },
    status: 400,
    type: 'invalid_request_error',
    message: 'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1.',
  },
  {
    name: 'anthropic: an empty message',
    path: '/v1/messages',
    body: { model: 'claude-opus-4-8', max_tokens: 10, messages: [user('')] },
    status: 400,
    type: 'invalid_request_error',
    message: 'messages.0: all messages must have non-empty content except for the optional final assistant message',
  },
  {
    name: 'anthropic: temperature above 1',
    path: '/v1/messages',
    body: { model: 'claude-opus-4-8', max_tokens: 10, temperature: 1.5, messages: [user('hi')] },
    status: 400,
    type: 'invalid_request_error',
    message: 'temperature: Input should be less than or equal to 1',
  },
  {
    name: 'anthropic: duplicate tool names',
    path: '/v1/messages',
    body: {
      model: 'claude-opus-4-8',
      max_tokens: 10,
      messages: [user('hi')],
      tools: [
        { name: 'f', input_schema: obj },
        { name: 'f', input_schema: obj },
      ],
    },
    status: 400,
    type: 'invalid_request_error',
    message: 'tools: Tool names must be unique.',
  },
  {
    name: 'anthropic: tool_choice names a tool not offered',
    path: '/v1/messages',
    body: {
      model: 'claude-opus-4-8',
      max_tokens: 10,
      messages: [user('hi')],
      tools: [{ name: 'f', input_schema: obj }],
      tool_choice: { type: 'tool', name: 'g' },
    },
    status: 400,
    type: 'invalid_request_error',
    message: "tool_choice.name: Tool 'g' not found in provided tools",
  },
];

describe('requests a real provider refuses before answering', () => {
  test('the table holds at least 15 refusals', () => {
    expect(REFUSALS.length).toBeGreaterThanOrEqual(15);
  });

  test.each(REFUSALS)("refuses $name with $status and the provider's error shape", async (row) => {
    // A script that would answer anything: a refusal must come before it is consulted.
    const fake = new FakeProvider(row.options).willSay('should not be used');
    const wire = await fake.handle({ method: 'POST', path: row.path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(row.body) });
    expect(wire.status).toBe(row.status);
    const body = JSON.parse(String(wire.body)) as Record<string, unknown>;
    if (row.path === '/v1/messages') {
      expect(body).toMatchObject({ type: 'error', error: { type: row.type }, request_id: expect.stringMatching(/^fake-req-/) });
      expect((body.error as { message: string }).message).toContain(row.message);
    } else {
      const error = body.error as { message: string; type: string; param: string | null; code: string | null };
      expect(Object.keys(error).sort()).toEqual(['code', 'message', 'param', 'type']);
      expect(error.type).toBe(row.type);
      expect(error.message).toContain(row.message);
      if (row.param !== undefined) expect(error.param).toBe(row.param);
      if (row.code !== undefined) expect(error.code).toBe(row.code);
    }
    expect(fake.asked()).toHaveLength(0);
    expect(() => fake.assertConsumed()).toThrow(/never used: step willSay/);
  });

  test("Anthropic's own API takes a conversation that starts with the assistant, as it has since late 2024", async () => {
    const fake = new FakeProvider().willSay('fine');
    const wire = await fake.handle({
      method: 'POST',
      path: '/v1/messages',
      headers: {},
      body: JSON.stringify({ model: 'claude-opus-4-8', max_tokens: 10, messages: [{ role: 'assistant', content: 'How can I help?' }, user('Sky colour?')] }),
    });
    expect(wire.status).toBe(200);
    fake.assertConsumed();
  });
});
