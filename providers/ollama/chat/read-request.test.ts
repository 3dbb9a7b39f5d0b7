import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { readOllamaChatRequest } from './read-request.js';

describe('readOllamaChatRequest', () => {
  test('streams unless the body says stream:false, as Ollama does', () => {
    const messages = [{ role: 'user', content: 'Hi' }];
    expect(readOllamaChatRequest({ model: 'llama3.2', messages }, 0).stream).toBe(true);
    expect(readOllamaChatRequest({ model: 'llama3.2', messages, stream: true }, 0).stream).toBe(true);
    expect(readOllamaChatRequest({ model: 'llama3.2', messages, stream: false }, 0).stream).toBe(false);
  });

  test('reads system, object arguments, and results named by tool_name or by tool_call_id', () => {
    const turn = readOllamaChatRequest(
      {
        model: 'llama3.2',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Weather in Tokyo and Paris?' },
          {
            role: 'assistant',
            content: '',
            tool_calls: [
              { function: { name: 'get_weather', arguments: { city: 'Tokyo' } } },
              { id: 'call_paris', function: { index: 1, name: 'get_time', arguments: { city: 'Paris' } } },
            ],
          },
          { role: 'tool', content: '{"rain":true}', tool_name: 'get_weather' },
          { role: 'tool', content: '12:00', tool_call_id: 'call_paris' },
        ],
        tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object' } } }],
      },
      3,
    );
    expect(turn).toMatchObject({ index: 3, provider: 'ollama', api: 'ollama-chat', model: 'llama3.2', system: 'Be brief.' });
    expect(turn.messages[1]!.toolCalls).toEqual([
      { id: 'get_weather', name: 'get_weather', arguments: { city: 'Tokyo' } },
      { id: 'call_paris', name: 'get_time', arguments: { city: 'Paris' } },
    ]);
    expect(turn.exchanges).toEqual([
      { toolCallId: 'get_weather', name: 'get_weather', result: '{"rain":true}', isError: false },
      { toolCallId: 'call_paris', name: 'get_time', result: '12:00', isError: false },
    ]);
    expect(turn.tools).toEqual([{ name: 'get_weather', description: 'Weather', parameters: { type: 'object' }, strict: false }]);
    expect(turn.prompt).toBe(
      'system: Be brief.\nuser: Weather in Tokyo and Paris?\nassistant: [get_weather({"city":"Tokyo"})] [get_time({"city":"Paris"})]\ntool: {"rain":true}\ntool: 12:00',
    );
  });

  test('format: a JSON Schema is the response schema; "json" asks for any object; none is none', () => {
    const messages = [{ role: 'user', content: 'Hi' }];
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    expect(readOllamaChatRequest({ model: 'm', messages, format: schema }, 0).responseSchema).toEqual({
      source: 'format',
      name: undefined,
      schema,
      strict: true,
    });
    expect(readOllamaChatRequest({ model: 'm', messages, format: 'json' }, 0).responseSchema).toMatchObject({ schema: { type: 'object' }, strict: false });
    expect(readOllamaChatRequest({ model: 'm', messages }, 0).responseSchema).toBeUndefined();
  });
});

// The assistant turn sent back is a real captured answer's message: a tool call with no id.
const answer = JSON.parse(readFileSync(new URL('../../../test/fixtures/samples/ollama/chat-tool-call.json', import.meta.url), 'utf8')) as {
  message: Record<string, unknown>;
};

describe('readOllamaChatRequest keeps every message as sent, as typed parts with their JSON paths', () => {
  test('chat: images are images (their media type told by their bytes), thinking is thinking, calls and results pair up by name', () => {
    const turn = readOllamaChatRequest(
      {
        model: 'llava',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Weather where this was taken?', images: ['iVBORw0KGgo=', '/9j/4AAQ'] },
          { ...answer.message, thinking: 'The photo is of Paris.' },
          { role: 'tool', content: '{"rain":true}', tool_name: 'get_current_weather' },
        ],
      },
      0,
    );
    expect(turn.items.map((item) => [item.path, item.role, item.parts.map((part) => `${part.kind} ${part.path}`)])).toEqual([
      ['.messages[0]', 'system', ['text .messages[0].content']],
      ['.messages[1]', 'user', ['text .messages[1].content', 'image .messages[1].images[0]', 'image .messages[1].images[1]']],
      ['.messages[2]', 'assistant', ['thinking .messages[2].thinking', 'text .messages[2].content', 'tool-call .messages[2].tool_calls[0]']],
      ['.messages[3]', 'tool', ['tool-result .messages[3]']],
    ]);
    expect(turn.items[1]!.parts.slice(1)).toEqual([
      {
        kind: 'image',
        path: '.messages[1].images[0]',
        type: 'images',
        source: { path: '.messages[1].images[0]', value: 'iVBORw0KGgo=' },
        mediaType: 'image/png',
        bytes: 8,
      },
      {
        kind: 'image',
        path: '.messages[1].images[1]',
        type: 'images',
        source: { path: '.messages[1].images[1]', value: '/9j/4AAQ' },
        mediaType: 'image/jpeg',
        bytes: 6,
      },
    ]);
    expect(turn.items[2]!.parts[2]).toMatchObject({
      id: undefined,
      name: 'get_current_weather',
      arguments: { format: 'celsius', location: 'Paris, FR' },
      paths: { id: undefined, arguments: '.messages[2].tool_calls[0].function.arguments' },
    });
    expect(turn.items[3]!.parts[0]).toMatchObject({
      toolCallId: 'get_current_weather',
      idPath: undefined,
      name: 'get_current_weather',
      parts: [{ kind: 'text', text: '{"rain":true}' }],
    });
    expect(turn.messages.map((message) => [message.role, message.path, message.parts.length])).toEqual([
      ['user', '.messages[1]', 3],
      ['assistant', '.messages[2]', 3],
      ['tool', '.messages[3]', 1],
    ]);
  });
});
