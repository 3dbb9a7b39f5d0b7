// The clients the other record-then-replay tests leave out, each recorded through the proxy from
// the fake and replayed strictly with nothing upstream: Vercel `ai` 5 with its own providers (its
// OpenAI provider speaks the Responses API and sends a tool call back as an `item_reference`, which
// replays because the tape holds the stored response it names), `ai` 6 with @ai-sdk/google and
// with ollama-ai-provider-v2, and LangChain's ChatAnthropic (a tool loop and its default
// structured output, a forced tool).
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { ChatAnthropic } from '@langchain/anthropic';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { generateText as generateText5, jsonSchema as jsonSchema5, stepCountIs as stepCountIs5, tool as tool5 } from 'ai-v5';
import { createAnthropic as createAnthropic5 } from 'ai-sdk-anthropic-v2';
import { createOpenAI as createOpenAI5 } from 'ai-sdk-openai-v2';
import { createOllama } from 'ollama-ai-provider-v2';
import { afterEach, describe, expect, test } from 'vitest';
import { FakeProvider, type FakeServer } from 'modeltape/fake-provider';
import { startProxy, type RunningProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { fakeAnthropicKey, fakeOpenAiKey } from '../support/fake-keys.js';
import { tempDir } from '../support/temp-dir.js';

const cityParameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } as const;
const weatherAnswer = {
  type: 'object',
  properties: { city: { type: 'string' }, temperature: { type: 'number' } },
  required: ['city', 'temperature'],
  additionalProperties: false,
} as const;

/** A text answer, a streamed one, then a tool loop: the tool's call and the answer after it. */
function scriptedFake(): FakeProvider {
  return new FakeProvider()
    .willSay('Hello.')
    .willSay('A joke, in pieces.', { chunks: { size: 3 } })
    .willCallTool('get_weather', { city: 'Paris' })
    .endTurn()
    .willSay('It rains in Paris.');
}

type Upstream = 'openai' | 'anthropic' | 'gemini' | 'ollama';

/** Where a client finds the proxy's route to `upstream`. */
function proxyBase(proxy: RunningProxy, upstream: Upstream): string {
  return proxy.baseUrls[upstream];
}

interface Scenario {
  upstream: Upstream;
  fake: () => FakeProvider;
  /** Runs the client against `base` (the proxy's route) and says what it got. */
  run: (base: string, key: string) => Promise<unknown>;
  /** The recorded exchanges, as `path body|sse|ndjson`. */
  tape: string[];
}

const weather6 = tool({
  description: 'Weather for a city',
  inputSchema: jsonSchema<{ city: string }>(cityParameters),
  execute: async ({ city }) => `rain in ${city}`,
});
const weather5 = tool5({
  description: 'Weather for a city',
  inputSchema: jsonSchema5<{ city: string }>(cityParameters),
  execute: async ({ city }) => `rain in ${city}`,
});

async function vercel6(model: Parameters<typeof generateText>[0]['model']) {
  const text = (await generateText({ model, prompt: 'Say hello' })).text;
  let stream = '';
  for await (const part of streamText({ model, prompt: 'Tell me a joke' }).textStream) stream += part;
  const loop = (await generateText({ model, prompt: 'Weather in Paris?', tools: { get_weather: weather6 }, stopWhen: stepCountIs(3) })).text;
  return { text, stream, loop };
}

const SCENARIOS: Record<string, Scenario> = {
  'ai 5 with @ai-sdk/openai 2 (the Responses API, item_reference in its tool loop)': {
    upstream: 'openai',
    fake: () => new FakeProvider().willSay('Hello.').willCallTool('get_weather', { city: 'Paris' }).endTurn().willSay('It rains in Paris.'),
    run: async (base, key) => {
      const model = createOpenAI5({ apiKey: key, baseURL: base })('gpt-4o');
      const text = (await generateText5({ model, prompt: 'Say hello' })).text;
      const loop = await generateText5({ model, prompt: 'Weather in Paris?', tools: { get_weather: weather5 }, stopWhen: stepCountIs5(3) });
      return { text, loop: loop.text, sentBack: JSON.stringify(loop.request.body ?? '').includes('item_reference') };
    },
    tape: ['/v1/responses body', '/v1/responses body', '/v1/responses body'],
  },
  'ai 5 with @ai-sdk/anthropic 2': {
    upstream: 'anthropic',
    fake: () => new FakeProvider().willSay('Hello.').willCallTool('get_weather', { city: 'Paris' }).endTurn().willSay('It rains in Paris.'),
    run: async (base, key) => {
      const model = createAnthropic5({ apiKey: key, baseURL: `${base}/v1` })('claude-sonnet-4-5');
      const text = (await generateText5({ model, prompt: 'Say hello' })).text;
      const loop = (await generateText5({ model, prompt: 'Weather in Paris?', tools: { get_weather: weather5 }, stopWhen: stepCountIs5(3) })).text;
      return { text, loop };
    },
    tape: ['/v1/messages body', '/v1/messages body', '/v1/messages body'],
  },
  'ai 6 with @ai-sdk/google': {
    upstream: 'gemini',
    fake: scriptedFake,
    run: (base, key) => vercel6(createGoogleGenerativeAI({ apiKey: key, baseURL: `${base}/v1beta` })('gemini-2.5-flash')),
    tape: [
      '/v1beta/models/gemini-2.5-flash:generateContent body',
      '/v1beta/models/gemini-2.5-flash:streamGenerateContent sse',
      '/v1beta/models/gemini-2.5-flash:generateContent body',
      '/v1beta/models/gemini-2.5-flash:generateContent body',
    ],
  },
  'ai 6 with ollama-ai-provider-v2': {
    upstream: 'ollama',
    fake: scriptedFake,
    run: (base) => vercel6(createOllama({ baseURL: `${base}/api` })('llama3.2')),
    tape: ['/api/chat body', '/api/chat ndjson', '/api/chat body', '/api/chat body'],
  },
  'LangChain ChatAnthropic: a chat, a stream, a tool loop and its default structured output': {
    upstream: 'anthropic',
    fake: () => scriptedFake().willAnswer({ city: 'Paris', temperature: 14 }),
    run: async (base, key) => {
      const model = new ChatAnthropic({ model: 'claude-sonnet-4-5', apiKey: key, maxRetries: 0, anthropicApiUrl: base });
      const text = (await model.invoke('Say hello')).content;
      let stream = '';
      for await (const chunk of await model.stream('Tell me a joke')) stream += String(chunk.content);
      const withTools = model.bindTools([{ name: 'get_weather', description: 'Weather for a city', input_schema: cityParameters }]);
      const call = await withTools.invoke('Weather in Paris?');
      const answer = await withTools.invoke([
        { role: 'user', content: 'Weather in Paris?' },
        call,
        { role: 'tool', tool_call_id: call.tool_calls![0]!.id!, content: 'rain in Paris' },
      ]);
      const structured = await model.withStructuredOutput(weatherAnswer, { name: 'weather' }).invoke('Weather in Paris?');
      return { text, stream, call: call.tool_calls!.map(({ name, args }) => ({ name, args })), answer: answer.content, structured };
    },
    tape: ['/v1/messages body', '/v1/messages sse', '/v1/messages body', '/v1/messages body', '/v1/messages body'],
  },
};

describe('every other client through the proxy', () => {
  const dir = tempDir();
  let upstream: FakeServer | undefined;
  let proxy: RunningProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    await upstream?.close();
    upstream = undefined;
  });

  test.each(Object.entries(SCENARIOS))('%s records from the fake, then replays strictly with 0 upstream connections', async (name, scenario) => {
    const tape = `${dir}/${name.replace(/\W+/g, '-')}.jsonl`;
    const fake = scenario.fake();
    upstream = await fake.listen({ port: 0 });
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { [scenario.upstream]: upstream.url }, log: () => {} });
    const key = scenario.upstream === 'anthropic' ? fakeAnthropicKey() : fakeOpenAiKey();
    const recorded = await scenario.run(proxyBase(proxy, scenario.upstream), key);
    expect((await proxy.close()).recorded).toBe(scenario.tape.length);
    proxy = undefined;
    fake.assertConsumed();
    await upstream.close();
    upstream = undefined;
    const { exchanges } = loadTape(tape);
    expect(exchanges.map(({ exchange }) => `${exchange.request.path} ${exchange.response.stream?.format ?? 'body'}`)).toEqual(scenario.tape);
    expect(JSON.stringify(exchanges)).not.toContain(key);

    proxy = await startProxy({ tape, log: () => {} });
    const replayed = await scenario.run(proxyBase(proxy, scenario.upstream), 'another-fake-key');
    const summary = await proxy.close();
    proxy = undefined;
    expect(replayed).toEqual(recorded);
    expect(summary).toMatchObject({ hits: scenario.tape.length, misses: 0, recorded: 0, passthrough: 0, upstreamConnections: 0 });
  });
});
