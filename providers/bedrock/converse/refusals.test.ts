import { describe, expect, test } from 'vitest';
import { refuseConverseRequest } from './refusals.js';

const user = (text: string) => ({ role: 'user', content: [{ text }] });
const use = { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'bash', input: { command: 'ls' } } }] };
const result = { role: 'user', content: [{ toolResult: { toolUseId: 't1', content: [{ text: 'a.txt' }] } }] };
const toolConfig = { tools: [{ toolSpec: { name: 'bash', inputSchema: { json: { type: 'object' } } } }] };

describe('refuseConverseRequest', () => {
  test('accepts a well-formed tool loop with every field the API has', () => {
    expect(
      refuseConverseRequest({
        messages: [user('List the files.'), use, result],
        system: [{ text: 'Be brief.' }],
        inferenceConfig: { maxTokens: 1, temperature: 1, topP: 0, stopSequences: ['END'] },
        toolConfig: { ...toolConfig, toolChoice: { tool: { name: 'bash' } } },
        additionalModelRequestFields: { top_k: 5 },
        outputConfig: { textFormat: { type: 'json_schema', structure: { jsonSchema: { schema: '{"type":"object"}' } } } },
      }),
    ).toBeUndefined();
  });

  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['no messages', {}, "Value 'null' at 'messages' failed to satisfy constraint: Member must have length greater than or equal to 1"],
    ['empty messages', { messages: [] }, "Value '[]' at 'messages' failed to satisfy constraint: Member must have length greater than or equal to 1"],
    [
      'a first message from the assistant',
      { messages: [{ role: 'assistant', content: [{ text: 'Hi' }] }] },
      'A conversation must start with a user message. Try again with a conversation that starts with a user message.',
    ],
    [
      'two user messages in a row',
      { messages: [user('Hi'), user('Again')] },
      'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.',
    ],
    [
      'a message with no content',
      { messages: [user('Hi'), { role: 'assistant', content: [] }] },
      'The content field in the Message object at messages.1 is empty. Add a ContentBlock object to the content field and try again.',
    ],
    [
      'a blank text',
      { messages: [user('Hi'), { role: 'assistant', content: [{ text: '\n\n' }] }, user('What?')] },
      'The text field in the ContentBlock object at messages.1.content.0 is blank. Add text to the text field, and try again.',
    ],
    [
      'a tool result with no tool use before it',
      { messages: [user('Hi'), { role: 'assistant', content: [{ text: 'Hello.' }] }, result], toolConfig },
      'The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks of previous turn.',
    ],
    [
      'a tool use left without its result',
      { messages: [user('Hi'), use, user('Never mind.')], toolConfig },
      'Expected toolResult blocks at messages.2.content for the following Ids: t1',
    ],
    [
      'tool blocks without a toolConfig',
      { messages: [user('Hi'), use, result] },
      'The toolConfig field must be defined when using toolUse and toolResult content blocks.',
    ],
    [
      'maxTokens below 1',
      { messages: [user('Hi')], inferenceConfig: { maxTokens: 0 } },
      "Value '0' at 'inferenceConfig.maxTokens' failed to satisfy constraint: Member must have value greater than or equal to 1",
    ],
    [
      'a temperature above 1',
      { messages: [user('Hi')], inferenceConfig: { temperature: 1.5 } },
      "Value '1.5' at 'inferenceConfig.temperature' failed to satisfy constraint: Member must have value less than or equal to 1",
    ],
    [
      'a temperature below 0',
      { messages: [user('Hi')], inferenceConfig: { temperature: -0.5 } },
      "Value '-0.5' at 'inferenceConfig.temperature' failed to satisfy constraint: Member must have value greater than or equal to 0",
    ],
    [
      'a tool name with a space',
      { messages: [user('Hi')], toolConfig: { tools: [{ toolSpec: { name: 'Complete Session', inputSchema: { json: {} } } }] } },
      "Value 'Complete Session' at 'toolConfig.tools.1.member.toolSpec.name' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+",
    ],
    [
      'a tool name longer than 64',
      { messages: [user('Hi')], toolConfig: { tools: [{ toolSpec: { name: 'a'.repeat(65), inputSchema: { json: {} } } }] } },
      `Value '${'a'.repeat(65)}' at 'toolConfig.tools.1.member.toolSpec.name' failed to satisfy constraint: Member must have length less than or equal to 64`,
    ],
    [
      'a forced tool the request does not offer',
      { messages: [user('Hi')], toolConfig: { ...toolConfig, toolChoice: { tool: { name: 'grep' } } } },
      'The tool grep in toolConfig.toolChoice is not defined in toolConfig.tools. Add a tool specification named grep, or choose a defined tool.',
    ],
    [
      'an unknown field',
      { messages: [user('Hi')], max_tokens: 100 },
      'Malformed input request: #: extraneous key [max_tokens] is not permitted, please reformat your input and try again.',
    ],
  ];

  test.each(cases)('refuses %s with a 400 ValidationException', (_name, body, message) => {
    expect(refuseConverseRequest(body)).toEqual({ status: 400, type: 'ValidationException', message });
  });

  test('checks every case listed', () => {
    expect(cases).toHaveLength(16);
  });
});
