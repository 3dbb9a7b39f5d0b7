import OpenAI from 'openai';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';

// Review findings: requests the real Responses API accepts, refused by the fake with a 400.
const weather = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };

describe('the Responses surface accepts what OpenAI accepts', () => {
  test('a function_call_output that answers a call made in the previous_response_id response is accepted', async () => {
    const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' }).willSay('Rain.');
    const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const tools = [{ type: 'function' as const, name: 'get_weather', parameters: weather, strict: true }];
    const first = await openai.responses.create({ model: 'gpt-4o', input: 'Weather in Paris?', tools });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call?.type).toBe('function_call');
    // The standard stateful tool loop: only the output goes back, the call lives in the previous response.
    const second = await openai.responses.create({
      model: 'gpt-4o',
      tools,
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call!.type === 'function_call' ? call!.call_id : '', output: 'rain' }],
    });
    expect(second.output_text).toBe('Rain.');
  });

  test('a text.format json_schema without strict is not held to the strict-mode rules (strict defaults to false)', async () => {
    const fake = new FakeProvider().willAnswer({ city: 'Paris' });
    const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const loose = { type: 'object', properties: { city: { type: 'string' }, note: { type: 'string' } }, required: ['city'] };
    const response = await openai.responses.create({
      model: 'gpt-4o',
      input: 'Weather?',
      text: { format: { type: 'json_schema', name: 'weather', schema: loose } },
    });
    expect(JSON.parse(response.output_text)).toEqual({ city: 'Paris' });
  });

  test('a Vercel tool with an optional field runs on the default openai() Responses model, which sends no strict flag', async () => {
    const fake = new FakeProvider().willCallTool('weather', { city: 'Paris' }).willSay('Rain in Paris.');
    const provider = createOpenAI({ apiKey: 'fake-key', fetch: fake.fetch });
    const result = await generateText({
      model: provider('gpt-4o'),
      prompt: 'Weather in Paris?',
      maxRetries: 0,
      stopWhen: stepCountIs(3),
      tools: {
        weather: tool({
          description: 'Weather',
          inputSchema: z.object({ city: z.string(), unit: z.enum(['c', 'f']).optional() }),
          execute: async () => 'rain',
        }),
      },
    });
    expect(result.text).toBe('Rain in Paris.');
  });

  test('a Vercel tool without parameters runs on the default openai() Responses model', async () => {
    const fake = new FakeProvider().willCallTool('now', {}).willSay('It is noon.');
    const provider = createOpenAI({ apiKey: 'fake-key', fetch: fake.fetch });
    const result = await generateText({
      model: provider('gpt-4o'),
      prompt: 'What time is it?',
      maxRetries: 0,
      stopWhen: stepCountIs(3),
      tools: { now: tool({ description: 'The time', inputSchema: z.object({}), execute: async () => 'noon' }) },
    });
    expect(result.text).toBe('It is noon.');
  });
});
