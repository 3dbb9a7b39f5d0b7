import { describe, expect, test } from 'vitest';
import { refuseOllamaChatRequest, refuseOllamaGenerateRequest } from './refusals.js';

const messages = [{ role: 'user', content: 'Hi' }];

describe("Ollama's refusals", () => {
  test('accepts a plain chat, a schema format, "json", and a tool call with object arguments', () => {
    expect(refuseOllamaChatRequest({ model: 'llama3.2', messages })).toBeUndefined();
    expect(refuseOllamaChatRequest({ model: 'llama3.2', messages, format: { type: 'object' } })).toBeUndefined();
    expect(refuseOllamaChatRequest({ model: 'llama3.2', messages, format: 'json' })).toBeUndefined();
    const call = { role: 'assistant', content: '', tool_calls: [{ function: { name: 'f', arguments: { a: 1 } } }] };
    expect(refuseOllamaChatRequest({ model: 'llama3.2', messages: [...messages, call] })).toBeUndefined();
  });

  test('refuses what Ollama refuses, in its words', () => {
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ messages }, 400, 'model is required'],
      [{ model: '', messages }, 400, 'model is required'],
      [{ model: 7, messages }, 400, 'json: cannot unmarshal number into Go struct field ChatRequest.model of type string'],
      [{ model: 'm', messages: {} }, 400, 'json: cannot unmarshal object into Go struct field ChatRequest.messages of type []api.Message'],
      [{ model: 'm', messages: ['Hi'] }, 400, 'json: cannot unmarshal string into Go struct field ChatRequest.messages of type api.Message'],
      [
        { model: 'm', messages: [{ role: 'assistant', content: '', tool_calls: [{ function: { name: 'f', arguments: '{"a":1}' } }] }] },
        400,
        'json: cannot unmarshal string into Go struct field ChatRequest.messages.tool_calls.function.arguments of type map[string]interface {}',
      ],
      [{ model: 'm', messages, stream: 'yes' }, 400, 'json: cannot unmarshal string into Go struct field ChatRequest.stream of type bool'],
      [{ model: 'm', messages, top_logprobs: 21 }, 400, 'top_logprobs must be between 0 and 20'],
      [{ model: 'm', messages, format: 'yaml' }, 500, 'invalid format: "\\"yaml\\""; expected "json" or a valid JSON Schema object'],
    ];
    for (const [body, status, message] of cases) expect(refuseOllamaChatRequest(body), JSON.stringify(body)).toMatchObject({ status, message });
    expect(cases).toHaveLength(9);
  });

  test('generate: a model is required, and raw mode takes no system', () => {
    expect(refuseOllamaGenerateRequest({ model: 'm', prompt: 'Hi' })).toBeUndefined();
    expect(refuseOllamaGenerateRequest({ prompt: 'Hi' })).toMatchObject({ status: 400, message: 'model is required' });
    expect(refuseOllamaGenerateRequest({ model: 'm', prompt: 'Hi', raw: true, system: 'Be brief.' })).toMatchObject({
      status: 400,
      message: 'raw mode does not support template, system, or context',
    });
    expect(refuseOllamaGenerateRequest({ model: 'm', prompt: ['Hi'] })).toMatchObject({
      message: 'json: cannot unmarshal array into Go struct field GenerateRequest.prompt of type string',
    });
  });
  test('think: a model without the thinking capability refuses it, a thinking model takes a level, a bad level is a binding error', () => {
    expect(refuseOllamaChatRequest({ model: 'llama3.2', messages, think: true })).toMatchObject({
      status: 400,
      message: '"llama3.2" does not support thinking',
    });
    expect(refuseOllamaGenerateRequest({ model: 'llama3.2:latest', prompt: 'Hi', think: 'high' })).toMatchObject({
      status: 400,
      message: '"llama3.2:latest" does not support thinking',
    });
    expect(refuseOllamaChatRequest({ model: 'llama3.2', messages, think: false })).toBeUndefined();
    for (const think of [true, 'low', 'medium', 'high', 'max']) expect(refuseOllamaChatRequest({ model: 'qwen3:8b', messages, think })).toBeUndefined();
    expect(refuseOllamaChatRequest({ model: 'fake-gpt-oss:20b', messages, think: 'low' })).toBeUndefined();
    expect(refuseOllamaChatRequest({ model: 'qwen3', messages, think: 'extreme' })).toMatchObject({
      status: 400,
      message: 'invalid think value: "extreme" (must be "high", "medium", "low", "max", true, or false)',
    });
    expect(refuseOllamaChatRequest({ model: 'qwen3', messages, think: 1 })).toMatchObject({
      message: 'think must be a boolean or string ("high", "medium", "low", "max", true, or false)',
    });
  });
});
