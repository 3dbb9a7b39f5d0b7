import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { createLenientValidator } from '../../schema/ajv.js';

const bookingSchema = {
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 2 },
    nights: { type: 'integer', minimum: 1, maximum: 14 },
    date: { type: 'string', format: 'date' },
    guests: {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string' }, child: { type: 'boolean' } }, required: ['name', 'child'], additionalProperties: false },
      minItems: 1,
    },
    plan: { type: 'string', enum: ['room-only', 'breakfast'] },
  },
  required: ['city', 'nights', 'date', 'guests', 'plan'],
  additionalProperties: false,
};

const validate = createLenientValidator().compile(bookingSchema);

describe('an unscripted fake', () => {
  test('calls the first offered tool on the first turn of a tool loop, with arguments valid by its schema', async () => {
    const fake = new FakeProvider();
    const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const tools = [
      { type: 'function' as const, function: { name: 'book_hotel', parameters: bookingSchema, strict: true } },
      { type: 'function' as const, function: { name: 'cancel', parameters: { type: 'object', properties: {}, required: [], additionalProperties: false } } },
    ];
    const first = await openai.chat.completions.create({ model: 'gpt-4o', tools, messages: [{ role: 'user', content: 'Book me a hotel' }] });
    const call = first.choices[0]!.message.tool_calls![0]!;
    expect(call.type === 'function' && call.function.name).toBe('book_hotel');
    const args = JSON.parse(call.type === 'function' ? call.function.arguments : '{}') as unknown;
    expect(validate(args), JSON.stringify(validate.errors)).toBe(true);

    // Later turns, once a tool result came back, answer with text.
    const second = await openai.chat.completions.create({
      model: 'gpt-4o',
      tools,
      messages: [{ role: 'user', content: 'Book me a hotel' }, first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'booked' }],
    });
    expect(second.choices[0]!.message.tool_calls).toBeUndefined();
    expect(second.choices[0]!.message.content).toBe("This is a fake answer from modeltape's FakeProvider (call 1).");
  });

  test('answers with text when no tools are offered, on every surface', async () => {
    const fake = new FakeProvider();
    const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const anthropic = new Anthropic({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    expect((await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] })).choices[0]!.message.content).toMatch(
      /fake answer/,
    );
    expect((await openai.responses.create({ model: 'gpt-4o', input: 'hi' })).output_text).toMatch(/fake answer/);
    const message = await anthropic.messages.create({ model: 'claude-opus-4-8', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/fake answer/) });
    expect(fake.problems()).toEqual([]);
  });

  test('answers a request for a schema with a value made from that schema', async () => {
    const fake = new FakeProvider();
    const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const parsed = await openai.chat.completions.parse({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'Book' }],
      response_format: { type: 'json_schema', json_schema: { name: 'booking', schema: bookingSchema, strict: true } },
    });
    expect(validate(parsed.choices[0]!.message.parsed), JSON.stringify(validate.errors)).toBe(true);
  });

  test("Anthropic's first tool turn calls the first tool too", async () => {
    const fake = new FakeProvider({ seed: 3 });
    const anthropic = new Anthropic({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const message = await anthropic.messages.create({
      model: 'claude-opus-4-8',
      max_tokens: 100,
      tools: [{ name: 'book_hotel', input_schema: bookingSchema as never }],
      messages: [{ role: 'user', content: 'Book' }],
    });
    const use = message.content.find((block) => block.type === 'tool_use')!;
    expect(use.type === 'tool_use' && use.name).toBe('book_hotel');
    expect(validate(use.type === 'tool_use' ? use.input : undefined)).toBe(true);
  });
});
