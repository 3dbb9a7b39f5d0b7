import Anthropic from '@anthropic-ai/sdk';
import { ChatAnthropic } from '@langchain/anthropic';
import { ChatOpenAI } from '@langchain/openai';
import { generateObject, jsonSchema } from 'ai';
import OpenAI from 'openai';
import { afterEach, describe, expect, test } from 'vitest';
import { FakeProvider, failures } from 'modeltape/fake-provider';
import { clientsFor, TRANSPORTS, type FakeClients } from '../support/fake-clients.js';

// Clients that ask for structured output by offering one tool and forcing it (LangChain's
// withStructuredOutput, @ai-sdk/anthropic's jsonTool mode, hand-written Anthropic code) get
// willAnswer(value) as that tool's call, its arguments checked against the tool's schema.

const weather = {
  type: 'object' as const,
  properties: { city: { type: 'string' }, temperature: { type: 'number' } },
  required: ['city', 'temperature'],
  additionalProperties: false,
};
const value = { city: 'Paris', temperature: 14 };

let clients: FakeClients | undefined;
afterEach(async () => {
  await clients?.close();
  clients = undefined;
});

const forcedAnthropic = () => ({
  model: 'claude-opus-4-8',
  max_tokens: 256,
  messages: [{ role: 'user' as const, content: 'Weather in Paris?' }],
  tools: [{ name: 'record_weather', input_schema: weather }],
  tool_choice: { type: 'tool' as const, name: 'record_weather' },
});

describe.each(TRANSPORTS)('willAnswer under a forced tool, over %s', (transport) => {
  test('@anthropic-ai/sdk: the value is the forced tool call, JSON and streamed', async () => {
    const fake = new FakeProvider().willAnswer(value).willAnswer(value);
    clients = await clientsFor(fake, transport);
    const message = await clients.anthropic.messages.create(forcedAnthropic());
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'record_weather', input: value })]);
    const streamed = await clients.anthropic.messages.stream(forcedAnthropic()).finalMessage();
    expect(streamed.stop_reason).toBe('tool_use');
    expect(streamed.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'record_weather', input: value })]);
    fake.assertConsumed();
  });

  test('@langchain/openai withStructuredOutput (functionCalling) returns the scripted value', async () => {
    const fake = new FakeProvider().willAnswer(value);
    clients = await clientsFor(fake, transport);
    const baseURL = transport === 'http' ? clients.openai.baseURL : 'https://api.openai.com/v1';
    const model = new ChatOpenAI({
      model: 'gpt-4o',
      apiKey: 'fake-key',
      maxRetries: 0,
      configuration: { baseURL, ...(transport === 'fetch' ? { fetch: fake.fetch } : {}) },
    });
    const structured = model.withStructuredOutput(weather, { method: 'functionCalling', name: 'weather' });
    expect(await structured.invoke('Weather in Paris?')).toEqual(value);
    // What made it a forced tool: LangChain named the one tool it offered.
    const body = fake.calls()[0]!.body as Record<string, unknown>;
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'weather' } });
    fake.assertConsumed();
  });

  // The case: ChatAnthropic's default withStructuredOutput() forces one tool, and used to get a 422 whose advice did not work.
  test('@langchain/anthropic ChatAnthropic withStructuredOutput (its default, a forced tool) returns the scripted value', async () => {
    const fake = new FakeProvider().willAnswer(value);
    clients = await clientsFor(fake, transport);
    const model = new ChatAnthropic({
      model: 'claude-sonnet-4-5',
      apiKey: 'fake-key',
      maxRetries: 0,
      ...(transport === 'fetch' ? { clientOptions: { fetch: fake.fetch } } : { anthropicApiUrl: clients.anthropic.baseURL }),
    });
    expect(await model.withStructuredOutput(weather, { name: 'weather' }).invoke('Weather in Paris?')).toEqual(value);
    const body = fake.calls()[0]!.body as Record<string, unknown>;
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'weather' });
    fake.assertConsumed();
  });

  test('ai generateObject through @ai-sdk/anthropic in jsonTool mode returns the scripted value', async () => {
    const fake = new FakeProvider().willAnswer(value);
    clients = await clientsFor(fake, transport);
    const result = await generateObject({
      model: clients.vercelAnthropic('claude-opus-4-8'),
      schema: jsonSchema<typeof value>(weather as never),
      prompt: 'Weather in Paris?',
      maxRetries: 0,
      providerOptions: { anthropic: { structuredOutputMode: 'jsonTool' } },
    });
    expect(result.object).toEqual(value);
    // The one tool it offers is required ({type:"any"}): that forces it as surely as naming it.
    const body = fake.calls()[0]!.body as Record<string, unknown>;
    expect(body.tool_choice).toMatchObject({ type: 'any' });
    expect((body.tools as unknown[]).length).toBe(1);
    fake.assertConsumed();
  });
});

describe('willAnswer under a forced tool', () => {
  test('OpenAI Responses: the value is the forced function call', async () => {
    const fake = new FakeProvider().willAnswer(value);
    const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const response = await openai.responses.create({
      model: 'gpt-4o',
      input: 'Weather in Paris?',
      tools: [{ type: 'function', name: 'record_weather', parameters: weather, strict: true }],
      tool_choice: { type: 'function', name: 'record_weather' },
    });
    const call = response.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ name: 'record_weather' });
    expect(JSON.parse((call as { arguments: string }).arguments)).toEqual(value);
  });

  test('a value that breaks the forced tool schema does not fit, even for a non-strict OpenAI tool', async () => {
    const fake = new FakeProvider().willAnswer({ city: 'Paris' });
    const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const error = await openai.chat.completions
      .create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'Weather?' }],
        tools: [{ type: 'function', function: { name: 'weather', parameters: weather } }],
        tool_choice: { type: 'function', function: { name: 'weather' } },
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect((error as Error).message).toContain('of tool "weather" do not match its parameters schema');
    expect((error as Error).message).toContain("must have required property 'temperature'");
  });

  test('unscripted, a forced tool gets arguments made from its schema', async () => {
    const fake = new FakeProvider();
    const anthropic = new Anthropic({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const message = await anthropic.messages.create(forcedAnthropic());
    const block = message.content[0]!;
    expect(block.type).toBe('tool_use');
    const input = (block as { input: Record<string, unknown> }).input;
    expect(typeof input.city).toBe('string');
    expect(typeof input.temperature).toBe('number');
    expect(Object.keys(input).sort()).toEqual(['city', 'temperature']);
  });
});

// Every "does not fit" message names a step; scripting that step for the same request works.
const chat = (extra: Record<string, unknown>) => ({
  path: '/v1/chat/completions',
  body: { model: 'gpt-4o', messages: [{ role: 'user', content: 'Weather in Paris, as json?' }], ...extra },
});
const messages = (extra: Record<string, unknown>) => ({
  path: '/v1/messages',
  body: { model: 'claude-opus-4-8', max_tokens: 100, messages: [{ role: 'user', content: 'Weather?' }], ...extra },
});
const chatTool = (name: string, strict = false) => ({ type: 'function', function: { name, parameters: weather, ...(strict ? { strict } : {}) } });
const anthropicTool = (name: string) => ({ name, input_schema: weather });
const format = { response_format: { type: 'json_schema', json_schema: { name: 'weather', schema: weather, strict: true } } };

interface AdviceCase {
  name: string;
  request: { path: string; body: Record<string, unknown> };
  wrong: (fake: FakeProvider) => void;
  advice: string;
  right: (fake: FakeProvider) => void;
}

const ADVICE: AdviceCase[] = [
  {
    name: 'a stream failure for a plain request',
    request: chat({}),
    wrong: (fake) => fake.willFail(failures.streamError({ afterChunks: 1 })),
    advice: 'Script failures.serverError() for a plain request.',
    right: (fake) => fake.willFail(failures.serverError()),
  },
  {
    name: 'a tool call where tool_choice is none',
    request: chat({ tools: [chatTool('weather')], tool_choice: 'none' }),
    wrong: (fake) => fake.willCallTool('weather', value),
    advice: 'Script willSay(text) for this turn',
    right: (fake) => fake.willSay('It rains.'),
  },
  {
    name: 'a tool the request did not offer',
    request: messages({ tools: [anthropicTool('weather')] }),
    wrong: (fake) => fake.willCallTool('forecast', value),
    advice: 'Script willCallTool with a tool the request offers.',
    right: (fake) => fake.willCallTool('weather', value),
  },
  {
    name: 'another tool than the forced one (willCallTool)',
    request: messages({ tools: [anthropicTool('weather'), anthropicTool('forecast')], tool_choice: { type: 'tool', name: 'weather' } }),
    wrong: (fake) => fake.willCallTool('forecast', value),
    advice: 'Script willCallTool("weather", arguments) or willAnswer(arguments).',
    right: (fake) => fake.willCallTool('weather', value),
  },
  {
    name: 'another tool than the forced one (willAnswer)',
    request: messages({ tools: [anthropicTool('weather'), anthropicTool('forecast')], tool_choice: { type: 'tool', name: 'weather' } }),
    wrong: (fake) => fake.willCallTool('forecast', value),
    advice: 'willAnswer(arguments)',
    right: (fake) => fake.willAnswer(value),
  },
  {
    name: 'tool arguments that break the schema',
    request: chat({ tools: [chatTool('weather', true)] }),
    wrong: (fake) => fake.willCallTool('weather', { city: 3 }),
    advice: 'Script arguments that fit, or call fake.withoutConstrainedDecoding().',
    right: (fake) => fake.withoutConstrainedDecoding().willCallTool('weather', { city: 3 }),
  },
  {
    name: 'text where one forced tool is required',
    request: messages({ tools: [anthropicTool('weather')], tool_choice: { type: 'any' } }),
    wrong: (fake) => fake.willSay('It rains.'),
    advice: 'Script willCallTool("weather", arguments), or willAnswer(arguments) to answer as its call.',
    right: (fake) => fake.willAnswer(value),
  },
  {
    name: 'text where one of several tools is required',
    request: chat({ tools: [chatTool('weather'), chatTool('forecast')], tool_choice: 'required' }),
    wrong: (fake) => fake.willSay('It rains.'),
    advice: 'Script willCallTool with one of "weather", "forecast".',
    right: (fake) => fake.willCallTool('forecast', value),
  },
  {
    name: 'prose for a schema (willAnswer)',
    request: chat(format),
    wrong: (fake) => fake.willSay('It rains.'),
    advice: "Use willAnswer(value), or willSay(text, { finish: 'refusal' }) for a refusal.",
    right: (fake) => fake.willAnswer(value),
  },
  {
    name: 'prose for a schema (a refusal)',
    request: chat(format),
    wrong: (fake) => fake.willSay('It rains.'),
    advice: "willSay(text, { finish: 'refusal' })",
    right: (fake) => fake.willSay('I cannot help with that.', { finish: 'refusal' }),
  },
  {
    name: 'a value that breaks the schema',
    request: chat(format),
    wrong: (fake) => fake.willAnswer({ city: 'Paris' }),
    advice: 'Script a value that fits, or call fake.withoutConstrainedDecoding().',
    right: (fake) => fake.willAnswer(value),
  },
];

describe('every "does not fit" advice names a step that works for that request', () => {
  test.each(ADVICE)('$name', ({ request, wrong, advice, right }) => {
    const send = (fake: FakeProvider) => fake.answer({ method: 'POST', path: request.path, headers: {}, body: JSON.stringify(request.body) });
    const refused = new FakeProvider();
    wrong(refused);
    const first = send(refused);
    expect(first.status).toBe(422);
    expect(String(first.body)).toContain('does not fit the request');
    expect(JSON.parse(String(first.body)).error.message).toContain(advice);
    const followed = new FakeProvider();
    right(followed);
    const second = send(followed);
    // The failure step answers with the failure it scripts; every other advice gives a 200.
    expect(second.status).toBe(request === ADVICE[0]!.request ? 500 : 200);
    expect(followed.problems()).toHaveLength(0);
  });
});
