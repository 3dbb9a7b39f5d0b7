import OpenAI from 'openai';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, tool } from 'ai';
import { z } from 'zod';
import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { validateAgainstSpec } from '../support/spec-validator.js';

const weather = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
const tools = [{ type: 'function' as const, name: 'get_weather', parameters: weather, strict: true }];

describe('the Responses surface keeps state like a store: true API', () => {
  test('previous_response_id chains a tool loop, and asked() shows the whole conversation', async () => {
    const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' }).willSay('Rain.');
    const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const first = await openai.responses.create({ model: 'gpt-4o', input: 'Weather in Paris?', tools });
    const call = first.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('expected a function_call');
    const second = await openai.responses.create({
      model: 'gpt-4o',
      tools,
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'rain' }],
    });
    expect(second.output_text).toBe('Rain.');
    expect(second.previous_response_id).toBe(first.id);
    const turn = fake.asked()[1]!;
    expect(turn.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(turn.messages[1]!.toolCalls?.[0]).toMatchObject({ name: 'get_weather', arguments: { city: 'Paris' } });
    expect(turn.exchanges).toEqual([{ toolCallId: call.call_id, name: 'get_weather', result: 'rain', isError: false }]);
    expect(turn.prompt).toContain('user: Weather in Paris?');
  });

  test('an unknown previous_response_id gets OpenAI 400 previous_response_not_found as a BadRequestError', async () => {
    const fake = new FakeProvider().willSay('never');
    const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const error = await openai.responses.create({ model: 'gpt-4o', input: 'hi', previous_response_id: 'resp_unknown' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const bad = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(bad.status).toBe(400);
    expect(bad.code).toBe('previous_response_not_found');
    expect(bad.param).toBe('previous_response_id');
    expect(bad.message).toContain("Previous response with id 'resp_unknown' not found.");
    expect(fake.asked({ latest: true })).toHaveLength(0);
  });

  test('a response with store: false is not kept, and one dropped past historyLimit says it was dropped', async () => {
    const fake = new FakeProvider({ historyLimit: 1 });
    const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const unstored = await openai.responses.create({ model: 'gpt-4o', input: 'one', store: false });
    const gone = await openai.responses.create({ model: 'gpt-4o', input: 'two', previous_response_id: unstored.id }).catch((caught: unknown) => caught);
    expect((gone as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('previous_response_not_found');
    const first = await openai.responses.create({ model: 'gpt-4o', input: 'three' });
    await openai.responses.create({ model: 'gpt-4o', input: 'four' });
    const dropped = await openai.responses.create({ model: 'gpt-4o', input: 'five', previous_response_id: first.id }).catch((caught: unknown) => caught);
    expect((dropped as Error).message).toContain('dropped');
    expect((dropped as Error).message).toContain('historyLimit');
  });

  test('item_reference items are resolved to the stored items, and an unknown one is a 404', async () => {
    const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' }).willSay('Rain.');
    const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const first = await openai.responses.create({ model: 'gpt-4o', input: 'Weather in Paris?', tools });
    const call = first.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('expected a function_call');
    const second = await openai.responses.create({
      model: 'gpt-4o',
      tools,
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        { type: 'item_reference', id: call.id! },
        { type: 'function_call_output', call_id: call.call_id, output: 'rain' },
      ],
    });
    expect(second.output_text).toBe('Rain.');
    expect(fake.asked()[1]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    const error = await openai.responses.create({ model: 'gpt-4o', input: [{ type: 'item_reference', id: 'fc_unknown' }] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as Error).message).toContain("Item with id 'fc_unknown' not found.");
  });

  test('without its call in the resolved conversation, a function_call_output is still refused', async () => {
    const fake = new FakeProvider().willSay('Hello.');
    const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const first = await openai.responses.create({ model: 'gpt-4o', input: 'hi' });
    const error = await openai.responses
      .create({ model: 'gpt-4o', previous_response_id: first.id, input: [{ type: 'function_call_output', call_id: 'call_nowhere', output: 'x' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('No tool call found for function call output with call_id call_nowhere.');
  });
});

describe('reasoning models answer with a reasoning item', () => {
  test('a summary, reasoning tokens, and encrypted_content that round-trips by value; foreign content is refused', async () => {
    const fake = new FakeProvider().willSay('Four.').willSay('Still four.');
    const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const first = await openai.responses.create({
      model: 'o4-mini',
      input: '2+2?',
      reasoning: { effort: 'low', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
      store: false,
    });
    expect(first.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    const reasoning = first.output[0]!;
    if (reasoning.type !== 'reasoning') throw new Error('expected reasoning');
    expect(reasoning.id).toMatch(/^fake-rs-/);
    expect(reasoning.summary).toHaveLength(1);
    expect(reasoning.summary[0]!.type).toBe('summary_text');
    expect(reasoning.encrypted_content).toMatch(/^fake-encrypted-reasoning\./);
    expect(first.usage!.output_tokens_details.reasoning_tokens).toBeGreaterThan(0);
    expect(validateAgainstSpec('openai', 'Response', JSON.parse(JSON.stringify(first))).errors).toEqual([]);
    const second = await openai.responses.create({
      model: 'o4-mini',
      store: false,
      include: ['reasoning.encrypted_content'],
      input: [{ role: 'user', content: '2+2?' }, reasoning, { role: 'user', content: 'Sure?' }],
    });
    expect(second.output_text).toBe('Still four.');
    const forged = await openai.responses
      .create({ model: 'o4-mini', store: false, input: [{ ...reasoning, encrypted_content: 'gAAAAABnot-made-by-the-fake==' }] })
      .catch((caught: unknown) => caught);
    expect(forged).toBeInstanceOf(OpenAI.BadRequestError);
    expect((forged as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('invalid_encrypted_content');
    expect((forged as Error).message).toContain('could not be verified.');
  });

  test('the stream emits the reasoning summary events, each valid against the spec', async () => {
    const fake = new FakeProvider().willSay('Four.');
    const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const stream = await openai.responses.create({ model: 'gpt-5', input: '2+2?', reasoning: { summary: 'detailed' }, stream: true });
    const types: string[] = [];
    let checked = 0;
    for await (const event of stream) {
      types.push(event.type);
      expect(validateAgainstSpec('openai', 'ResponseStreamEvent', JSON.parse(JSON.stringify(event))).errors, event.type).toEqual([]);
      checked++;
    }
    expect(checked).toBe(types.length);
    for (const type of [
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
    ])
      expect(types).toContain(type);
    expect(types.indexOf('response.reasoning_summary_part.added')).toBeLessThan(types.indexOf('response.output_text.delta'));
  });
});

describe('Vercel ai 6 with @ai-sdk/openai Responses and store: true', () => {
  test('a reasoning tool loop that sends item_reference items passes over listen()', async () => {
    const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' }).willSay('It rains in Paris.');
    const server = await fake.listen();
    try {
      const openai = createOpenAI({ apiKey: 'fake-key', baseURL: `${server.url}/v1` });
      const result = await generateText({
        model: openai.responses('o4-mini'),
        prompt: 'Weather in Paris?',
        providerOptions: { openai: { store: true, reasoningSummary: 'auto' } },
        tools: { get_weather: tool({ inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => `rain in ${city}` }) },
        stopWhen: stepCountIs(3),
      });
      expect(result.text).toBe('It rains in Paris.');
      const sent = fake.calls()[1]!.body as { input: Array<{ type?: string }> };
      expect(sent.input.some((item) => item.type === 'item_reference')).toBe(true);
      expect(fake.asked()[1]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
      // The turn stood on the stored items the references named: none is left unresolved.
      const resolved = fake.asked()[1]!.body.input as Array<{ type?: string; id?: string }>;
      expect(resolved.filter((item) => item.type === 'item_reference')).toEqual([]);
      expect(resolved.find((item) => item.type === 'reasoning')?.id).toMatch(/^fake-rs-/);
    } finally {
      await server.close();
    }
  });
});
