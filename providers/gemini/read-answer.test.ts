import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { readGenerateRequest } from './read-request.js';
import { readGenerateAnswer } from './read-answer.js';
import { renderGenerateRequest } from './render-request.js';

const sample = (name: string): unknown => JSON.parse(readFileSync(new URL(`../../test/fixtures/samples/gemini/${name}`, import.meta.url), 'utf8'));

describe('readGenerateAnswer', () => {
  test('reads a real captured function call: the call, a made-up id, the finish reason and usage with thoughts', () => {
    expect(readGenerateAnswer(sample('generate-content-tool-call.json'))).toEqual({
      text: null,
      toolCalls: [{ id: 'gemini-call-0', name: 'weather', args: { location: 'San Francisco' } }],
      stopReason: 'STOP',
      usage: { input: 29, output: 15 + 893 },
    });
  });

  test('leaves thought parts out of the text, and counts thought tokens as output', () => {
    const answer = {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [{ text: 'Thinking it over.', thought: true }, { text: 'Paris.' }, { text: 'More thought.', thought: true, thoughtSignature: 'c2ln' }],
          },
          finishReason: 'STOP',
        },
      ],
      usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 2, thoughtsTokenCount: 7 },
    };
    expect(readGenerateAnswer(answer)).toEqual({ text: 'Paris.', toolCalls: [], stopReason: 'STOP', usage: { input: 5, output: 9 } });
    // Only thoughts and a call: no text at all.
    const onlyThought = { candidates: [{ content: { parts: [{ text: 'Hmm.', thought: true }, { functionCall: { name: 'f', args: {} } }] } }] };
    expect(readGenerateAnswer(onlyThought)).toMatchObject({ text: null, toolCalls: [{ name: 'f' }] });
  });

  test('says what is missing from an answer without a candidate', () => {
    expect(readGenerateAnswer({ promptFeedback: { blockReason: 'SAFETY' } })).toEqual({
      problem: expect.stringContaining('answered without candidates[0].content (promptFeedback.blockReason SAFETY)') as string,
    });
  });
});

describe('renderGenerateRequest', () => {
  test('renders turns as contents that read back as the same conversation, never sending a made-up id', () => {
    const body = renderGenerateRequest({
      model: 'gemini-2.5-flash',
      system: 'Be brief.',
      turns: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', text: null, toolCalls: [{ id: 'gemini-call-0', name: 'get_weather', args: { city: 'Paris' } }] },
        { role: 'tool', callId: 'gemini-call-0', name: 'get_weather', content: 'rain', isError: false },
      ],
      tools: [{ name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
      output: undefined,
      maxTokens: 256,
    });
    expect(JSON.stringify(body)).not.toContain('gemini-call-');
    const turn = readGenerateRequest(body, 0, { api: 'gemini-generate', provider: 'gemini', model: 'gemini-2.5-flash', stream: false });
    expect(turn.prompt).toBe('system: Be brief.\nuser: Weather in Paris?\nassistant: [get_weather({"city":"Paris"})]\ntool: rain');
    expect(turn.exchanges).toEqual([{ toolCallId: 'get_weather', name: 'get_weather', result: 'rain', isError: false }]);
    expect(turn.tools.map((tool) => tool.name)).toEqual(['get_weather']);
    expect(body.generationConfig).toEqual({ maxOutputTokens: 256 });
  });
});
