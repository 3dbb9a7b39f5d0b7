import OpenAI from 'openai';
import { afterEach, describe, expect, test } from 'vitest';
import { FakeProvider, type FakeServer } from 'modeltape/fake-provider';
import { startProxy, type RunningProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { tempDir } from '../support/temp-dir.js';

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

/** A chat, a stream, a tool call, embeddings and the model list, as an app on Ollama's OpenAI-compatible /v1 makes them. */
async function scenario(client: OpenAI) {
  const plain = await client.chat.completions.create({ model: 'llama3.2', messages: [{ role: 'user', content: 'Say hello' }] });
  const stream = await client.chat.completions.create({ model: 'llama3.2', messages: [{ role: 'user', content: 'Count to three' }], stream: true });
  const deltas: string[] = [];
  for await (const chunk of stream) deltas.push(chunk.choices[0]?.delta.content ?? '');
  const tool = await client.chat.completions.create({ model: 'llama3.2', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [weatherTool] });
  const embedding = await client.embeddings.create({ model: 'nomic-embed-text', input: 'red' });
  const models = await client.models.list();
  return {
    text: plain.choices[0]!.message.content,
    model: plain.model,
    deltas,
    toolCalls: tool.choices[0]!.message.tool_calls,
    vectorLength: embedding.data[0]!.embedding.length,
    models: models.data.map((model) => model.id),
  };
}

/** The fake scripted for the scenario's three turns. */
function scriptedFake(): FakeProvider {
  return new FakeProvider().willSay('Hello from Ollama.').willSay('One, two, three.').willCallTool('get_weather', { city: 'Paris' });
}

describe("the openai SDK on Ollama's OpenAI-compatible /v1", () => {
  let fakeServer: FakeServer | undefined;
  let proxy: RunningProxy | undefined;
  const dir = tempDir();
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    await fakeServer?.close();
    fakeServer = undefined;
  });

  test('against the fake over HTTP at /ollama/v1: a chat, a stream, a tool call, embeddings and the local models', async () => {
    const fake = scriptedFake();
    fakeServer = await fake.listen({ port: 0 });
    const result = await scenario(new OpenAI({ apiKey: 'ollama', baseURL: `${fakeServer.url}/ollama/v1`, maxRetries: 0 }));
    expect(result.text).toBe('Hello from Ollama.');
    expect(result.model).toBe('fake-llama3.2');
    expect(result.deltas.join('')).toBe('One, two, three.');
    expect(result.toolCalls).toEqual([
      { id: expect.stringMatching(/^fake-/), type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    ]);
    expect(result.vectorLength).toBe(8);
    // Ollama's /v1/models lists its local models.
    expect(result.models).toEqual(['fake-llama3.2:latest', 'fake-qwen3:latest', 'fake-nomic-embed-text:latest']);
    expect(fake.calls().map((call) => `${call.method} ${call.path} ${call.api}`)).toEqual([
      'POST /ollama/v1/chat/completions openai-chat',
      'POST /ollama/v1/chat/completions openai-chat',
      'POST /ollama/v1/chat/completions openai-chat',
      'POST /ollama/v1/embeddings openai-embeddings',
      'GET /ollama/v1/models openai-models',
    ]);
    fake.assertConsumed();
  });

  test('through the proxy with an ollama upstream: records the /v1 exchanges, then replays them offline', async () => {
    const tape = `${dir}/ollama-v1.jsonl`;
    const fake = scriptedFake();
    fakeServer = await fake.listen({ port: 0 });
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { ollama: `${fakeServer.url}/ollama` } });
    const recorded = await scenario(new OpenAI({ apiKey: 'ollama', baseURL: `${proxy.url}/ollama/v1`, maxRetries: 0 }));
    const recordSummary = await proxy.close();
    proxy = undefined;
    expect(recordSummary.recorded).toBe(5);
    // The proxy forwarded each /v1 path under the upstream's base, unchanged.
    expect(fake.calls().map((call) => call.path)).toEqual([
      '/ollama/v1/chat/completions',
      '/ollama/v1/chat/completions',
      '/ollama/v1/chat/completions',
      '/ollama/v1/embeddings',
      '/ollama/v1/models',
    ]);
    await fakeServer.close();
    fakeServer = undefined;
    const { exchanges } = loadTape(tape);
    expect(exchanges.map(({ exchange }) => [exchange.upstream, exchange.request.path, exchange.response.stream?.format ?? 'body'])).toEqual([
      ['ollama', '/v1/chat/completions', 'body'],
      ['ollama', '/v1/chat/completions', 'sse'],
      ['ollama', '/v1/chat/completions', 'body'],
      ['ollama', '/v1/embeddings', 'body'],
      ['ollama', '/v1/models', 'body'],
    ]);

    proxy = await startProxy({ tape, mode: 'replay' });
    const replayed = await scenario(new OpenAI({ apiKey: 'ollama', baseURL: `${proxy.url}/ollama/v1`, maxRetries: 0 }));
    const replaySummary = await proxy.close();
    proxy = undefined;
    expect(replayed).toEqual(recorded);
    expect(replaySummary).toMatchObject({ hits: 5, misses: 0, upstreamConnections: 0 });
  });
});
