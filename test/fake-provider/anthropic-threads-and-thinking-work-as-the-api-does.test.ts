import Anthropic from '@anthropic-ai/sdk';
import { betaTool } from '@anthropic-ai/sdk/helpers/beta/json-schema';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { afterEach, describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { clientsFor, TRANSPORTS, type FakeClients } from '../support/fake-clients.js';
import { validateAgainstSpec } from '../support/spec-validator.js';

// Message threads (@anthropic-ai/sdk 1.14's toolRunner sends `thread: create | continue` with
// only the new messages) and extended thinking (thinking blocks with signatures, streamed as
// thinking_delta + signature_delta, and the refusals the real API makes), through the unmodified
// official clients over the fake's fetch and over HTTP.

const THREADS_BETA = 'message-threads-2026-08-12';
const weatherSchema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } as const;
// The same tool as the Messages API takes it, for requests sent without the runner.
const rawTools = [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] } }];

// The fake sends text blocks without `citations`, as the real API does, while the spec lists it
// as required and nullable: filled in as null before validating (as the spec battery does).
function specErrors(schema: string, value: unknown): string[] {
  const fill = (item: unknown): unknown => {
    if (Array.isArray(item)) return item.map(fill);
    if (typeof item !== 'object' || item === null) return item;
    const copy = Object.fromEntries(Object.entries(item).map(([name, inner]) => [name, fill(inner)]));
    if (copy.type === 'text' && typeof copy.text === 'string' && !('citations' in copy)) copy.citations = null;
    return copy;
  };
  return validateAgainstSpec('anthropic', schema, fill(value)).errors;
}

function weatherTool(ran: string[]) {
  return betaTool({
    name: 'get_weather',
    description: 'Weather for a city',
    inputSchema: weatherSchema,
    run: (input) => {
      ran.push(input.city);
      return `Rain in ${input.city}`;
    },
  });
}

describe.each(TRANSPORTS)('Anthropic threads and thinking, over %s', (transport) => {
  let clients: FakeClients | undefined;
  afterEach(async () => {
    await clients?.close();
    clients = undefined;
  });

  test('the toolRunner runs a scripted tool loop to completion on a thread, and asked() shows the whole conversation', async () => {
    const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' }).willSay('It rains in Paris.');
    clients = await clientsFor(fake, transport);
    const ran: string[] = [];
    const final = await clients.anthropic.beta.messages.toolRunner({
      model: 'claude-opus-4-8',
      max_tokens: 256,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [weatherTool(ran)],
    });
    expect(ran).toEqual(['Paris']);
    expect(final.content).toEqual([{ type: 'text', text: 'It rains in Paris.' }]);
    fake.assertConsumed();

    // On the wire: a `create` with the whole conversation, then a `continue` with only the tool
    // result and without system and tools, both with the threads beta.
    const calls = fake.calls();
    expect(calls).toHaveLength(2);
    const [first, second] = calls.map((call) => call.body as Record<string, unknown>);
    expect(first!.thread).toEqual({ type: 'create' });
    expect(second!.thread).toEqual({ type: 'continue', previous_message_id: 'fake-msg-0' });
    expect(second!.system).toBeUndefined();
    expect(second!.tools).toBeUndefined();
    expect((second!.messages as unknown[]).length).toBe(1);
    for (const call of calls) expect(call.headers['anthropic-beta']).toContain(THREADS_BETA);

    // What the model was shown on the continue: the thread's system and tools, the whole conversation.
    const asked = fake.asked();
    expect(asked[1]!.system).toBe('Be brief.');
    expect(asked[1]!.tools.map((offered) => offered.name)).toEqual(['get_weather']);
    expect(asked[1]!.prompt).toBe('system: Be brief.\nuser: Weather in Paris?\nassistant: [get_weather({"city":"Paris"})]\ntool: Rain in Paris');
    expect(asked[1]!.exchanges).toEqual([{ toolCallId: 'fake-toolu-0', name: 'get_weather', result: 'Rain in Paris', isError: false }]);
  });

  test('the toolRunner runs an unscripted tool loop to completion: a tool call first, then text', async () => {
    const fake = new FakeProvider();
    clients = await clientsFor(fake, transport);
    const ran: string[] = [];
    const final = await clients.anthropic.beta.messages.toolRunner({
      model: 'claude-opus-4-8',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [weatherTool(ran)],
    });
    expect(ran).toHaveLength(1);
    expect(final.stop_reason).toBe('end_turn');
    expect(final.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('fake answer') });
    expect(fake.calls().map((call) => (call.body as { thread?: { type: string } }).thread?.type)).toEqual(['create', 'continue']);
  });

  test('the toolRunner streams a thread to completion', async () => {
    const fake = new FakeProvider().willCallTool('get_weather', { city: 'Lyon' }).willSay('Sunny in Lyon.');
    clients = await clientsFor(fake, transport);
    const ran: string[] = [];
    const runner = clients.anthropic.beta.messages.toolRunner({
      model: 'claude-opus-4-8',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Weather in Lyon?' }],
      tools: [weatherTool(ran)],
      stream: true,
    });
    let streams = 0;
    for await (const stream of runner) {
      streams++;
      await stream.finalMessage();
    }
    expect(streams).toBe(2);
    expect(ran).toEqual(['Lyon']);
    expect((await runner.runUntilDone()).content).toEqual([{ type: 'text', text: 'Sunny in Lyon.' }]);
    expect(fake.asked()[1]!.prompt).toContain('tool: Rain in Lyon');
  });

  test('a continue from an id the fake never gave is a 404 thread_not_found, as ThreadNotFoundError in the SDK', async () => {
    const fake = new FakeProvider();
    clients = await clientsFor(fake, transport);
    const error = await clients.anthropic.beta.messages
      .create({
        model: 'claude-opus-4-8',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'Hi' }],
        thread: { type: 'continue', previous_message_id: 'fake-msg-404' },
        betas: [THREADS_BETA],
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    const apiError = error as InstanceType<typeof Anthropic.NotFoundError> & { errorCode: string | null };
    expect(apiError.constructor.name).toBe('ThreadNotFoundError');
    expect(apiError.errorCode).toBe('thread_not_found');
    expect(apiError.message).toContain('fake-msg-404');
    expect(specErrors('ErrorResponse', apiError.error)).toEqual([]);
    expect(fake.asked()).toHaveLength(0);
  });

  test('a thread the fake no longer holds (beyond historyLimit) is not found, and the toolRunner replays it under a new thread', async () => {
    const fake = new FakeProvider({ historyLimit: 1 });
    clients = await clientsFor(fake, transport);
    const thread = clients.anthropic.beta.messages.thread({ model: 'claude-opus-4-8', max_tokens: 64 });
    const first = await thread.send({ role: 'user', content: 'One' });
    // Another thread's message pushes the first one out of the fake's memory.
    await clients.anthropic.beta.messages.thread({ model: 'claude-opus-4-8', max_tokens: 64 }).send({ role: 'user', content: 'Other' });
    await thread.send({ role: 'user', content: 'Two' });
    const threads = fake.calls({ latest: true }).map((call) => (call.body as { thread?: unknown }).thread);
    // The continue from the dropped message failed; the SDK sent the full history under a new thread.
    expect(threads.at(-1)).toEqual({ type: 'create' });
    expect(fake.callCount).toBe(4);
    expect(first.id).toBe('fake-msg-0');
  });

  test('a message can be continued only once: the second continue is thread_already_continued', async () => {
    const fake = new FakeProvider();
    clients = await clientsFor(fake, transport);
    const base = { model: 'claude-opus-4-8', max_tokens: 64, betas: [THREADS_BETA] as ['message-threads-2026-08-12'] };
    const first = await clients.anthropic.beta.messages.create({ ...base, messages: [{ role: 'user', content: 'One' }], thread: { type: 'create' } });
    const continued = { ...base, messages: [{ role: 'user' as const, content: 'Two' }], thread: { type: 'continue' as const, previous_message_id: first.id } };
    await clients.anthropic.beta.messages.create(continued);
    const error = (await clients.anthropic.beta.messages.create(continued).catch((caught: unknown) => caught)) as { status: number; errorCode: string };
    expect([error.status, error.errorCode]).toEqual([400, 'thread_already_continued']);
  });

  test('thread without the threads beta is refused as the unknown field it then is', async () => {
    const fake = new FakeProvider();
    clients = await clientsFor(fake, transport);
    const error = (await clients.anthropic.beta.messages
      .create({ model: 'claude-opus-4-8', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }], thread: { type: 'create' } })
      .catch((caught: unknown) => caught)) as { status: number; message: string };
    expect(error.status).toBe(400);
    expect(error.message).toContain('thread: Extra inputs are not permitted');
  });

  test('with thinking enabled the answer starts with a signed thinking block, as JSON', async () => {
    const fake = new FakeProvider().willSay('Forty-two.');
    clients = await clientsFor(fake, transport);
    const message = await clients.anthropic.messages.create({
      model: 'claude-opus-4-8',
      max_tokens: 2048,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      messages: [{ role: 'user', content: 'The answer?' }],
    });
    expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text']);
    const thinking = message.content[0] as { thinking: string; signature: string };
    expect(thinking.thinking).toBe('Thinking (modeltape FakeProvider, call 0): I will answer in text.');
    expect(thinking.signature).toMatch(/^fake-signature-[0-9a-f]{32}$/);
    expect(specErrors('Message', message)).toEqual([]);
  });

  test('streamed, thinking comes as thinking_delta and signature_delta, and finalMessage() assembles it', async () => {
    const fake = new FakeProvider().willSay('Forty-two.', { chunks: { size: 8 } });
    clients = await clientsFor(fake, transport);
    const stream = clients.anthropic.messages.stream({
      model: 'claude-opus-4-8',
      max_tokens: 2048,
      thinking: { type: 'adaptive' },
      messages: [{ role: 'user', content: 'The answer?' }],
    });
    const deltas: string[] = [];
    let checked = 0;
    stream.on('streamEvent', (event) => {
      expect(specErrors('MessageStreamEvent', event)).toEqual([]);
      checked++;
      if (event.type === 'content_block_delta') deltas.push(event.delta.type);
    });
    const final = await stream.finalMessage();
    expect(checked).toBeGreaterThan(8);
    expect(deltas.filter((type) => type === 'thinking_delta').length).toBeGreaterThan(1);
    expect(deltas.filter((type) => type === 'signature_delta')).toHaveLength(1);
    expect(deltas.indexOf('signature_delta')).toBeLessThan(deltas.indexOf('text_delta'));
    const thinking = final.content[0] as { type: string; thinking: string; signature: string };
    expect(thinking.type).toBe('thinking');
    expect(thinking.thinking).toBe('Thinking (modeltape FakeProvider, call 0): I will answer in text.');
    expect(thinking.signature).toMatch(/^fake-signature-/);
    expect(final.content[1]).toEqual({ type: 'text', text: 'Forty-two.' });
  });

  test('the documented magic string gets redacted_thinking, which the fake accepts back', async () => {
    const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' }).willSay('Done.');
    clients = await clientsFor(fake, transport);
    const trigger = 'ANTHROPIC_MAGIC_STRING_TRIGGER_REDACTED_THINKING_46C9A13E193C177646C7398A98432ECCCE4C1253D5E2D82641AC0E52CC2876CB';
    const request = {
      model: 'claude-opus-4-8',
      max_tokens: 2048,
      thinking: { type: 'enabled' as const, budget_tokens: 1024 },
      tools: rawTools,
      messages: [{ role: 'user' as const, content: `Weather in Paris? ${trigger}` }],
    };
    const first = await clients.anthropic.messages.stream(request).finalMessage();
    expect(first.content[0]).toMatchObject({ type: 'redacted_thinking', data: expect.stringMatching(/^fake-redacted-thinking-/) });
    const use = first.content.find((block) => block.type === 'tool_use')!;
    const second = await clients.anthropic.messages.create({
      ...request,
      messages: [
        ...request.messages,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Rain' }] },
      ],
    });
    expect(second.content.at(-1)).toEqual({ type: 'text', text: 'Done.' });
  });

  test('a tool-loop turn that drops the thinking block is refused with the real message', async () => {
    const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' }).willSay('Never sent.');
    clients = await clientsFor(fake, transport);
    const request = {
      model: 'claude-opus-4-8',
      max_tokens: 2048,
      thinking: { type: 'enabled' as const, budget_tokens: 1024 },
      tools: rawTools,
      messages: [{ role: 'user' as const, content: 'Weather in Paris?' }],
    };
    const first = await clients.anthropic.messages.create(request);
    const use = first.content.find((block) => block.type === 'tool_use')!;
    const error = (await clients.anthropic.messages
      .create({
        ...request,
        messages: [
          ...request.messages,
          { role: 'assistant', content: first.content.filter((block) => block.type !== 'thinking') },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Rain' }] },
        ],
      })
      .catch((caught: unknown) => caught)) as InstanceType<typeof Anthropic.BadRequestError>;
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error.message).toContain(
      'messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a final `assistant` message must start with a thinking block',
    );
    expect(fake.asked()).toHaveLength(1);
  });

  test('a thinking block the fake did not sign is refused as an invalid signature', async () => {
    const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' });
    clients = await clientsFor(fake, transport);
    const request = {
      model: 'claude-opus-4-8',
      max_tokens: 2048,
      thinking: { type: 'enabled' as const, budget_tokens: 1024 },
      tools: rawTools,
      messages: [{ role: 'user' as const, content: 'Weather in Paris?' }],
    };
    const first = await clients.anthropic.messages.create(request);
    const use = first.content.find((block) => block.type === 'tool_use')!;
    const edited = first.content.map((block) => (block.type === 'thinking' ? { ...block, thinking: `${block.thinking} (edited)` } : block));
    const error = (await clients.anthropic.messages
      .create({
        ...request,
        messages: [
          ...request.messages,
          { role: 'assistant', content: edited },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'Rain' }] },
        ],
      })
      .catch((caught: unknown) => caught)) as { status: number; message: string };
    expect(error.status).toBe(400);
    expect(error.message).toContain('messages.1.content.0: Invalid `signature` in `thinking` block');
  });

  test('thinking refusals: the budget bounds, temperature, top_k and forced tool use', async () => {
    const fake = new FakeProvider();
    clients = await clientsFor(fake, transport);
    const base = { model: 'claude-opus-4-8', messages: [{ role: 'user' as const, content: 'Hi' }] };
    const tools = rawTools;
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        { max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 512 } },
        'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024',
      ],
      [{ max_tokens: 1024, thinking: { type: 'enabled', budget_tokens: 1024 } }, '`max_tokens` must be greater than `thinking.budget_tokens`'],
      [
        { max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 1024 }, temperature: 0.2 },
        '`temperature` may only be set to 1 when thinking is enabled',
      ],
      [{ max_tokens: 4096, thinking: { type: 'adaptive' }, top_k: 5 }, '`top_k` must be unset when thinking is enabled'],
      [
        { max_tokens: 4096, thinking: { type: 'adaptive' }, tools, tool_choice: { type: 'any' } },
        'Thinking may not be enabled when tool_choice forces tool use.',
      ],
    ];
    for (const [fields, expected] of cases) {
      const error = (await clients.anthropic.messages
        .create({ ...base, ...fields } as unknown as Anthropic.MessageCreateParamsNonStreaming)
        .catch((caught: unknown) => caught)) as { status: number; message: string };
      expect([error.status, error.message]).toEqual([400, expect.stringContaining(expected)]);
    }
    // temperature 1 is what thinking runs at, and is accepted (SDK 1.14's types no longer list temperature).
    await clients.anthropic.messages.create({
      ...base,
      max_tokens: 4096,
      thinking: { type: 'enabled', budget_tokens: 1024 },
      temperature: 1,
    } as unknown as Anthropic.MessageCreateParamsNonStreaming);
    expect(fake.callCount).toBe(cases.length + 1);
    expect(fake.asked()).toHaveLength(1);
  });

  test('ai with @ai-sdk/anthropic and providerOptions.anthropic.thinking passes the thinking block back and the tool loop completes', async () => {
    const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' }).willSay('It rains in Paris.');
    clients = await clientsFor(fake, transport);
    const ran: string[] = [];
    const result = await generateText({
      model: clients.vercelAnthropic('claude-opus-4-8'),
      prompt: 'Weather in Paris?',
      maxRetries: 0,
      stopWhen: stepCountIs(3),
      providerOptions: { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } },
      tools: {
        get_weather: tool({
          description: 'Weather for a city',
          inputSchema: jsonSchema<{ city: string }>(weatherSchema),
          execute: ({ city }) => {
            ran.push(city);
            return `Rain in ${city}`;
          },
        }),
      },
    });
    expect(ran).toEqual(['Paris']);
    expect(result.text).toBe('It rains in Paris.');
    expect(result.steps[0]!.reasoningText).toBe('Thinking (modeltape FakeProvider, call 0): I will call get_weather.');
    // The second request carried the signed thinking block back, first in the assistant turn.
    const sent = fake.calls()[1]!.body as { messages: Array<{ role: string; content: Array<{ type: string; signature?: string }> }> };
    const assistant = sent.messages.find((message) => message.role === 'assistant')!;
    expect(assistant.content[0]).toMatchObject({ type: 'thinking', signature: expect.stringMatching(/^fake-signature-/) });
    fake.assertConsumed();
  });
});
