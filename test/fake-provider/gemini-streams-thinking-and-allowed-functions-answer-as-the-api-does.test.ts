import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { ApiError, GoogleGenAI } from '@google/genai';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { afterEach, describe, expect, test } from 'vitest';
import { FakeProvider, type FakeServer } from 'modeltape/fake-provider';

const weatherDeclaration = {
  name: 'get_weather',
  description: 'Weather for a city',
  parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
};
const timeDeclaration = { name: 'get_time', parametersJsonSchema: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } };
const newsDeclaration = { name: 'get_news', parametersJsonSchema: { type: 'object', properties: {} } };
const tools = [{ functionDeclarations: [timeDeclaration, weatherDeclaration, newsDeclaration] }];

type Transport = 'fetch' | 'http';

/** The message of Gemini's error body, which ApiError carries as JSON text. */
function bodyMessage(error: unknown): string {
  expect(error).toBeInstanceOf(ApiError);
  return (JSON.parse((error as ApiError).message) as { error: { message: string } }).error.message;
}

describe.each<Transport>(['fetch', 'http'])('Gemini streams, allowed functions and thinking, over %s', (transport) => {
  let server: FakeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** The fake's base URL (over HTTP) and the fetch to reach it. */
  async function reach(fake: FakeProvider): Promise<{ base: string; fetch: typeof fetch }> {
    if (transport === 'fetch') return { base: 'http://fake.invalid', fetch: fake.fetch as typeof fetch };
    server = await fake.listen({ port: 0 });
    return { base: server.url, fetch };
  }

  async function genai(fake: FakeProvider): Promise<GoogleGenAI> {
    if (transport === 'fetch') return new GoogleGenAI({ apiKey: 'fake-key', httpOptions: { fetch: fake.fetch } });
    server = await fake.listen({ port: 0 });
    return new GoogleGenAI({ apiKey: 'fake-key', httpOptions: { baseUrl: server.url } });
  }

  const streamBody = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Count' }] }] });

  test('streamGenerateContent without alt=sse answers one JSON array of partial responses; with alt=sse, SSE', async () => {
    const fake = new FakeProvider().willSay('One, two, three.').willSay('One, two, three.');
    const { base, fetch: send } = await reach(fake);
    const headers = { 'content-type': 'application/json', 'x-goog-api-key': 'fake-key' };
    const array = await send(`${base}/v1beta/models/gemini-2.5-flash:streamGenerateContent`, { method: 'POST', headers, body: streamBody });
    expect(array.status).toBe(200);
    expect(array.headers.get('content-type')).toMatch(/^application\/json/);
    const text = await array.text();
    // Google's streaming JSON: `[` first, elements apart by `\n,\r\n`, `\n]` last.
    expect(text.startsWith('[{\n  "candidates"')).toBe(true);
    expect(text.endsWith('\n]')).toBe(true);
    expect(text.split('\n,\r\n')).toHaveLength(3);
    const elements = JSON.parse(text) as Array<{
      candidates: Array<{ content: { parts: Array<{ text: string }> }; finishReason?: string }>;
      responseId: string;
    }>;
    expect(elements.map((element) => element.candidates[0]!.content.parts[0]!.text)).toEqual(['One,', ' two,', ' three.']);
    expect(elements.map((element) => element.candidates[0]!.finishReason)).toEqual([undefined, undefined, 'STOP']);
    expect(new Set(elements.map((element) => element.responseId)).size).toBe(1);

    const sse = await send(`${base}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, { method: 'POST', headers, body: streamBody });
    expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await sse.text()).split('\r\n\r\n').filter((event) => event !== '');
    expect(events).toHaveLength(3);
    expect(events.every((event) => event.startsWith('data: {'))).toBe(true);
    expect(fake.asked().map((turn) => turn.stream)).toEqual([true, true]);
    fake.assertConsumed();
  });

  test('the array is written element by element, and a stream error ends it with an error element', async () => {
    const fake = new FakeProvider().willSay('One, two, three.');
    const wire = fake.answer({ method: 'POST', path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent', headers: {}, body: streamBody });
    // One frame per element, then the closing bracket: the transport writes each as it goes.
    expect(wire.frames).toHaveLength(4);
    expect(wire.frames!.at(-1)).toBe('\n]');

    const failing = new FakeProvider().willFail({ kind: 'stream-error', afterChunks: 1 });
    const { base, fetch: send } = await reach(failing);
    const broken = await send(`${base}/v1beta/models/gemini-2.5-flash:streamGenerateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: streamBody,
    });
    const elements = JSON.parse(await broken.text()) as Array<Record<string, unknown>>;
    expect(elements).toHaveLength(2);
    expect(elements[1]).toEqual({ error: { code: 500, message: 'An internal error has occurred. (modeltape FakeProvider)', status: 'INTERNAL' } });

    // A request refused before the stream starts: the error object inside an array.
    const refused = await send(`${base}/v1beta/models/gemini-2.5-flash:streamGenerateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [] }),
    });
    expect(refused.status).toBe(400);
    expect(JSON.parse(await refused.text())).toEqual([
      { error: { code: 400, message: '* GenerateContentRequest.contents: contents is not specified\n', status: 'INVALID_ARGUMENT' } },
    ]);
  });

  test('mode ANY with several allowedFunctionNames: unscripted, it calls the first allowed function, not the first declared', async () => {
    const fake = new FakeProvider();
    const client = await genai(fake);
    const response = await client.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Weather?',
      config: { tools, toolConfig: { functionCallingConfig: { mode: 'ANY' as never, allowedFunctionNames: ['get_news', 'get_weather'] } } },
    });
    // Declared order is get_time, get_weather, get_news: the first allowed one is get_weather.
    expect(response.functionCalls!.map((call) => call.name)).toEqual(['get_weather']);
    expect(typeof response.functionCalls![0]!.args!.city).toBe('string');
  });

  test('a scripted call to a function allowedFunctionNames leaves out gets the fake’s 422, naming a step that works', async () => {
    const fake = new FakeProvider().willCallTool('get_time', { zone: 'UTC' });
    const client = await genai(fake);
    const error = await client.models
      .generateContent({
        model: 'gemini-2.5-flash',
        contents: 'Weather?',
        config: { tools, toolConfig: { functionCallingConfig: { mode: 'ANY' as never, allowedFunctionNames: ['get_weather', 'get_news'] } } },
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(422);
    const message = bodyMessage(error);
    expect(message).toContain('it calls tool "get_time"');
    expect(message).toContain('allowedFunctionNames allows only "get_weather", "get_news"');
    expect(message).toContain('Script willCallTool("get_weather", arguments)');
    expect(fake.problems()).toHaveLength(1);

    // The step it names works.
    const fixed = new FakeProvider().willCallTool('get_weather', { city: 'Oslo' });
    const fixedClient = await genai(fixed);
    const answered = await fixedClient.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Weather?',
      config: { tools, toolConfig: { functionCallingConfig: { mode: 'ANY' as never, allowedFunctionNames: ['get_weather', 'get_news'] } } },
    });
    expect(answered.functionCalls).toEqual([{ name: 'get_weather', args: { city: 'Oslo' } }]);
    fixed.assertConsumed();
  });

  test('a text answer under mode ANY with allowed names is refused with the allowed names to call', async () => {
    const fake = new FakeProvider().willSay('No call.');
    const client = await genai(fake);
    const error = await client.models
      .generateContent({
        model: 'gemini-2.5-flash',
        contents: 'Weather?',
        config: { tools, toolConfig: { functionCallingConfig: { mode: 'ANY' as never, allowedFunctionNames: ['get_weather', 'get_news'] } } },
      })
      .catch((caught: unknown) => caught as ApiError);
    expect((error as ApiError).status).toBe(422);
    expect(bodyMessage(error)).toContain(`the request's toolConfig requires one.\nScript willCallTool with one of "get_weather", "get_news".`);
  });

  test('an allowed name no declaration has is Gemini’s 400 INVALID_ARGUMENT', async () => {
    const fake = new FakeProvider();
    const client = await genai(fake);
    const error = await client.models
      .generateContent({
        model: 'gemini-2.5-flash',
        contents: 'Weather?',
        config: { tools, toolConfig: { functionCallingConfig: { mode: 'ANY' as never, allowedFunctionNames: ['get_weather', 'get_tide'] } } },
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).message).toContain('INVALID_ARGUMENT');
    expect(bodyMessage(error)).toBe(
      '* GenerateContentRequest.tool_config.function_calling_config.allowed_function_names: allowed function name "get_tide" is not declared in tools.\n',
    );
    expect(fake.asked()).toHaveLength(0);
  });

  test('includeThoughts: a thought part before the answer, thoughtsTokenCount, and response.text without the thought', async () => {
    const fake = new FakeProvider().willSay('Paris.');
    const client = await genai(fake);
    const response = await client.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Capital of France?',
      config: { thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } },
    });
    const parts = response.candidates![0]!.content!.parts!;
    expect(parts).toHaveLength(2);
    expect(parts[0]).toEqual({ text: 'Thinking (modeltape FakeProvider, call 0): I will answer in text.', thought: true });
    expect(parts[1]).toEqual({ text: 'Paris.' });
    expect(response.text).toBe('Paris.');
    const usage = response.usageMetadata!;
    expect(usage.thoughtsTokenCount).toBeGreaterThan(0);
    expect(usage.totalTokenCount).toBe(usage.promptTokenCount! + usage.candidatesTokenCount! + usage.thoughtsTokenCount!);
  });

  test('a thinking budget without includeThoughts counts thought tokens and shows no thought; budget 0 does not think', async () => {
    const fake = new FakeProvider().willSay('Paris.').willSay('Paris.');
    const client = await genai(fake);
    const hidden = await client.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Capital of France?',
      config: { thinkingConfig: { thinkingBudget: 512 } },
    });
    expect(hidden.candidates![0]!.content!.parts).toEqual([{ text: 'Paris.' }]);
    expect(hidden.usageMetadata!.thoughtsTokenCount).toBeGreaterThan(0);
    const off = await client.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Capital of France?',
      config: { thinkingConfig: { thinkingBudget: 0, includeThoughts: true } },
    });
    expect(off.candidates![0]!.content!.parts).toEqual([{ text: 'Paris.' }]);
    expect(off.usageMetadata!.thoughtsTokenCount).toBeUndefined();
  });

  test('a streamed thinking answer streams the thought part first, then the text, then a function call', async () => {
    const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' }, { saying: 'Checking.' });
    const client = await genai(fake);
    const chunks = [];
    for await (const chunk of await client.models.generateContentStream({
      model: 'gemini-2.5-flash',
      contents: 'Weather in Paris?',
      config: { tools: [{ functionDeclarations: [weatherDeclaration] }], thinkingConfig: { includeThoughts: true } },
    }))
      chunks.push(chunk);
    expect(chunks[0]!.candidates![0]!.content!.parts).toEqual([{ text: 'Thinking (modeltape FakeProvider, call 0): I will call get_weather.', thought: true }]);
    expect(chunks.slice(1).map((chunk) => chunk.text ?? null)).toEqual(['Checking.', null]);
    expect(chunks.at(-1)!.functionCalls).toEqual([{ name: 'get_weather', args: { city: 'Paris' } }]);
    expect(chunks.every((chunk) => chunk.usageMetadata!.thoughtsTokenCount! > 0)).toBe(true);
  });
});

describe('@ai-sdk/google reads the fake’s thoughts as reasoning', () => {
  let server: FakeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function google(fake: FakeProvider): Promise<ReturnType<typeof createGoogleGenerativeAI>> {
    server = await fake.listen({ port: 0 });
    return createGoogleGenerativeAI({ apiKey: 'fake-key', baseURL: `${server.url}/gemini/v1beta` });
  }
  const thinkingConfig = { google: { thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } } };

  test('generateText: the thought is reasoning, the text is the answer, reasoning tokens are counted', async () => {
    const fake = new FakeProvider().willSay('Paris.');
    const provider = await google(fake);
    const result = await generateText({ model: provider('gemini-2.5-flash'), prompt: 'Capital of France?', providerOptions: thinkingConfig });
    expect(result.text).toBe('Paris.');
    expect(result.reasoningText).toBe('Thinking (modeltape FakeProvider, call 0): I will answer in text.');
    expect(result.usage.outputTokenDetails?.reasoningTokens ?? result.usage.reasoningTokens).toBeGreaterThan(0);
  });

  test('a thinking model signs its function calls, and @ai-sdk/google sends the signature back with the call', async () => {
    const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' }).willSay('It rains in Paris.');
    const provider = await google(fake);
    const weather = tool({ inputSchema: jsonSchema<{ city: string }>(weatherDeclaration.parametersJsonSchema as never), execute: async () => 'rain' });
    const result = await generateText({
      model: provider('gemini-2.5-flash'),
      prompt: 'Weather in Paris?',
      tools: { get_weather: weather },
      stopWhen: stepCountIs(2),
      providerOptions: thinkingConfig,
    });
    expect(result.text).toBe('It rains in Paris.');
    const sent = fake.calls()[1]!.body as { contents: Array<{ role: string; parts: Array<Record<string, unknown>> }> };
    const call = sent.contents.find((content) => content.role === 'model')!.parts.find((part) => part.functionCall !== undefined)!;
    expect(Buffer.from(String(call.thoughtSignature), 'base64').toString()).toMatch(/^fake-thought-signature:[0-9a-f]{32}$/);
    fake.assertConsumed();
  });

  test('streamText: the reasoning arrives before the text, and a tool loop under allowed names calls an allowed tool', async () => {
    const fake = new FakeProvider().willSay('Paris.');
    const provider = await google(fake);
    const result = streamText({ model: provider('gemini-2.5-flash'), prompt: 'Capital of France?', providerOptions: thinkingConfig });
    const kinds: string[] = [];
    for await (const part of result.fullStream) if (part.type === 'reasoning-delta' || part.type === 'text-delta') kinds.push(part.type);
    expect(kinds[0]).toBe('reasoning-delta');
    expect(kinds.at(-1)).toBe('text-delta');
    expect(await result.text).toBe('Paris.');

    const unscripted = new FakeProvider();
    await server!.close();
    const unscriptedProvider = await google(unscripted);
    const weather = tool({ inputSchema: jsonSchema<{ city: string }>(weatherDeclaration.parametersJsonSchema as never), execute: async () => 'rain' });
    const news = tool({ inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }), execute: async () => 'none' });
    const called = await generateText({
      model: unscriptedProvider('gemini-2.5-flash'),
      prompt: 'Weather?',
      tools: { get_news: news, get_weather: weather },
      toolChoice: 'required',
      providerOptions: { google: {} },
    });
    // @ai-sdk/google sends `required` as mode ANY without names: the first declared tool is called.
    expect(called.steps[0]!.toolCalls[0]!.toolName).toBe('get_news');
  });
});
