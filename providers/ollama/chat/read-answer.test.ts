import { describe, expect, test } from 'vitest';
import { readOllamaChatAnswer } from './read-answer.js';
import { renderOllamaChatRequest } from './render-request.js';

describe('the runtime over Ollama /api/chat', () => {
  test('renders a call: stream off, object arguments, results named by tool_name, the output schema as format', () => {
    const body = renderOllamaChatRequest({
      model: 'llama3.2',
      system: 'Be brief.',
      turns: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', text: null, toolCalls: [{ id: 'call_1', name: 'get_weather', args: { city: 'Paris' } }] },
        { role: 'tool', callId: 'call_1', name: 'get_weather', content: 'rain', isError: false },
      ],
      tools: [{ name: 'get_weather', description: 'Weather', parameters: { type: 'object' } }],
      output: { type: 'object' },
      maxTokens: 256,
    });
    expect(body).toEqual({
      model: 'llama3.2',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', function: { index: 0, name: 'get_weather', arguments: { city: 'Paris' } } }] },
        { role: 'tool', content: 'rain', tool_name: 'get_weather', tool_call_id: 'call_1' },
      ],
      stream: false,
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object' } } }],
      format: { type: 'object' },
      options: { num_predict: 256 },
    });
  });

  test('reads an answer: tool calls with object arguments (ids made when absent), done_reason, the counts', () => {
    expect(
      readOllamaChatAnswer({
        model: 'llama3.2',
        message: { role: 'assistant', content: '', tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Paris' } } }] },
        done_reason: 'stop',
        done: true,
        prompt_eval_count: 12,
        eval_count: 5,
      }),
    ).toEqual({
      text: null,
      toolCalls: [{ id: 'ollama-call-0', name: 'get_weather', args: { city: 'Paris' } }],
      stopReason: 'stop',
      usage: { input: 12, output: 5 },
    });
    expect(readOllamaChatAnswer({ message: { role: 'assistant', content: 'Hi' }, done: true })).toMatchObject({ text: 'Hi', toolCalls: [] });
    expect(readOllamaChatAnswer({ error: 'model is required' })).toEqual({ problem: 'answered without message: {"error":"model is required"}' });
  });
  test('leaves message.thinking out of the text', () => {
    const answer = {
      model: 'qwen3',
      message: { role: 'assistant', thinking: 'Let me think.', content: 'Paris.' },
      done: true,
      done_reason: 'stop',
      prompt_eval_count: 3,
      eval_count: 4,
    };
    expect(readOllamaChatAnswer(answer)).toEqual({ text: 'Paris.', toolCalls: [], stopReason: 'stop', usage: { input: 3, output: 4 } });
  });
});
