import { readFileSync } from 'node:fs';
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

const sample = (path: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`../../../test/fixtures/samples/${path}`, import.meta.url), 'utf8')) as Record<string, unknown>;

describe('readChatRequest keeps every message as sent, as typed parts with their JSON paths', () => {
  test('a real answer sent back, an image, a refusal, a tool call and its result, a message it cannot read', () => {
    const answered = (sample('openai/chat-completion.json').choices as Array<{ message: Record<string, unknown> }>)[0]!.message;
    const turn = readChatRequest(
      {
        model: 'gpt-4.1-nano',
        messages: [
          { role: 'system', content: 'Be brief.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
              { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
              { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } },
            ],
          },
          answered,
          { role: 'assistant', content: null, refusal: 'I can’t help with that.' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'look', arguments: '{"x":1}' } }] },
          { role: 'tool', tool_call_id: 'c1', content: 'seen' },
          'not a message',
        ],
      },
      0,
    );
    expect(turn.items.map((item) => [item.path, item.role, item.parts.map((part) => `${part.kind} ${part.path}`)])).toEqual([
      ['.messages[0]', 'system', ['text .messages[0].content']],
      [
        '.messages[1]',
        'user',
        ['text .messages[1].content[0].text', 'image .messages[1].content[1]', 'unknown .messages[1].content[2]', 'file .messages[1].content[3]'],
      ],
      ['.messages[2]', 'assistant', ['text .messages[2].content']],
      ['.messages[3]', 'assistant', ['refusal .messages[3].refusal']],
      ['.messages[4]', 'assistant', ['tool-call .messages[4].tool_calls[0]']],
      ['.messages[5]', 'tool', ['tool-result .messages[5]']],
      ['.messages[6]', undefined, ['unknown .messages[6]']],
    ]);
    expect(turn.items[1]!.parts[1]).toEqual({
      kind: 'image',
      path: '.messages[1].content[1]',
      type: 'image_url',
      source: { path: '.messages[1].content[1].image_url.url', value: 'data:image/png;base64,iVBORw0KGgo=' },
      mediaType: 'image/png',
      bytes: 8,
    });
    expect(turn.items[1]!.parts[2]).toMatchObject({ kind: 'unknown', type: 'input_audio' });
    expect(turn.items[1]!.parts[3]).toMatchObject({
      kind: 'file',
      type: 'file',
      source: { path: '.messages[1].content[3].file.file_data' },
      mediaType: 'application/pdf',
      bytes: 5,
    });
    expect(turn.items[4]!.parts[0]).toEqual({
      kind: 'tool-call',
      path: '.messages[4].tool_calls[0]',
      id: 'c1',
      name: 'look',
      arguments: '{"x":1}',
      paths: {
        id: '.messages[4].tool_calls[0].id',
        name: '.messages[4].tool_calls[0].function.name',
        arguments: '.messages[4].tool_calls[0].function.arguments',
      },
    });
    expect(turn.items[5]!.parts[0]).toMatchObject({
      toolCallId: 'c1',
      idPath: '.messages[5].tool_call_id',
      name: 'look',
      parts: [{ kind: 'text', text: 'seen' }],
    });
    // The messages the model is shown are unchanged, and each holds its parts.
    expect(turn.messages.map((message) => [message.role, message.path, message.parts.length])).toEqual([
      ['user', '.messages[1]', 4],
      ['assistant', '.messages[2]', 1],
      ['assistant', '.messages[3]', 1],
      ['assistant', '.messages[4]', 1],
      ['tool', '.messages[5]', 1],
    ]);
    expect(turn.messages[1]!.text).toBe(answered.content);
  });

  test('a malformed tool call is an unknown part, and does not stop the rest being read', () => {
    const turn = readChatRequest(
      {
        model: 'gpt-4o',
        messages: [
          { role: 'assistant', content: 'Hi', tool_calls: [null, 'junk'] },
          { role: 'user', content: 'Again' },
        ],
      },
      0,
    );
    expect(turn.items.map((item) => item.parts.map((part) => `${part.kind} ${part.path}`))).toEqual([
      ['text .messages[0].content', 'unknown .messages[0].tool_calls[0]', 'unknown .messages[0].tool_calls[1]'],
      ['text .messages[1].content'],
    ]);
  });
});
