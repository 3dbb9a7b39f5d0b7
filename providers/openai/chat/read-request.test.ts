import { describe, expect, test } from 'vitest';
import { readMessagesRequest } from '../../anthropic/messages/read-request.js';
import { readResponsesRequest } from '../responses/read-request.js';
import { readChatRequest } from './read-request.js';

// Each message a reader returns says where in the body it is, so the drift page and errors can point at it.
describe('the request readers give each message its JSON path', () => {
  test('chat: system messages are skipped but counted', () => {
    const turn = readChatRequest(
      {
        model: 'gpt-4o',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Weather?' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'c1', content: 'rain' },
        ],
      },
      0,
    );
    expect(turn.messages.map((message) => [message.role, message.path])).toEqual([
      ['user', '.messages[1]'],
      ['assistant', '.messages[2]'],
      ['tool', '.messages[3]'],
    ]);
  });

  test('responses: a string input is `.input`, items are `.input[n]`, and a call joins the assistant message before it', () => {
    expect(readResponsesRequest({ model: 'gpt-4o', input: 'Hi' }, 0).messages.map((message) => message.path)).toEqual(['.input']);
    const turn = readResponsesRequest(
      {
        model: 'gpt-4o',
        input: [
          { role: 'developer', content: 'Be brief.' },
          { role: 'user', content: 'Weather?' },
          { type: 'function_call', call_id: 'c1', name: 'get_weather', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c1', output: 'rain' },
        ],
      },
      0,
    );
    expect(turn.messages.map((message) => [message.role, message.path])).toEqual([
      ['user', '.input[1]'],
      ['assistant', '.input[2]'],
      ['tool', '.input[3]'],
    ]);
  });

  test('messages: a tool result points at its block inside the user message', () => {
    const turn = readMessagesRequest(
      {
        model: 'claude-opus-4-8',
        max_tokens: 5,
        messages: [
          { role: 'user', content: 'Weather?' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'get_weather', input: {} }] },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Here:' },
              { type: 'tool_result', tool_use_id: 't1', content: 'rain' },
            ],
          },
        ],
      },
      0,
    );
    expect(turn.messages.map((message) => [message.role, message.path])).toEqual([
      ['user', '.messages[0]'],
      ['assistant', '.messages[1]'],
      ['tool', '.messages[2].content[1]'],
      ['user', '.messages[2]'],
    ]);
  });
});
