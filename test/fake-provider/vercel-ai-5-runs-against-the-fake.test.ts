// Vercel `ai` 5 with its own providers (@ai-sdk/openai 2, @ai-sdk/anthropic 2), installed under
// aliases beside `ai` 6. Its OpenAI provider speaks the Responses API by default and, in a tool
// loop, sends the call back as an `item_reference` to the stored response: the fake must resolve
// it as a `store: true` API does, or the second step fails with "No tool call found".
import { generateObject, generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai-v5';
import { createAnthropic } from 'ai-sdk-anthropic-v2';
import { createOpenAI } from 'ai-sdk-openai-v2';
import { afterEach, describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { TRANSPORTS, type Transport } from '../support/fake-clients.js';

const cityParameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } as const;
const citySchema = {
  type: 'object',
  properties: { city: { type: 'string' }, temperature: { type: 'number' } },
  required: ['city', 'temperature'],
  additionalProperties: false,
} as const;

const weather = tool({
  description: 'Weather for a city',
  inputSchema: jsonSchema<{ city: string }>(cityParameters),
  execute: async ({ city }) => ({ city, rain: true }),
});

describe.each(TRANSPORTS)('Vercel ai 5 against the fake, over %s', (transport: Transport) => {
  const servers: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  async function providers(fake: FakeProvider): Promise<{ openai: ReturnType<typeof createOpenAI>; anthropic: ReturnType<typeof createAnthropic> }> {
    if (transport === 'fetch')
      return { openai: createOpenAI({ apiKey: 'fake-key', fetch: fake.fetch }), anthropic: createAnthropic({ apiKey: 'fake-key', fetch: fake.fetch }) };
    const server = await fake.listen();
    servers.push(server);
    return {
      openai: createOpenAI({ apiKey: 'fake-key', baseURL: server.baseUrls.openai }),
      anthropic: createAnthropic({ apiKey: 'fake-key', baseURL: `${server.url}/v1` }),
    };
  }

  test("openai (Responses, the default): the tool loop's item_reference resolves to the stored call", async () => {
    const fake = new FakeProvider().willCallTool('weather', { city: 'Paris' }).willSay('It rains in Paris.');
    const { openai } = await providers(fake);
    const result = await generateText({ model: openai('gpt-4o'), tools: { weather }, prompt: 'Weather in Paris?', stopWhen: stepCountIs(3) });
    expect(result.text).toBe('It rains in Paris.');
    expect(fake.calls().map((call) => call.status)).toEqual([200, 200]);
    const second = fake.calls()[1]!.body as { input: Array<{ type?: string }> };
    // The loop really did send a reference, and the fake read it as the call it stands for.
    expect(second.input.some((item) => item.type === 'item_reference')).toBe(true);
    const turn = fake.asked()[1]!;
    expect(turn.messages.find((message) => message.role === 'assistant')?.toolCalls).toEqual([
      expect.objectContaining({ name: 'weather', arguments: { city: 'Paris' } }),
    ]);
    expect(turn.exchanges).toEqual([expect.objectContaining({ name: 'weather', result: expect.stringContaining('"rain":true') })]);
    fake.assertConsumed();
  });

  test('openai: streamText streams the scripted text through a tool loop', async () => {
    const fake = new FakeProvider().willCallTool('weather', { city: 'Oslo' }).willSay('Snow in Oslo.');
    const { openai } = await providers(fake);
    const result = streamText({ model: openai('gpt-4o'), tools: { weather }, prompt: 'Weather in Oslo?', stopWhen: stepCountIs(3) });
    expect(await result.text).toBe('Snow in Oslo.');
    expect(fake.asked()).toHaveLength(2);
  });

  test('openai: generateObject gets the scripted value, checked against its schema', async () => {
    const fake = new FakeProvider().willAnswer({ city: 'Lima', temperature: 19 });
    const { openai } = await providers(fake);
    const { object } = await generateObject({ model: openai('gpt-4o'), schema: jsonSchema(citySchema), prompt: 'A city.' });
    expect(object).toEqual({ city: 'Lima', temperature: 19 });
  });

  test('anthropic: a tool loop and generateObject, scripted and unscripted', async () => {
    const fake = new FakeProvider().willCallTool('weather', { city: 'Rome' }).willSay('Sun in Rome.');
    const { anthropic } = await providers(fake);
    const result = await generateText({
      model: anthropic('claude-sonnet-4-5'),
      tools: { weather },
      prompt: 'Weather in Rome?',
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe('Sun in Rome.');
    expect(fake.asked().map((turn) => turn.api)).toEqual(['anthropic-messages', 'anthropic-messages']);

    // Unscripted: the value is made from the schema, and it fits it.
    const unscripted = new FakeProvider();
    const { anthropic: second } = await providers(unscripted);
    const { object } = await generateObject({
      model: second('claude-sonnet-4-5'),
      schema: jsonSchema<{ city: string; temperature: number }>(citySchema),
      prompt: 'A city.',
    });
    expect(typeof object.city).toBe('string');
    expect(typeof object.temperature).toBe('number');
  });
});
