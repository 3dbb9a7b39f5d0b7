import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { clientsFor, TRANSPORTS, type FakeClients } from '../support/fake-clients.js';
import { validateAgainstSpec } from '../support/spec-validator.js';

// `POST /v1/messages/count_tokens` and `GET /v1/models` with Anthropic headers, through the
// unmodified @anthropic-ai/sdk, over the fake's fetch and over HTTP, checked against the spec.

const weatherSchema = { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] };

describe.each(TRANSPORTS)('Anthropic count_tokens and models, over %s', (transport) => {
  let clients: FakeClients | undefined;
  afterEach(async () => {
    await clients?.close();
    clients = undefined;
  });

  test('messages.countTokens counts what messages.create bills as input_tokens, with no max_tokens', async () => {
    const fake = new FakeProvider().willSay('Rain.');
    clients = await clientsFor(fake, transport);
    const request = {
      model: 'claude-opus-4-8',
      system: 'Be brief.',
      tools: [{ name: 'get_weather', description: 'Weather for a city', input_schema: weatherSchema }],
      messages: [{ role: 'user' as const, content: 'Weather in Paris?' }],
    };
    const counted = await clients.anthropic.messages.countTokens(request);
    expect(validateAgainstSpec('anthropic', 'CountMessageTokensResponse', counted).errors).toEqual([]);
    const message = await clients.anthropic.messages.create({ ...request, max_tokens: 64 });
    expect(counted.input_tokens).toBe(message.usage.input_tokens);
    expect(counted.input_tokens).toBeGreaterThan(10);
    // A count is not a turn: the script and asked() hold only the create.
    expect(fake.asked()).toHaveLength(1);
    expect(fake.calls().map((call) => call.api)).toEqual(['anthropic-count-tokens', 'anthropic-messages']);
    fake.assertConsumed();
  });

  test('countTokens refuses what Messages refuses in the conversation, the tools and thinking', async () => {
    const fake = new FakeProvider();
    clients = await clientsFor(fake, transport);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ messages: [] }, 'messages: at least one message is required'],
      [{ messages: [{ role: 'system', content: 'Hi' }] }, "messages.0.role: Input should be 'user' or 'assistant'"],
      [
        { messages: [{ role: 'user', content: 'Hi' }], tools: [{ name: 'bad name', input_schema: weatherSchema }] },
        "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
      ],
      [
        { messages: [{ role: 'user', content: 'Hi' }], thinking: { type: 'enabled', budget_tokens: 100 } },
        'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024',
      ],
    ];
    for (const [fields, expected] of cases) {
      const error = (await clients.anthropic.messages
        .countTokens({ model: 'claude-opus-4-8', ...fields } as unknown as Anthropic.MessageCountTokensParams)
        .catch((caught: unknown) => caught)) as InstanceType<typeof Anthropic.BadRequestError>;
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      expect(error.message).toContain(expected);
    }
    expect(fake.callCount).toBe(cases.length);
  });

  test('models.list lists Anthropic-shaped fake models, page by page, and models.retrieve describes one', async () => {
    const fake = new FakeProvider();
    clients = await clientsFor(fake, transport);
    const firstPage = await clients.anthropic.models.list({ limit: 2 });
    expect(firstPage.data.map((model) => model.id)).toEqual(['fake-claude-opus-4-8', 'fake-claude-sonnet-4-5']);
    expect(firstPage.has_more).toBe(true);
    const body = (await clients.anthropic.models
      .list({ limit: 2 })
      .asResponse()
      .then((response) => response.json())) as unknown;
    expect(validateAgainstSpec('anthropic', 'ListResponse_ModelInfo_', body).errors).toEqual([]);
    const ids: string[] = [];
    for await (const model of clients.anthropic.models.list({ limit: 2 })) ids.push(model.id);
    expect(ids).toEqual(['fake-claude-opus-4-8', 'fake-claude-sonnet-4-5', 'fake-claude-haiku-4-5']);
    for (const model of firstPage.data) expect(model).toMatchObject({ type: 'model', display_name: expect.stringContaining('modeltape fake') });
    const one = await clients.anthropic.models.retrieve('fake-claude-haiku-4-5');
    expect(one.id).toBe('fake-claude-haiku-4-5');
    expect(validateAgainstSpec('anthropic', 'ModelInfo', one).errors).toEqual([]);
    // Nothing OpenAI-shaped reaches an Anthropic client.
    expect(JSON.stringify(firstPage.data)).not.toContain('gpt');
    expect(fake.calls({ latest: true }).every((call) => call.api === 'anthropic-models')).toBe(true);
  });
});
