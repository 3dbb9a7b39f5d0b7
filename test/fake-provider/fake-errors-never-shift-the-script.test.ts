import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { createOpenAI } from '@ai-sdk/openai';
import { generateObject, jsonSchema } from 'ai';
import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';

const citySchema = {
  type: 'object',
  properties: { city: { type: 'string' }, temperature: { type: 'number' } },
  required: ['city', 'temperature'],
  additionalProperties: false,
};

describe("the fake's own errors never shift the script onto the wrong call", () => {
  // @ai-sdk/* ignore x-should-retry and retry every 5xx (maxRetries 2 by default).
  test('a scripted answer that does not fit fails the call under Vercel default retries, and the next step is not used in its place', async () => {
    const fake = new FakeProvider().willAnswer({ city: 'Paris', temperature: 'warm' }).willAnswer({ city: 'Lyon', temperature: 20 });
    const provider = createOpenAI({ apiKey: 'fake-key', fetch: fake.fetch });
    const outcome = await generateObject({
      model: provider.chat('gpt-4o'),
      schema: jsonSchema<{ city: string; temperature: number }>(citySchema),
      prompt: 'Weather in Paris?',
    }).then(
      (result) => result.object,
      (error: unknown) => error,
    );
    expect(outcome).toBeInstanceOf(Error);
    expect(() => fake.assertConsumed()).toThrow(/never used: step willAnswer\(\{"city":"Lyon"/);
  });

  test('an error thrown while answering (chunk pieces that do not join to the text) is reported, not retried into the next step', async () => {
    const fake = new FakeProvider().willSay('Hello', { chunks: { pieces: ['Hel'] } }).willSay('meant for the next call');
    const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch }); // default maxRetries: 2
    const text = await openai.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }], stream: true })
      .then(async (stream) => {
        let all = '';
        for await (const chunk of stream) all += chunk.choices[0]?.delta.content ?? '';
        return all;
      })
      .catch((error: unknown) => error);
    expect(text).not.toBe('meant for the next call');
    expect(fake.calls()).toHaveLength(1);
    expect(fake.problems()).toHaveLength(1);
  });

  test('a tool schema the validator cannot compile gives a provider-shaped error, not a connection error the SDK retries', async () => {
    const fake = new FakeProvider().willCallTool('f', { a: 'x' }).willSay('meant for the next call');
    // Anthropic tool input is always checked; `strin` is not a type ajv can compile.
    const anthropic = new Anthropic({ apiKey: 'fake-key', fetch: fake.fetch }); // default maxRetries: 2
    const outcome = await anthropic.messages
      .create({
        model: 'claude-opus-4-8',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'x' }],
        tools: [{ name: 'f', input_schema: { type: 'object', properties: { a: { type: 'strin' } } } }],
      })
      .catch((error: unknown) => error);
    expect(outcome).toBeInstanceOf(Anthropic.APIError);
    expect(outcome).not.toBeInstanceOf(Anthropic.APIConnectionError);
    expect((outcome as { status: number }).status).toBe(422);
    expect(fake.calls()).toHaveLength(1);
    expect(fake.problems()[0]).toMatch(/FakeProvider call 0 \(POST \/v1\/messages\) failed/);
  });
});
