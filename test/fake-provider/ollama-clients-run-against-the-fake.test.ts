import { readFileSync } from 'node:fs';
import { generateObject, generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { Ollama, type Message, type Tool } from 'ollama';
import { createOllama } from 'ollama-ai-provider-v2';
import { afterEach, describe, expect, test } from 'vitest';
import { FakeProvider, failures } from 'modeltape/fake-provider';

const weatherParameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } as const;
// The `ollama` client's Tool type takes mutable arrays.
const weatherTool: Tool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather for a city', parameters: { ...weatherParameters, required: ['city'] } },
};
const citySchema = {
  type: 'object',
  properties: { city: { type: 'string' }, temperature: { type: 'number' } },
  required: ['city', 'temperature'],
  additionalProperties: false,
} as const;

// Real answers from ollama/ollama docs/api.md (see test/fixtures/PROVENANCE.md): the fake's
// objects carry the same fields, in the same order.
const realStream = readFileSync(new URL('../fixtures/samples/ollama/chat-stream-tool-call.ndjson', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as Record<string, unknown>);
const realAnswer = JSON.parse(readFileSync(new URL('../fixtures/samples/ollama/chat-tool-call.json', import.meta.url), 'utf8')) as Record<string, unknown>;

type Transport = 'fetch' | 'http' | 'http under /ollama';
const TRANSPORTS: Transport[] = ['fetch', 'http', 'http under /ollama'];

describe.each(TRANSPORTS)('the ollama clients against the fake, over %s', (transport) => {
  let servers: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const server of servers) await server.close();
    servers = [];
  });

  /** The `ollama` client and the Vercel provider, unmodified, pointed at the fake. */
  async function clientsFor(fake: FakeProvider): Promise<{ ollama: Ollama; vercel: ReturnType<typeof createOllama> }> {
    if (transport === 'fetch')
      return { ollama: new Ollama({ host: 'http://127.0.0.1:11434', fetch: fake.fetch }), vercel: createOllama({ fetch: fake.fetch }) };
    const server = await fake.listen({ port: 0 });
    servers.push(server);
    const host = transport === 'http' ? server.url : `${server.url}/ollama`;
    return { ollama: new Ollama({ host }), vercel: createOllama({ baseURL: `${host}/api` }) };
  }

  test('ollama: chat answers the scripted text with the fields and counts a real answer has', async () => {
    const fake = new FakeProvider({ now: () => Date.UTC(2026, 4, 1) }).willSay('Hello from the fake.');
    const { ollama } = await clientsFor(fake);
    const answer = await ollama.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'Hi' }] });
    expect(answer.message).toEqual({ role: 'assistant', content: 'Hello from the fake.' });
    expect(answer).toMatchObject({ model: 'fake-llama3.2', done: true, done_reason: 'stop' });
    expect(String(answer.created_at)).toBe('2026-05-01T00:00:00.000Z');
    expect(Object.keys(answer)).toEqual(Object.keys(realAnswer).concat(['total_duration', 'load_duration'].filter((key) => !(key in realAnswer))));
    for (const count of ['total_duration', 'load_duration', 'prompt_eval_count', 'prompt_eval_duration', 'eval_count', 'eval_duration'] as const)
      expect(answer[count], count).toBeGreaterThan(0);
    expect(fake.asked()[0]).toMatchObject({ provider: 'ollama', api: 'ollama-chat', stream: false, prompt: 'user: Hi' });
    fake.assertConsumed();
  });

  test('ollama: a streamed chat arrives as NDJSON pieces, then one done object with the counts', async () => {
    const fake = new FakeProvider().willSay('One, two, three.');
    const { ollama } = await clientsFor(fake);
    const parts = [];
    for await (const part of await ollama.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'Count' }], stream: true })) parts.push(part);
    expect(parts.map((part) => part.message.content)).toEqual(['One,', ' two,', ' three.', '']);
    expect(parts.map((part) => part.done)).toEqual([false, false, false, true]);
    expect(Object.keys(parts.at(-1)!)).toEqual(Object.keys(realStream[1]!));
    expect(Object.keys(parts[0]!)).toEqual(Object.keys(realStream[0]!));
    expect(parts.at(-1)!.eval_count).toBeGreaterThan(0);
    expect(fake.calls()[0]!.api).toBe('ollama-chat');
  });

  test('ollama: a body without stream streams, as Ollama does by default', async () => {
    const fake = new FakeProvider().willSay('Streamed by default.');
    const response = await fake.fetch('http://127.0.0.1:11434/api/chat', {
      method: 'POST',
      body: JSON.stringify({ model: 'llama3.2', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    // Marked fake, and deterministic: the same script gives the same bytes.
    expect(response.headers.get('x-modeltape-fake')).toBe('1');
    const text = await response.text();
    const again = await new FakeProvider().willSay('Streamed by default.').fetch('http://127.0.0.1:11434/ollama/api/chat', {
      method: 'POST',
      body: JSON.stringify({ model: 'llama3.2', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(await again.text()).toBe(text);
    const lines = text.trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(JSON.parse(lines[3]!)).toMatchObject({ done: true, done_reason: 'stop' });
    expect(fake.asked()[0]!.stream).toBe(true);
  });

  test('ollama: a tool round trip gets object arguments, streams the call whole, and the fake is told the result by tool_name', async () => {
    const fake = new FakeProvider().willCallTool('get_weather', { city: 'Tokyo' }).willSay('It is raining in Tokyo.');
    const { ollama } = await clientsFor(fake);
    const messages: Message[] = [{ role: 'user', content: 'What is the weather in Tokyo?' }];
    const parts = [];
    for await (const part of await ollama.chat({ model: 'llama3.2', messages, tools: [weatherTool], stream: true })) parts.push(part);
    const withCalls = parts.filter((part) => part.message.tool_calls !== undefined);
    expect(withCalls).toHaveLength(1);
    expect(withCalls[0]!.message.tool_calls).toEqual([{ id: 'fake-call-0', function: { index: 0, name: 'get_weather', arguments: { city: 'Tokyo' } } }]);
    // The real capture streams the call the same way: whole, in one done:false object.
    expect(Object.keys(withCalls[0]!.message)).toEqual(Object.keys(realStream[0]!.message as object));
    messages.push(withCalls[0]!.message, { role: 'tool', content: '{"rain":true}', tool_name: 'get_weather' });
    const second = await ollama.chat({ model: 'llama3.2', messages, tools: [weatherTool] });
    expect(second.message.content).toBe('It is raining in Tokyo.');
    const told = fake.asked()[1]!;
    expect(told.exchanges).toEqual([{ toolCallId: 'get_weather', name: 'get_weather', result: '{"rain":true}', isError: false }]);
    expect(told.messages[1]!.toolCalls).toEqual([{ id: 'fake-call-0', name: 'get_weather', arguments: { city: 'Tokyo' } }]);
    fake.assertConsumed();
  });

  test('ollama: format with a JSON Schema answers a value that fits it, and a scripted value that breaks it gets the 422', async () => {
    const fake = new FakeProvider().willAnswer({ city: 'Paris', temperature: 21 }).willAnswer({ city: 'Paris' });
    const { ollama } = await clientsFor(fake);
    const request = { model: 'llama3.2', messages: [{ role: 'user', content: 'Weather as JSON' }], format: citySchema };
    const answer = await ollama.chat(request);
    expect(JSON.parse(answer.message.content)).toEqual({ city: 'Paris', temperature: 21 });
    expect(fake.asked()[0]!.responseSchema).toMatchObject({ source: 'format', schema: citySchema });
    const refused = await ollama.chat(request).then(
      () => undefined,
      (error: unknown) => error as { status_code: number; error: string },
    );
    expect(refused?.status_code).toBe(422);
    expect(refused?.error).toContain('does not match the format schema');
    expect(refused?.error).toContain('temperature');
  });

  test('ollama: unscripted, a schema gets a generated value that fits it', async () => {
    const fake = new FakeProvider();
    const { ollama } = await clientsFor(fake);
    const answer = await ollama.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'Weather as JSON' }], format: citySchema });
    const value = JSON.parse(answer.message.content) as Record<string, unknown>;
    expect(Object.keys(value).sort()).toEqual(['city', 'temperature']);
    expect(typeof value.temperature).toBe('number');
  });

  test('ollama: generate answers in `response`, streamed and not', async () => {
    const fake = new FakeProvider().willSay('Blue, by Rayleigh scattering.').willSay('Because of Rayleigh scattering.');
    const { ollama } = await clientsFor(fake);
    const answer = await ollama.generate({ model: 'llama3.2', prompt: 'Why is the sky blue?', system: 'Be brief.' });
    expect(answer).toMatchObject({ model: 'fake-llama3.2', response: 'Blue, by Rayleigh scattering.', done: true, done_reason: 'stop' });
    expect(answer.eval_count).toBeGreaterThan(0);
    const pieces: string[] = [];
    for await (const part of await ollama.generate({ model: 'llama3.2', prompt: 'Why?', stream: true })) pieces.push(part.response ?? '');
    expect(pieces.join('')).toBe('Because of Rayleigh scattering.');
    expect(pieces.length).toBeGreaterThan(2);
    expect(fake.asked().map((turn) => [turn.api, turn.prompt])).toEqual([
      ['ollama-generate', 'system: Be brief.\nuser: Why is the sky blue?'],
      ['ollama-generate', 'user: Why?'],
    ]);
  });

  test('ollama: embed gives deterministic unit vectors; the legacy embeddings endpoint too; list shows fake models', async () => {
    const fake = new FakeProvider({ embeddingDimensions: 16 });
    const { ollama } = await clientsFor(fake);
    const first = await ollama.embed({ model: 'nomic-embed-text', input: ['red', 'blue'] });
    const again = await ollama.embed({ model: 'nomic-embed-text', input: 'red' });
    expect(first.embeddings).toHaveLength(2);
    expect(first.embeddings[0]).toHaveLength(16);
    expect(again.embeddings[0]).toEqual(first.embeddings[0]);
    expect(first.embeddings[1]).not.toEqual(first.embeddings[0]);
    expect(Math.hypot(...first.embeddings[0]!)).toBeCloseTo(1, 5);
    expect(first.model).toBe('fake-nomic-embed-text');
    expect(first.prompt_eval_count).toBeGreaterThan(0);
    const legacy = await ollama.embeddings({ model: 'nomic-embed-text', prompt: 'red' });
    expect(legacy.embedding).toEqual(first.embeddings[0]);
    const list = await ollama.list();
    expect(list.models.map((model) => model.name)).toEqual(['fake-llama3.2:latest', 'fake-qwen3:latest', 'fake-nomic-embed-text:latest']);
    expect(list.models[0]!.details.format).toBe('gguf');
    expect(fake.calls().map((call) => call.api)).toEqual(['ollama-embed', 'ollama-embed', 'ollama-embed', 'ollama-tags']);
  });

  test("ollama: a missing model gets Ollama's 400, a model the fake does not hold Ollama's 404", async () => {
    const fake = new FakeProvider();
    const { ollama } = await clientsFor(fake);
    const missing = await ollama
      .chat({ model: '', messages: [{ role: 'user', content: 'Hi' }] })
      .catch((error: unknown) => error as { status_code: number; error: string });
    expect(missing).toMatchObject({ status_code: 400, error: 'model is required' });
    const unknown = await ollama.show({ model: 'mistral' }).catch((error: unknown) => error as { status_code: number; error: string });
    expect(unknown).toMatchObject({ status_code: 404, error: "model 'mistral' not found" });
  });

  test('ai + ollama-ai-provider-v2: generateText runs a tool loop, scripted', async () => {
    const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' }).willSay('It rains in Paris.');
    const { vercel } = await clientsFor(fake);
    const seen: unknown[] = [];
    const result = await generateText({
      model: vercel('llama3.2'),
      prompt: 'Weather in Paris?',
      tools: {
        get_weather: tool({
          description: 'Weather for a city',
          inputSchema: jsonSchema<{ city: string }>(weatherParameters),
          execute: async (input) => {
            seen.push(input);
            return { rain: true };
          },
        }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(seen).toEqual([{ city: 'Paris' }]);
    expect(result.text).toBe('It rains in Paris.');
    expect(result.steps[0]!.finishReason).toBe('tool-calls');
    expect(result.totalUsage.inputTokens).toBeGreaterThan(0);
    // The provider sends tool results by tool_call_id: the fake pairs it with the call's id.
    expect(fake.asked()[1]!.exchanges).toEqual([{ toolCallId: 'fake-call-0', name: 'get_weather', result: '{"rain":true}', isError: false }]);
    fake.assertConsumed();
  });

  test("ai + ollama-ai-provider-v2: unscripted, a tool loop's first turn calls the first tool with arguments that fit", async () => {
    const fake = new FakeProvider();
    const { vercel } = await clientsFor(fake);
    const seen: Array<{ city: string }> = [];
    const result = await generateText({
      model: vercel('llama3.2'),
      prompt: 'Weather?',
      tools: {
        get_weather: tool({
          inputSchema: jsonSchema<{ city: string }>(weatherParameters),
          execute: async (input) => {
            seen.push(input);
            return 'sunny';
          },
        }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(seen).toHaveLength(1);
    expect(typeof seen[0]!.city).toBe('string');
    expect(result.text).toContain("modeltape's FakeProvider");
  });

  test('ai + ollama-ai-provider-v2: streamText streams the scripted text', async () => {
    const fake = new FakeProvider().willSay('Streaming through Vercel.');
    const { vercel } = await clientsFor(fake);
    const result = streamText({ model: vercel('llama3.2'), prompt: 'Hi' });
    const deltas: string[] = [];
    for await (const delta of result.textStream) deltas.push(delta);
    expect(deltas).toEqual(['Streaming', ' through', ' Vercel.']);
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
    expect(fake.asked()[0]!.stream).toBe(true);
  });

  test('ai + ollama-ai-provider-v2: generateObject, scripted and unscripted, gets values that fit the schema', async () => {
    const fake = new FakeProvider().willAnswer({ city: 'Lyon', temperature: 18 });
    const { vercel } = await clientsFor(fake);
    const scripted = await generateObject({
      model: vercel('llama3.2'),
      prompt: 'Weather as JSON',
      schema: jsonSchema<{ city: string; temperature: number }>(citySchema),
    });
    expect(scripted.object).toEqual({ city: 'Lyon', temperature: 18 });
    expect(fake.asked()[0]!.responseSchema?.schema).toMatchObject({ required: ['city', 'temperature'] });
    const unscripted = await generateObject({
      model: (await clientsFor(new FakeProvider())).vercel('llama3.2'),
      prompt: 'Weather as JSON',
      schema: jsonSchema<{ city: string; temperature: number }>(citySchema),
    });
    expect(typeof unscripted.object.city).toBe('string');
    expect(typeof unscripted.object.temperature).toBe('number');
  });
});

describe('the fake refuses what Ollama refuses', () => {
  const ask = async (path: string, body: string): Promise<{ status: number; body: unknown }> => {
    const response = await new FakeProvider().fetch(`http://127.0.0.1:11434${path}`, { method: 'POST', body });
    return { status: response.status, body: await response.json() };
  };

  test('a malformed body, a message of the wrong type, a format that is neither "json" nor a schema', async () => {
    expect(await ask('/api/chat', '{"model":')).toMatchObject({ status: 400, body: { error: expect.stringContaining('not JSON') } });
    expect(await ask('/api/chat', JSON.stringify({ model: 'llama3.2', messages: 'Hi' }))).toEqual({
      status: 400,
      body: { error: 'json: cannot unmarshal string into Go struct field ChatRequest.messages of type []api.Message' },
    });
    expect(await ask('/api/chat', JSON.stringify({ model: 'llama3.2', messages: [{ role: 'user', content: [{ text: 'Hi' }] }] }))).toEqual({
      status: 400,
      body: { error: 'json: cannot unmarshal array into Go struct field ChatRequest.messages.content of type string' },
    });
    expect(await ask('/api/chat', JSON.stringify({ model: 'llama3.2', messages: [{ role: 'user', content: 'Hi' }], format: 'xml' }))).toEqual({
      status: 500,
      body: { error: 'invalid format: "\\"xml\\""; expected "json" or a valid JSON Schema object' },
    });
    expect(await ask('/api/generate', JSON.stringify({ prompt: 'Hi' }))).toEqual({ status: 400, body: { error: 'model is required' } });
  });

  test('a chat without messages loads the model, as Ollama answers it', async () => {
    expect(await ask('/api/chat', JSON.stringify({ model: 'llama3.2' }))).toMatchObject({
      status: 200,
      body: { model: 'fake-llama3.2', message: { role: 'assistant', content: '' }, done_reason: 'load', done: true },
    });
  });

  test('a stream error ends the NDJSON with an error line, the status staying 200', async () => {
    const fake = new FakeProvider().willFail(failures.streamError({ afterChunks: 1, message: 'model crashed' }));
    const ollama = new Ollama({ fetch: fake.fetch });
    const parts: unknown[] = [];
    const error = await (async () => {
      for await (const part of await ollama.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'Hi' }], stream: true })) parts.push(part);
    })().catch((caught: unknown) => caught as Error);
    expect(parts).toHaveLength(1);
    expect((error as Error).message).toBe('model crashed');
  });
});
