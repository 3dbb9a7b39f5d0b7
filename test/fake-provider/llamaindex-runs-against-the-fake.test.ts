import { Anthropic, AnthropicAgent, AnthropicSession } from '@llamaindex/anthropic';
import { tool } from '@llamaindex/core/tools';
import { OpenAI, OpenAIAgent, OpenAIEmbedding } from '@llamaindex/openai';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { FakeProvider } from 'modeltape/fake-provider';
import { closeAfterEach } from '../support/close-after-each.js';

// LlamaIndex TS (@llamaindex/openai 0.4.23, @llamaindex/anthropic 0.3.27, the last releases, marked
// deprecated on npm) brings its own openai 5 and @anthropic-ai/sdk 0.58, nested under each package.
const weather = tool({
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => `rain in ${city}`,
});

const ASK = [{ role: 'user' as const, content: 'Hi' }];

async function streamed(chunks: AsyncIterable<{ delta: string }>): Promise<string> {
  let text = '';
  for await (const chunk of chunks) text += chunk.delta;
  return text;
}

describe('LlamaIndex TS against the fake', () => {
  const running = closeAfterEach();

  test('@llamaindex/openai over fake.fetch: a chat, a stream and an agent step that runs a tool, as scripted', async () => {
    const fake = new FakeProvider()
      .willSay('Hello from the fake.')
      .willSay('Streamed words here.', { chunks: { size: 4 } })
      .willCallTool('get_weather', { city: 'Paris' })
      .endTurn()
      .willSay('It rains in Paris.');
    const llm = new OpenAI({ model: 'gpt-4o', apiKey: 'fake-key', maxRetries: 0, additionalSessionOptions: { fetch: fake.fetch } });

    const chat = await llm.chat({ messages: ASK });
    expect(chat.message).toMatchObject({ role: 'assistant', content: 'Hello from the fake.' });
    expect(await streamed(await llm.chat({ messages: ASK, stream: true }))).toBe('Streamed words here.');
    const answer = await new OpenAIAgent({ llm, tools: [weather] }).chat({ message: 'Weather in Paris?' });
    expect(String(answer.message.content)).toBe('It rains in Paris.');

    fake.assertConsumed();
    expect(fake.calls().map((call) => [call.api, call.status])).toEqual(Array(4).fill(['openai-chat', 200]));
    const turns = fake.asked();
    expect(turns[2]!.tools.map((offered) => offered.name)).toEqual(['get_weather']);
    expect(turns[3]!.exchanges).toEqual([{ toolCallId: 'fake-call-0', name: 'get_weather', result: 'rain in Paris', isError: false }]);
  });

  test('@llamaindex/openai unscripted: the agent calls the offered tool first, then gets text; embeddings answer', async () => {
    const fake = new FakeProvider();
    const llm = new OpenAI({ model: 'gpt-4o', apiKey: 'fake-key', maxRetries: 0, additionalSessionOptions: { fetch: fake.fetch } });
    expect((await llm.chat({ messages: ASK })).message.content).toMatch(/fake answer/);
    const answer = await new OpenAIAgent({ llm, tools: [weather] }).chat({ message: 'Weather?' });
    expect(String(answer.message.content)).toMatch(/fake answer/);
    const embedding = new OpenAIEmbedding({ model: 'text-embedding-3-small', apiKey: 'fake-key', additionalSessionOptions: { fetch: fake.fetch } });
    expect(await embedding.getTextEmbedding('hi')).toHaveLength(8);
    expect(fake.calls().map((call) => call.api)).toEqual(['openai-chat', 'openai-chat', 'openai-chat', 'openai-embeddings']);
    expect(fake.asked()[2]!.exchanges.map((exchange) => exchange.name)).toEqual(['get_weather']);
    expect(fake.problems()).toEqual([]);
  });

  test('@llamaindex/anthropic over fake.listen() by baseURL: a chat, a stream and an agent step, as scripted', async () => {
    const fake = new FakeProvider()
      .willSay('Bonjour.')
      .willSay('Streamed bonjour here.', { chunks: { size: 3 } })
      .willCallTool('get_weather', { city: 'Paris' })
      .endTurn()
      .willSay('Il pleut à Paris.');
    const server = running(await fake.listen({ port: 0 }));
    const llm = new Anthropic({
      model: 'claude-sonnet-4-5',
      maxRetries: 0,
      session: new AnthropicSession({ apiKey: 'fake-key', baseURL: server.baseUrls.anthropic, maxRetries: 0 }),
    });

    expect((await llm.chat({ messages: ASK })).message.content).toEqual([{ type: 'text', text: 'Bonjour.' }]);
    expect(await streamed(await llm.chat({ messages: ASK, stream: true }))).toBe('Streamed bonjour here.');
    const answer = await new AnthropicAgent({ llm, tools: [weather] }).chat({ message: 'Weather in Paris?' });
    expect(answer.message.content).toEqual([{ type: 'text', text: 'Il pleut à Paris.' }]);

    fake.assertConsumed();
    expect(fake.calls().map((call) => [call.api, call.status])).toEqual(Array(4).fill(['anthropic-messages', 200]));
    expect(fake.asked()[3]!.exchanges).toEqual([{ toolCallId: 'fake-toolu-0', name: 'get_weather', result: 'rain in Paris', isError: false }]);
  });

  test('@llamaindex/anthropic unscripted: the agent step reaches the tool, then text', async () => {
    const fake = new FakeProvider();
    const llm = new Anthropic({
      model: 'claude-sonnet-4-5',
      maxRetries: 0,
      session: new AnthropicSession({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 }),
    });
    const answer = await new AnthropicAgent({ llm, tools: [weather] }).chat({ message: 'Weather?' });
    expect(answer.message.content).toEqual([{ type: 'text', text: expect.stringMatching(/fake answer/) }]);
    expect(fake.asked().map((turn) => turn.exchanges.map((exchange) => exchange.name))).toEqual([[], ['get_weather']]);
    expect(fake.problems()).toEqual([]);
  });
});
