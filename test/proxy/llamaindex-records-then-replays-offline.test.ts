import { Anthropic, AnthropicAgent, AnthropicSession } from '@llamaindex/anthropic';
import { tool } from '@llamaindex/core/tools';
import { OpenAI, OpenAIAgent } from '@llamaindex/openai';
import { afterEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { FakeProvider, type FakeServer } from 'modeltape/fake-provider';
import { startProxy, type RunningProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { fakeAnthropicKey, fakeOpenAiKey } from '../support/fake-keys.js';
import { tempDir } from '../support/temp-dir.js';

const weather = tool({
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => `rain in ${city}`,
});

async function streamed(chunks: AsyncIterable<{ delta: string }>): Promise<string> {
  let text = '';
  for await (const chunk of chunks) text += chunk.delta;
  return text;
}

/** A chat, a stream and an agent step that runs a tool: four requests. */
async function openAiScenario(llm: OpenAI) {
  const chat = (await llm.chat({ messages: [{ role: 'user', content: 'Say hello' }] })).message.content;
  const stream = await streamed(await llm.chat({ messages: [{ role: 'user', content: 'Tell me a joke' }], stream: true }));
  const agent = String((await new OpenAIAgent({ llm, tools: [weather] }).chat({ message: 'Weather in Paris?' })).message.content);
  return { chat, stream, agent };
}

async function anthropicScenario(llm: Anthropic) {
  const chat = (await llm.chat({ messages: [{ role: 'user', content: 'Say hello' }] })).message.content;
  const stream = await streamed(await llm.chat({ messages: [{ role: 'user', content: 'Tell me a joke' }], stream: true }));
  const agent = (await new AnthropicAgent({ llm, tools: [weather] }).chat({ message: 'Weather in Paris?' })).message.content;
  return { chat, stream, agent };
}

function scriptedFake(): FakeProvider {
  return new FakeProvider()
    .willSay('Hello.')
    .willSay('A joke, in pieces.', { chunks: { size: 3 } })
    .willCallTool('get_weather', { city: 'Paris' })
    .endTurn()
    .willSay('It rains in Paris.');
}

describe('LlamaIndex TS through the proxy', () => {
  const dir = tempDir();
  let upstream: FakeServer | undefined;
  let proxy: RunningProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    await upstream?.close();
    upstream = undefined;
  });

  test('@llamaindex/openai records a chat, a stream and a tool step from the fake, then replays them strictly with 0 upstream connections', async () => {
    const tape = `${dir}/llamaindex-openai.jsonl`;
    const fake = scriptedFake();
    upstream = await fake.listen({ port: 0 });
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: upstream.url }, log: () => {} });
    const recorded = await openAiScenario(new OpenAI({ model: 'gpt-4o', apiKey: fakeOpenAiKey(), baseURL: proxy.baseUrls.openai, maxRetries: 0 }));
    expect((await proxy.close()).recorded).toBe(4);
    fake.assertConsumed();
    await upstream.close();
    upstream = undefined;
    expect(recorded).toEqual({ chat: 'Hello.', stream: 'A joke, in pieces.', agent: 'It rains in Paris.' });

    const { exchanges } = loadTape(tape);
    expect(exchanges.map(({ exchange }) => [exchange.source, exchange.request.path, exchange.response.stream?.format ?? 'body'])).toEqual([
      ['fake', '/v1/chat/completions', 'body'],
      ['fake', '/v1/chat/completions', 'sse'],
      ['fake', '/v1/chat/completions', 'body'],
      ['fake', '/v1/chat/completions', 'body'],
    ]);

    proxy = await startProxy({ tape, log: () => {} });
    const replayed = await openAiScenario(new OpenAI({ model: 'gpt-4o', apiKey: 'another-fake-key', baseURL: proxy.baseUrls.openai, maxRetries: 0 }));
    const summary = await proxy.close();
    proxy = undefined;
    expect(replayed).toEqual(recorded);
    expect(summary).toMatchObject({ hits: 4, misses: 0, recorded: 0, passthrough: 0, upstreamConnections: 0 });
  });

  test('@llamaindex/anthropic records a chat, a stream and a tool step from the fake, then replays them strictly with 0 upstream connections', async () => {
    const tape = `${dir}/llamaindex-anthropic.jsonl`;
    const fake = scriptedFake();
    upstream = await fake.listen({ port: 0 });
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { anthropic: upstream.url }, log: () => {} });
    const client = (baseURL: string, apiKey: string) =>
      new Anthropic({ model: 'claude-sonnet-4-5', maxRetries: 0, session: new AnthropicSession({ apiKey, baseURL, maxRetries: 0 }) });
    const recorded = await anthropicScenario(client(proxy.baseUrls.anthropic, fakeAnthropicKey()));
    expect((await proxy.close()).recorded).toBe(4);
    fake.assertConsumed();
    await upstream.close();
    upstream = undefined;
    expect(recorded).toEqual({ chat: [{ type: 'text', text: 'Hello.' }], stream: 'A joke, in pieces.', agent: [{ type: 'text', text: 'It rains in Paris.' }] });
    expect(loadTape(tape).exchanges.map(({ exchange }) => exchange.response.stream?.format ?? 'body')).toEqual(['body', 'sse', 'body', 'body']);

    proxy = await startProxy({ tape, log: () => {} });
    const replayed = await anthropicScenario(client(proxy.baseUrls.anthropic, 'another-fake-key'));
    const summary = await proxy.close();
    proxy = undefined;
    expect(replayed).toEqual(recorded);
    expect(summary).toMatchObject({ hits: 4, misses: 0, recorded: 0, passthrough: 0, upstreamConnections: 0 });
  });
});
