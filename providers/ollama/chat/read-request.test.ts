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
