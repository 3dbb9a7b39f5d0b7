import OpenAI from 'openai';
import { afterEach, describe, expect, test } from 'vitest';
import { FakeProvider, type FakeServer } from 'modeltape/fake-provider';
import { startProxy, type RunningProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { tempDir } from '../support/temp-dir.js';

// A conversation exchange and the stored-response routes, as the openai SDK calls them.
async function scenario(client: OpenAI) {
  const conversation = await client.conversations.create({ metadata: { topic: 'names' } });
  const first = await client.responses.create({ model: 'gpt-4o', input: 'I am Ada.', conversation: conversation.id });
  const second = await client.responses.create({ model: 'gpt-4o', input: 'Who am I?', conversation: conversation.id });
  const retrieved = await client.responses.retrieve(second.id);
  const inputItems = await client.responses.inputItems.list(second.id);
  const items = await client.conversations.items.list(conversation.id, { order: 'asc' });
  await client.responses.delete(first.id);
  return { conversation, first, second, retrieved, inputItems: inputItems.data, items: items.data };
}

describe('the proxy records and replays the Responses API stored state and a conversation', () => {
  let upstream: FakeServer | undefined;
  let proxy: RunningProxy | undefined;
  const dir = tempDir();
  afterEach(async () => {
    await proxy?.close();
    await upstream?.close();
  });

  test('GET /v1/responses/{id}, input_items, DELETE and the conversation routes replay as recorded with the upstream gone', async () => {
    const fake = new FakeProvider().willSay('Hello, Ada.').willSay('You are Ada.');
    upstream = await fake.listen();
    const tape = `${dir}/responses-state.jsonl`;
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: upstream.url } });
    const recorded = await scenario(new OpenAI({ apiKey: 'sk-fake-recording', baseURL: proxy.baseUrls.openai, maxRetries: 0 }));
    const recordSummary = await proxy.close();
    proxy = undefined;
    expect(recordSummary.recorded).toBe(7);
    expect(recorded.retrieved.output_text).toBe('You are Ada.');
    expect(recorded.items.map((item) => item.type)).toEqual(['message', 'message', 'message', 'message']);
    expect(fake.calls().map((call) => `${call.method} ${call.api}`)).toEqual([
      'POST openai-conversations',
      'POST openai-responses',
      'POST openai-responses',
      'GET openai-responses-stored',
      'GET openai-responses-stored',
      'GET openai-conversations',
      'DELETE openai-responses-stored',
    ]);
    await upstream.close();
    upstream = undefined;

    const { exchanges } = loadTape(tape);
    expect(exchanges.map(({ exchange }) => `${exchange.request.method} ${exchange.request.path.split('?')[0]}`)).toEqual([
      'POST /v1/conversations',
      'POST /v1/responses',
      'POST /v1/responses',
      `GET /v1/responses/${recorded.second.id}`,
      `GET /v1/responses/${recorded.second.id}/input_items`,
      `GET /v1/conversations/${recorded.conversation.id}/items`,
      `DELETE /v1/responses/${recorded.first.id}`,
    ]);

    proxy = await startProxy({ tape, mode: 'replay' });
    const replayed = await scenario(new OpenAI({ apiKey: 'sk-fake-replaying', baseURL: proxy.baseUrls.openai, maxRetries: 0 }));
    const replaySummary = await proxy.close();
    proxy = undefined;
    expect(replayed).toEqual(recorded);
    expect(replaySummary).toMatchObject({ hits: 7, misses: 0, recorded: 0, upstreamConnections: 0 });
  });
});
