import OpenAI from 'openai';
import { Agent, OpenAIResponsesModel, run, setTracingDisabled, tool } from '@openai/agents';
import { z } from 'zod';
import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { validateAgainstSpec } from '../support/spec-validator.js';

function clientOf(fake: FakeProvider): OpenAI {
  return new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
}

async function raw(fake: FakeProvider, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const answer = await fake.fetch(`https://api.openai.com${path}`, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: answer.status, json: (await answer.json()) as Record<string, unknown> };
}

describe('the Conversations API and the conversation parameter work as the API does', () => {
  test('create, retrieve, update and delete a conversation, as the spec types them', async () => {
    const fake = new FakeProvider();
    const openai = clientOf(fake);
    const empty = await openai.conversations.create();
    expect(empty).toEqual({ id: 'fake-conv-0', object: 'conversation', created_at: 1767225600, metadata: {} });
    const made = await openai.conversations.create({ metadata: { topic: 'weather' }, items: [{ type: 'message', role: 'user', content: 'Hello' }] });
    expect(validateAgainstSpec('openai', 'ConversationResource', JSON.parse(JSON.stringify(made))).errors).toEqual([]);
    expect((await openai.conversations.retrieve(made.id)).metadata).toEqual({ topic: 'weather' });
    const updated = await openai.conversations.update(made.id, { metadata: { topic: 'rain' } });
    expect(updated.metadata).toEqual({ topic: 'rain' });
    const deleted = await openai.conversations.delete(made.id);
    expect(deleted).toEqual({ id: made.id, object: 'conversation.deleted', deleted: true });
    expect(validateAgainstSpec('openai', 'DeletedConversationResource', JSON.parse(JSON.stringify(deleted))).errors).toEqual([]);
    const gone = await openai.conversations.retrieve(made.id).catch((caught: unknown) => caught);
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
    expect((gone as Error).message).toContain(`Conversation with id '${made.id}' not found.`);
    const tooMany = await raw(fake, 'POST', '/v1/conversations', { items: Array.from({ length: 21 }, () => ({ role: 'user', content: 'x' })) });
    expect(tooMany.status).toBe(400);
    expect((tooMany.json.error as { code: string }).code).toBe('array_above_max_length');
  });

  test('items are added, listed (newest first, paged), retrieved and deleted', async () => {
    const fake = new FakeProvider();
    const openai = clientOf(fake);
    const conversation = await openai.conversations.create({ items: [{ type: 'message', role: 'user', content: 'First' }] });
    const added = await openai.conversations.items.create(conversation.id, {
      items: [
        { type: 'message', role: 'assistant', content: 'Second' },
        { type: 'message', role: 'user', content: 'Third' },
      ],
    });
    expect(added.data.map((item) => item.id)).toEqual(['fake-item-1', 'fake-item-2']);
    expect(validateAgainstSpec('openai', 'ConversationItemList', JSON.parse(JSON.stringify(added))).errors).toEqual([]);
    const listed = await raw(fake, 'GET', `/v1/conversations/${conversation.id}/items`);
    expect((listed.json.data as Array<{ id: string }>).map((item) => item.id)).toEqual(['fake-item-2', 'fake-item-1', 'fake-item-0']);
    expect(validateAgainstSpec('openai', 'ConversationItemList', listed.json).errors).toEqual([]);
    const ids: string[] = [];
    for await (const item of openai.conversations.items.list(conversation.id, { order: 'asc', limit: 2 })) ids.push(item.id!);
    expect(ids).toEqual(['fake-item-0', 'fake-item-1', 'fake-item-2']);
    const second = await openai.conversations.items.retrieve('fake-item-1', { conversation_id: conversation.id });
    expect(second).toMatchObject({
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'Second', annotations: [], logprobs: [] }],
    });
    expect(validateAgainstSpec('openai', 'ConversationItem', JSON.parse(JSON.stringify(second))).errors).toEqual([]);
    const after = await openai.conversations.items.delete('fake-item-1', { conversation_id: conversation.id });
    expect(after.id).toBe(conversation.id);
    const left = await raw(fake, 'GET', `/openai/v1/conversations/${conversation.id}/items?order=asc`);
    expect((left.json.data as Array<{ id: string }>).map((item) => item.id)).toEqual(['fake-item-0', 'fake-item-2']);
    const missing = await openai.conversations.items.retrieve('fake-item-1', { conversation_id: conversation.id }).catch((caught: unknown) => caught);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
  });

  test('a two-turn conversation: each turn reads the items before its input, and its input and output are appended', async () => {
    const fake = new FakeProvider().willSay('Hello, Ada.').willSay('Your name is Ada.');
    const openai = clientOf(fake);
    const conversation = await openai.conversations.create({ items: [{ type: 'message', role: 'developer', content: 'Be brief.' }] });
    const first = await openai.responses.create({ model: 'gpt-4o', input: 'I am Ada.', conversation: conversation.id });
    expect(first.conversation).toEqual({ id: conversation.id });
    expect(validateAgainstSpec('openai', 'Response', JSON.parse(JSON.stringify(first))).errors).toEqual([]);
    const stream = await openai.responses.create({ model: 'gpt-4o', input: 'Who am I?', conversation: { id: conversation.id }, stream: true });
    let text = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') text += event.delta;
    expect(text).toBe('Your name is Ada.');
    const turn = fake.asked()[1]!;
    expect(turn.system).toBe('Be brief.');
    expect(turn.messages.map((message) => `${message.role}: ${message.text}`)).toEqual(['user: I am Ada.', 'assistant: Hello, Ada.', 'user: Who am I?']);
    const items = await raw(fake, 'GET', `/v1/conversations/${conversation.id}/items?order=asc`);
    const shown = (items.json.data as Array<{ role: string; content: Array<{ text: string }> }>).map((item) => `${item.role}: ${item.content[0]!.text}`);
    expect(shown).toEqual(['developer: Be brief.', 'user: I am Ada.', 'assistant: Hello, Ada.', 'user: Who am I?', 'assistant: Your name is Ada.']);
    expect(validateAgainstSpec('openai', 'ConversationItemList', items.json).errors).toEqual([]);
  });

  test('conversation with previous_response_id is a 400, and an unknown conversation a 404, before any turn', async () => {
    const fake = new FakeProvider().willSay('Hello.');
    const openai = clientOf(fake);
    const first = await openai.responses.create({ model: 'gpt-4o', input: 'Hi' });
    const conversation = await openai.conversations.create();
    const both = await openai.responses
      .create({ model: 'gpt-4o', input: 'more', conversation: conversation.id, previous_response_id: first.id })
      .catch((caught: unknown) => caught);
    expect(both).toBeInstanceOf(OpenAI.BadRequestError);
    expect((both as Error).message).toContain("'previous_response_id' or 'conversation'");
    const unknown = await openai.responses.create({ model: 'gpt-4o', input: 'more', conversation: 'conv_unknown' }).catch((caught: unknown) => caught);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    expect((unknown as Error).message).toContain("Conversation with id 'conv_unknown' not found.");
    expect(fake.asked()).toHaveLength(1);
  });

  test('conversations are bounded by historyLimit, and one dropped says so', async () => {
    const fake = new FakeProvider({ historyLimit: 1 });
    const openai = clientOf(fake);
    const first = await openai.conversations.create();
    await openai.conversations.create();
    const dropped = await openai.conversations.retrieve(first.id).catch((caught: unknown) => caught);
    expect(dropped).toBeInstanceOf(OpenAI.NotFoundError);
    expect((dropped as Error).message).toContain('dropped');
    expect((dropped as Error).message).toContain('historyLimit');
  });

  test('the OpenAI Agents SDK runs a tool loop twice on one conversation (conversationId)', async () => {
    setTracingDisabled(true);
    const fake = new FakeProvider()
      .willCallTool('get_weather', { city: 'Paris' })
      .willSay('It rains in Paris.')
      .willCallTool('get_weather', { city: 'Lyon' })
      .willSay('It is sunny in Lyon.');
    const client = clientOf(fake);
    const agent = new Agent({
      name: 'weather',
      instructions: 'Answer about the weather.',
      model: new OpenAIResponsesModel(client, 'gpt-4o'),
      tools: [
        tool({
          name: 'get_weather',
          description: 'The weather in a city',
          parameters: z.object({ city: z.string() }),
          execute: async ({ city }) => (city === 'Paris' ? 'rain' : 'sun'),
        }),
      ],
    });
    const conversation = await client.conversations.create();
    const paris = await run(agent, 'Weather in Paris?', { conversationId: conversation.id });
    expect(paris.finalOutput).toBe('It rains in Paris.');
    const lyon = await run(agent, 'And in Lyon?', { conversationId: conversation.id });
    expect(lyon.finalOutput).toBe('It is sunny in Lyon.');
    const turns = fake.asked();
    expect(turns).toHaveLength(4);
    expect(turns[3]!.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'tool']);
    expect(turns[3]!.exchanges[0]).toMatchObject({ name: 'get_weather', result: 'sun' });
    const sent = fake.calls().filter((call) => call.api === 'openai-responses');
    expect(sent.map((call) => (call.body as { conversation?: string }).conversation)).toEqual([
      conversation.id,
      conversation.id,
      conversation.id,
      conversation.id,
    ]);
    expect(sent.every((call) => (call.body as { previous_response_id?: string }).previous_response_id === undefined)).toBe(true);
    fake.assertConsumed();
  });
});
