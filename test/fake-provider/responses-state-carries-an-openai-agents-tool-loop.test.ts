import OpenAI from 'openai';
import { Agent, OpenAIResponsesModel, run, setTracingDisabled, tool } from '@openai/agents';
import { z } from 'zod';
import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';

describe('the OpenAI Agents SDK runs a tool agent chained by previous_response_id', () => {
  test('the second turn stands on the stored first one, and asked() shows the whole conversation', async () => {
    setTracingDisabled(true);
    const fake = new FakeProvider().willSay('Hello.').willCallTool('get_weather', { city: 'Paris' }).willSay('It rains in Paris.');
    const client = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const agent = new Agent({
      name: 'weather',
      instructions: 'Answer about the weather.',
      model: new OpenAIResponsesModel(client, 'gpt-4o'),
      tools: [
        tool({
          name: 'get_weather',
          description: 'The weather in a city',
          parameters: z.object({ city: z.string() }),
          execute: async ({ city }) => `rain in ${city}`,
        }),
      ],
    });
    const greeting = await run(agent, 'Hi');
    const result = await run(agent, 'Weather in Paris?', { previousResponseId: greeting.lastResponseId });
    expect(result.finalOutput).toBe('It rains in Paris.');
    const sent = fake.calls().map((call) => (call.body as { previous_response_id?: string }).previous_response_id);
    expect(sent[1]).toBe(greeting.lastResponseId);
    expect(sent[2]).toMatch(/^fake-resp-/);
    const turns = fake.asked();
    expect(turns).toHaveLength(3);
    expect(turns[2]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'tool']);
    expect(turns[2]!.exchanges[0]).toMatchObject({ name: 'get_weather', result: 'rain in Paris' });
    fake.assertConsumed();
  });
});
