import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { FakeProvider, checkOpenAiStrictSchema } from 'modeltape/fake-provider';

const schema = {
  type: 'object',
  properties: { city: { type: 'string' }, temperature: { type: 'number' } },
  required: ['city', 'temperature'],
  additionalProperties: false,
};
const openai = (fake: FakeProvider) => new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
const askStructured = (fake: FakeProvider, jsonSchema: Record<string, unknown> = schema) =>
  openai(fake).chat.completions.create({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'Weather?' }],
    response_format: { type: 'json_schema', json_schema: { name: 'weather', schema: jsonSchema, strict: true } },
  });

describe('structured output, as constrained decoding guarantees it', () => {
  test('a scripted value that breaks the schema fails the call, naming the schema path and the value', async () => {
    const fake = new FakeProvider().willAnswer({ city: 'Paris', temperature: 'warm' });
    const error = await askStructured(fake).catch((caught: unknown) => caught);
    // A 422, which no SDK retries: a retry would hand the next step to this call.
    expect(error).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    const message = (error as Error).message;
    expect(message).toContain('the value {"city":"Paris","temperature":"warm"} does not match the response_format schema "weather"');
    expect(message).toContain('at .temperature (schema #/properties/temperature/type): must be number');
    expect(fake.problems()).toHaveLength(1);
  });

  test('prose scripted for a request that asks for a schema is a mismatch', async () => {
    const fake = new FakeProvider().willSay('It is sunny in Paris.');
    await expect(askStructured(fake)).rejects.toThrow(
      /asks for JSON matching its response_format schema "weather", and the scripted text is prose: "It is sunny in Paris\."/,
    );
  });

  test('tool arguments are checked against the tool schema, for OpenAI strict tools and Anthropic tools', async () => {
    const fake = new FakeProvider()
      .willCallTool('get_weather', { town: 'Paris' })
      .willCallTool('missing_tool', {})
      .endTurn()
      .willCallTool('get_weather', { city: 7 });
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'get_weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
          strict: true,
        },
      },
    ];
    await expect(openai(fake).chat.completions.create({ model: 'gpt-4o', tools, messages: [{ role: 'user', content: 'x' }] })).rejects.toThrow(
      /arguments \{"town":"Paris"\} of tool "get_weather" do not match its parameters schema:[\s\S]*must have required property 'city'/,
    );
    const anthropic = new Anthropic({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    await expect(
      anthropic.messages.create({
        model: 'claude-opus-4-8',
        max_tokens: 10,
        tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
        messages: [{ role: 'user', content: 'x' }],
      }),
    ).rejects.toThrow(/at \.city \(schema #\/properties\/city\/type\): must be string/);
  });

  test('a scripted call to a tool the request did not offer is refused', async () => {
    const fake = new FakeProvider().willCallTool('launch_rockets', {});
    await expect(openai(fake).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] })).rejects.toThrow(
      /calls tool "launch_rockets", which the request did not offer \(offered: no tools\)/,
    );
  });

  test.each([
    [
      'a property missing from required',
      { ...schema, required: ['city'] },
      "In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'temperature'.",
    ],
    [
      'no additionalProperties:false on a nested object',
      {
        ...schema,
        properties: { ...schema.properties, place: { type: 'object', properties: { zip: { type: 'string' } }, required: ['zip'] } },
        required: ['city', 'temperature', 'place'],
      },
      "In context=('properties', 'place'), 'additionalProperties' is required to be supplied and to be false.",
    ],
    ['an unsupported keyword', { ...schema, allOf: [{ required: ['city'] }] }, "In context=(), 'allOf' is not permitted."],
    [
      'a root that is not an object',
      { type: 'array', items: { type: 'string' } },
      `In context=(), schema must be a JSON Schema of 'type: "object"', got 'type: "array"'.`,
    ],
  ])("a strict schema with %s is refused with OpenAI's own 400 before any answer", async (_name, badSchema, expected) => {
    const fake = new FakeProvider().willAnswer({ city: 'Paris', temperature: 14 });
    const error = await askStructured(fake, badSchema).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toBe(`400 Invalid schema for response_format 'weather': ${expected}`);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('response_format');
    // Refused before any answer: the script step is still there.
    expect(() => fake.assertConsumed()).toThrow(/never used: step willAnswer/);
  });

  test('a schema nested past 10 levels, or with too many enum values, exceeds the strict limits', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 11; level++) deep = { type: 'object', properties: { next: deep }, required: ['next'], additionalProperties: false };
    expect(checkOpenAiStrictSchema(deep)?.message).toBe('the schema nests more than 10 levels deep.');
    const manyEnums = {
      type: 'object',
      properties: { pick: { type: 'string', enum: Array.from({ length: 1001 }, (_, index) => `v${index}`) } },
      required: ['pick'],
      additionalProperties: false,
    };
    expect(checkOpenAiStrictSchema(manyEnums)?.message).toBe('the schema has 1001 enum values in total; at most 1000 are allowed.');
    expect(checkOpenAiStrictSchema(schema)).toBeUndefined();
  });

  test("Anthropic structured output without additionalProperties:false is refused with Anthropic's 400", async () => {
    const fake = new FakeProvider().willAnswer({ city: 'Paris' });
    const anthropic = new Anthropic({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const error = await anthropic.messages
      .create({
        model: 'claude-opus-4-8',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'x' }],
        output_config: { format: { type: 'json_schema', schema: { type: 'object', properties: { city: { type: 'string' } } } } },
      } as never)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as Error).message).toContain("output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false");
  });

  test('withoutConstrainedDecoding lets any scripted answer through', async () => {
    const fake = new FakeProvider().withoutConstrainedDecoding().willSay('prose is fine now').willAnswer({ anything: true });
    expect((await askStructured(fake)).choices[0]!.message.content).toBe('prose is fine now');
    expect((await askStructured(fake, { type: 'array' })).choices[0]!.message.content).toBe('{"anything":true}');
  });
});
