import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { generateObject, generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { afterEach, describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { clientsFor, TRANSPORTS, type FakeClients } from '../support/fake-clients.js';

const weatherParameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } as const;
const weatherTool = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Weather for a city', parameters: weatherParameters, strict: true },
};
const citySchema = {
  type: 'object',
  properties: { city: { type: 'string' }, temperature: { type: 'number' } },
  required: ['city', 'temperature'],
  additionalProperties: false,
} as const;

describe.each(TRANSPORTS)('the official SDKs against the fake, over %s', (transport) => {
  let clients: FakeClients | undefined;
  afterEach(async () => {
    await clients?.close();
    clients = undefined;
  });

  test('openai: chat.completions.create answers the scripted text', async () => {
    const fake = new FakeProvider().willSay('Hello from the fake.');
    clients = await clientsFor(fake, transport);
    const completion = await clients.openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] });
    expect(completion.choices[0]!.message.content).toBe('Hello from the fake.');
    expect(completion.usage!.total_tokens).toBeGreaterThan(0);
    fake.assertConsumed();
  });

  test('openai: chat.completions.stream with finalChatCompletion assembles the streamed text and usage', async () => {
    const fake = new FakeProvider().willSay('One, two, three.');
    clients = await clientsFor(fake, transport);
    const deltas: string[] = [];
    const stream = clients.openai.chat.completions.stream({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Count' }],
      stream_options: { include_usage: true },
    });
    stream.on('content', (delta) => deltas.push(delta));
    const final = await stream.finalChatCompletion();
    expect(deltas).toEqual(['One,', ' two,', ' three.']);
    expect(final.choices[0]!.message.content).toBe('One, two, three.');
    expect(final.usage?.completion_tokens).toBeGreaterThan(0);
  });

  test('openai: a tool loop sees the tool call, and the fake is told the tool result', async () => {
    const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' }, { id: 'call_paris' }).willSay('It is raining in Paris.');
    clients = await clientsFor(fake, transport);
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    const first = await clients.openai.chat.completions.create({ model: 'gpt-4o', messages, tools: [weatherTool] });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(call).toMatchObject({ id: 'call_paris', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } });
    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: '{"rain":true}' });
    const second = await clients.openai.chat.completions.stream({ model: 'gpt-4o', messages, tools: [weatherTool] }).finalChatCompletion();
    expect(second.choices[0]!.message.content).toBe('It is raining in Paris.');
    const asked = fake.asked();
    expect(asked).toHaveLength(2);
    expect(asked[0]!.tools).toEqual([{ name: 'get_weather', description: 'Weather for a city', parameters: weatherParameters, strict: true }]);
    expect(asked[1]!.exchanges).toEqual([{ toolCallId: 'call_paris', name: 'get_weather', result: '{"rain":true}', isError: false }]);
    fake.assertConsumed();
  });

  test('openai: parallel tool calls in one turn stream with their own indexes', async () => {
    const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' }).willCallTool('get_weather', { city: 'Lyon' });
    clients = await clientsFor(fake, transport);
    const final = await clients.openai.chat.completions
      .stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Both cities' }], tools: [weatherTool] })
      .finalChatCompletion();
    expect(final.choices[0]!.message.tool_calls!.map((call) => JSON.parse(call.function.arguments))).toEqual([{ city: 'Paris' }, { city: 'Lyon' }]);
  });

  test('openai: chat.completions.parse returns the structured answer, checked against the schema', async () => {
    const fake = new FakeProvider().willAnswer({ city: 'Paris', temperature: 14 });
    clients = await clientsFor(fake, transport);
    const parsed = await clients.openai.chat.completions.parse({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Weather?' }],
      response_format: { type: 'json_schema', json_schema: { name: 'weather', schema: citySchema, strict: true } },
    });
    expect(parsed.choices[0]!.message.parsed).toEqual({ city: 'Paris', temperature: 14 });
    expect(fake.asked()[0]!.responseSchema).toMatchObject({ source: 'response_format', name: 'weather', strict: true });
  });

  test('openai: responses.create, plain and streamed', async () => {
    const fake = new FakeProvider().willSay('Plain answer.').willSay('Streamed answer.');
    clients = await clientsFor(fake, transport);
    const plain = await clients.openai.responses.create({ model: 'gpt-4o', input: 'Hi' });
    expect(plain.output_text).toBe('Plain answer.');
    const events: string[] = [];
    const stream = clients.openai.responses.stream({ model: 'gpt-4o', input: 'Hi again', instructions: 'Be brief.' });
    stream.on('response.output_text.delta', (event) => events.push(event.delta));
    const final = await stream.finalResponse();
    expect(final.output_text).toBe('Streamed answer.');
    expect(events.join('')).toBe('Streamed answer.');
    expect(fake.asked()[1]!.system).toBe('Be brief.');
  });

  test('openai: responses with a function call and its output', async () => {
    const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' }, { id: 'call_r1' }).willSay('Rain.');
    clients = await clientsFor(fake, transport);
    const tools = [{ type: 'function' as const, name: 'get_weather', description: 'Weather', parameters: weatherParameters, strict: true }];
    const first = await clients.openai.responses.create({ model: 'gpt-4o', input: 'Weather in Paris?', tools });
    const call = first.output.find((item) => item.type === 'function_call')!;
    expect(call).toMatchObject({ type: 'function_call', call_id: 'call_r1', name: 'get_weather', arguments: '{"city":"Paris"}' });
    const second = await clients.openai.responses.create({
      model: 'gpt-4o',
      tools,
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        { type: 'function_call', call_id: 'call_r1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_r1', output: 'rain' },
      ],
    });
    expect(second.output_text).toBe('Rain.');
    expect(fake.asked()[1]!.exchanges).toEqual([{ toolCallId: 'call_r1', name: 'get_weather', result: 'rain', isError: false }]);
  });

  test('openai: embeddings as floats and as base64 decode to the same deterministic unit vectors', async () => {
    const fake = new FakeProvider();
    clients = await clientsFor(fake, transport);
    const floats = await clients.openai.embeddings.create({ model: 'text-embedding-3-small', input: ['hello', 'world'], encoding_format: 'float' });
    // The openai package asks for base64 by default and decodes it to floats.
    const decoded = await clients.openai.embeddings.create({ model: 'text-embedding-3-small', input: ['hello', 'world'] });
    expect(fake.calls()[1]!.body).toMatchObject({ encoding_format: 'base64' });
    expect(decoded.data.map((item) => item.embedding)).toEqual(floats.data.map((item) => item.embedding));
    const [hello, world] = floats.data.map((item) => item.embedding);
    expect(hello).toHaveLength(8);
    expect(hello).not.toEqual(world);
    expect(Math.hypot(...hello!)).toBeCloseTo(1, 5);
  });

  test('@anthropic-ai/sdk: messages.create, stream with finalMessage, and tool use', async () => {
    const fake = new FakeProvider()
      .willSay('Bonjour.')
      .willSay('Streamed bonjour.')
      .willCallTool('get_weather', { city: 'Paris' }, { saying: 'Let me check.' });
    clients = await clientsFor(fake, transport);
    const plain = await clients.anthropic.messages.create({ model: 'claude-opus-4-8', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] });
    expect(plain.content).toEqual([{ type: 'text', text: 'Bonjour.' }]);
    const texts: string[] = [];
    const stream = clients.anthropic.messages.stream({
      model: 'claude-opus-4-8',
      max_tokens: 100,
      system: 'Be French.',
      messages: [{ role: 'user', content: 'Hi again' }],
    });
    stream.on('text', (text) => texts.push(text));
    const streamed = await stream.finalMessage();
    expect(texts).toEqual(['Streamed', ' bonjour.']);
    expect(streamed.content[0]).toMatchObject({ type: 'text', text: 'Streamed bonjour.' });
    expect(streamed.usage.output_tokens).toBeGreaterThan(0);
    const tools = [
      { name: 'get_weather', description: 'Weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } },
    ];
    const toolUse = await clients.anthropic.messages
      .stream({ model: 'claude-opus-4-8', max_tokens: 100, tools, messages: [{ role: 'user', content: 'Weather?' }] })
      .finalMessage();
    expect(toolUse.stop_reason).toBe('tool_use');
    expect(toolUse.content).toEqual([
      { type: 'text', text: 'Let me check.' },
      expect.objectContaining({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } }),
    ]);
    expect(fake.asked()[1]!.system).toBe('Be French.');
    fake.assertConsumed();
  });

  test('ai: generateText runs a tool loop through @ai-sdk/openai and @ai-sdk/anthropic', async () => {
    const fake = new FakeProvider()
      .willCallTool('weather', { city: 'Paris' })
      .willSay('OpenAI says rain.')
      .willCallTool('weather', { city: 'Lyon' })
      .willSay('Anthropic says sun.');
    clients = await clientsFor(fake, transport);
    const executed: string[] = [];
    const tools = {
      weather: tool({
        description: 'Weather for a city',
        inputSchema: jsonSchema<{ city: string }>(weatherParameters),
        execute: async ({ city }) => {
          executed.push(city);
          return { city, rain: city === 'Paris' };
        },
      }),
    };
    const viaOpenAI = await generateText({
      model: clients.vercelOpenAI.chat('gpt-4o'),
      tools,
      prompt: 'Weather in Paris?',
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    const viaAnthropic = await generateText({
      model: clients.vercelAnthropic('claude-opus-4-8'),
      tools,
      prompt: 'Weather in Lyon?',
      stopWhen: stepCountIs(3),
      maxRetries: 0,
    });
    expect(viaOpenAI.text).toBe('OpenAI says rain.');
    expect(viaAnthropic.text).toBe('Anthropic says sun.');
    expect(executed).toEqual(['Paris', 'Lyon']);
    expect(fake.asked().map((turn) => `${turn.provider}:${turn.exchanges.length}`)).toEqual(['openai:0', 'openai:1', 'anthropic:0', 'anthropic:1']);
    fake.assertConsumed();
  });

  test("ai: generateText with tools on Vercel's default OpenAI model (the Responses API), retries left on", async () => {
    const fake = new FakeProvider().willCallTool('weather', { city: 'Paris' }).willSay('Responses says rain.');
    clients = await clientsFor(fake, transport);
    // An optional field, as zod's .optional() writes it: not strict, and the Responses API accepts it.
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } },
      required: ['city'],
      additionalProperties: false,
    } as const;
    const tools = {
      weather: tool({
        description: 'Weather for a city',
        inputSchema: jsonSchema<{ city: string; unit?: 'c' | 'f' }>(schema),
        execute: async ({ city }) => ({ city, rain: true }),
      }),
    };
    const result = await generateText({ model: clients.vercelOpenAI('gpt-4o'), tools, prompt: 'Weather in Paris?', stopWhen: stepCountIs(3) });
    expect(result.text).toBe('Responses says rain.');
    expect(fake.asked().map((turn) => turn.api)).toEqual(['openai-responses', 'openai-responses']);
    expect(fake.asked()[1]!.exchanges).toEqual([expect.objectContaining({ name: 'weather', result: expect.stringContaining('"rain":true') })]);
    fake.assertConsumed();
  });

  test('ai: streamText streams through both providers', async () => {
    const fake = new FakeProvider().willSay('Streaming via OpenAI responses.').willSay('Streaming via Anthropic.');
    clients = await clientsFor(fake, transport);
    const first = streamText({ model: clients.vercelOpenAI('gpt-4o'), prompt: 'Go', maxRetries: 0 });
    let openaiText = '';
    for await (const delta of first.textStream) openaiText += delta;
    const second = streamText({ model: clients.vercelAnthropic('claude-opus-4-8'), prompt: 'Go', maxRetries: 0 });
    let anthropicText = '';
    for await (const delta of second.textStream) anthropicText += delta;
    expect(openaiText).toBe('Streaming via OpenAI responses.');
    expect(anthropicText).toBe('Streaming via Anthropic.');
    expect(fake.asked().map((turn) => turn.api)).toEqual(['openai-responses', 'anthropic-messages']);
  });

  test('ai: generateObject through OpenAI responses, OpenAI chat and Anthropic', async () => {
    const fake = new FakeProvider()
      .willAnswer({ city: 'Paris', temperature: 14 })
      .willAnswer({ city: 'Lyon', temperature: 20 })
      .willAnswer({ city: 'Nice', temperature: 22 });
    clients = await clientsFor(fake, transport);
    const schema = jsonSchema<{ city: string; temperature: number }>(citySchema);
    const responses = await generateObject({ model: clients.vercelOpenAI('gpt-4o'), schema, prompt: 'Paris', maxRetries: 0 });
    const chat = await generateObject({ model: clients.vercelOpenAI.chat('gpt-4o'), schema, prompt: 'Lyon', maxRetries: 0 });
    const anthropic = await generateObject({ model: clients.vercelAnthropic('claude-opus-4-8'), schema, prompt: 'Nice', maxRetries: 0 });
    expect([responses.object, chat.object, anthropic.object]).toEqual([
      { city: 'Paris', temperature: 14 },
      { city: 'Lyon', temperature: 20 },
      { city: 'Nice', temperature: 22 },
    ]);
    expect(fake.asked().map((turn) => turn.responseSchema?.source)).toEqual(['text.format', 'response_format', 'output_config.format']);
  });
});
