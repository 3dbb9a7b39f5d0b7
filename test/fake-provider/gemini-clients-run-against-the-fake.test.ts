import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { ApiError, GoogleGenAI, Type, type Content } from '@google/genai';
import { generateObject, generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { afterEach, describe, expect, test } from 'vitest';
import { FakeProvider, embed, failures, type FakeServer } from 'modeltape/fake-provider';

const weatherDeclaration = {
  name: 'get_weather',
  description: 'Weather for a city',
  parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
};
const cityParameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false } as const;
const citySchema = {
  type: 'object',
  properties: { city: { type: 'string' }, temperature: { type: 'number' } },
  required: ['city', 'temperature'],
  additionalProperties: false,
} as const;

type Transport = 'fetch' | 'http';

describe.each<Transport>(['fetch', 'http'])('@google/genai against the fake, over %s', (transport) => {
  let server: FakeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function genai(fake: FakeProvider): Promise<GoogleGenAI> {
    if (transport === 'fetch') return new GoogleGenAI({ apiKey: 'fake-key', httpOptions: { fetch: fake.fetch } });
    server = await fake.listen({ port: 0 });
    return new GoogleGenAI({ apiKey: 'fake-key', httpOptions: { baseUrl: server.url } });
  }

  test('generateContent answers the scripted text, says it is fake and counts usage', async () => {
    const fake = new FakeProvider().willSay('Hello from the fake.');
    const client = await genai(fake);
    const response = await client.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Hi',
      config: { systemInstruction: 'Be brief.' },
    });
    expect(response.text).toBe('Hello from the fake.');
    expect(response.candidates![0]!.finishReason).toBe('STOP');
    expect(response.candidates![0]!.content!.role).toBe('model');
    expect(response.modelVersion).toBe('fake-gemini-2.5-flash');
    expect(response.responseId).toMatch(/^fake-/);
    expect(response.usageMetadata!.promptTokenCount).toBeGreaterThan(0);
    expect(response.usageMetadata!.candidatesTokenCount).toBeGreaterThan(0);
    const [turn] = fake.asked();
    expect(turn).toMatchObject({ provider: 'gemini', api: 'gemini-generate', model: 'gemini-2.5-flash', system: 'Be brief.', stream: false });
    expect(turn!.prompt).toBe('system: Be brief.\nuser: Hi');
    // The key travels in x-goog-api-key; calls() never shows it.
    const [call] = fake.calls();
    expect(call!.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(call!.headers['x-goog-api-key']).toBeUndefined();
    expect(JSON.stringify(fake.calls())).not.toContain('fake-key');
    fake.assertConsumed();
  });

  test('generateContentStream delivers the text piece by piece, the last chunk with finishReason and usage', async () => {
    const fake = new FakeProvider().willSay('One, two, three.');
    const client = await genai(fake);
    const chunks = [];
    for await (const chunk of await client.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'Count' })) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.text)).toEqual(['One,', ' two,', ' three.']);
    expect(chunks.at(-1)!.candidates![0]!.finishReason).toBe('STOP');
    expect(chunks.slice(0, -1).every((chunk) => chunk.candidates![0]!.finishReason === undefined)).toBe(true);
    expect(chunks.at(-1)!.usageMetadata!.candidatesTokenCount).toBeGreaterThan(0);
    expect(fake.calls()[0]!.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(fake.asked()[0]!.stream).toBe(true);
  });

  test('a stream that breaks after a chunk delivers it, then raises Gemini’s error event as an ApiError', async () => {
    const fake = new FakeProvider().willFail(failures.streamError({ afterChunks: 1 }));
    const client = await genai(fake);
    const texts: string[] = [];
    const error = await (async () => {
      for await (const chunk of await client.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'Count' })) texts.push(chunk.text ?? '');
    })().catch((caught: unknown) => caught);
    // What a broken stream starts to send is the unscripted answer, cut after its first chunk.
    expect(texts).toEqual(['This']);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(500);
    expect((error as ApiError).message).toContain('INTERNAL');
  });

  test('a function-calling round trip: the call reaches the client, the function response reaches the fake', async () => {
    const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' }).willSay('It rains in Paris.');
    const client = await genai(fake);
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }];
    const config = { tools: [{ functionDeclarations: [weatherDeclaration] }] };
    const first = await client.models.generateContent({ model: 'gemini-2.5-flash', contents, config });
    expect(first.functionCalls).toEqual([{ name: 'get_weather', args: { city: 'Paris' } }]);
    contents.push(first.candidates![0]!.content!, { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { result: 'rain' } } }] });
    const second = await client.models.generateContent({ model: 'gemini-2.5-flash', contents, config });
    expect(second.text).toBe('It rains in Paris.');
    const asked = fake.asked();
    expect(asked[0]!.tools).toEqual([
      { name: 'get_weather', description: 'Weather for a city', parameters: weatherDeclaration.parametersJsonSchema, strict: false },
    ]);
    expect(asked[1]!.exchanges).toEqual([{ toolCallId: 'get_weather', name: 'get_weather', result: 'rain', isError: false }]);
    expect(asked[1]!.prompt).toBe('user: Weather in Paris?\nassistant: [get_weather({"city":"Paris"})]\ntool: rain');
    fake.assertConsumed();
  });

  test('toolConfig ANY with one allowed name forces that function when unscripted; NONE forbids a scripted call', async () => {
    const fake = new FakeProvider();
    const client = await genai(fake);
    const other = { name: 'get_time', parametersJsonSchema: { type: 'object', properties: {} } };
    const forced = await client.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'Weather?',
      config: {
        tools: [{ functionDeclarations: [other, weatherDeclaration] }],
        toolConfig: { functionCallingConfig: { mode: 'ANY' as never, allowedFunctionNames: ['get_weather'] } },
      },
    });
    expect(forced.functionCalls![0]!.name).toBe('get_weather');
    expect(typeof forced.functionCalls![0]!.args!.city).toBe('string');
    const refusing = new FakeProvider().willCallTool('get_weather', { city: 'Paris' });
    const refused = await genai(refusing);
    const error = await refused.models
      .generateContent({
        model: 'gemini-2.5-flash',
        contents: 'Weather?',
        config: { tools: [{ functionDeclarations: [weatherDeclaration] }], toolConfig: { functionCallingConfig: { mode: 'NONE' as never } } },
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(422);
    expect((error as ApiError).message).toContain('forbids tool calls');
  });

  test('structured output: a value that fits the responseSchema is answered, one that breaks it gets the fake’s 422', async () => {
    const responseSchema = {
      type: Type.OBJECT,
      properties: { city: { type: Type.STRING }, temperature: { type: Type.NUMBER } },
      required: ['city', 'temperature'],
    };
    const config = { responseMimeType: 'application/json', responseSchema };
    const fake = new FakeProvider().willAnswer({ city: 'Paris', temperature: 18 }).willAnswer({ city: 'Paris', temperature: 'warm' });
    const client = await genai(fake);
    const fits = await client.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Weather as JSON', config });
    expect(JSON.parse(fits.text!)).toEqual({ city: 'Paris', temperature: 18 });
    expect(fake.asked()[0]!.responseSchema).toMatchObject({ source: 'generationConfig.responseSchema', schema: { type: 'object' } });
    const error = await client.models.generateContent({ model: 'gemini-2.5-flash', contents: 'Weather as JSON', config }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(422);
    expect((error as ApiError).message).toContain('does not match the generationConfig.responseSchema schema');
    expect(fake.problems()).toHaveLength(1);
  });

  test('countTokens, embedContent and models.list answer in Gemini’s shapes', async () => {
    const fake = new FakeProvider();
    const client = await genai(fake);
    const counted = await client.models.countTokens({ model: 'gemini-2.5-flash', contents: 'How many tokens is this?' });
    expect(counted.totalTokens).toBe(Math.ceil('How many tokens is this?'.length / 4));
    const embedded = await client.models.embedContent({ model: 'gemini-embedding-001', contents: ['first text', 'second text'] });
    expect(embedded.embeddings!.map((embedding) => embedding.values)).toEqual([[...embed('first text', 8)], [...embed('second text', 8)]]);
    const sized = await client.models.embedContent({ model: 'gemini-embedding-001', contents: 'sized', config: { outputDimensionality: 3 } });
    expect(sized.embeddings![0]!.values).toHaveLength(3);
    const names: string[] = [];
    for await (const model of await client.models.list()) names.push(model.name!);
    expect(names).toEqual(['models/fake-gemini-2.5-flash', 'models/fake-gemini-2.5-pro', 'models/fake-gemini-embedding-001']);
    expect(fake.calls().map((call) => call.api)).toEqual(['gemini-count-tokens', 'gemini-embed', 'gemini-embed', 'gemini-models']);
  });

  test('a function response without a preceding function call gets Gemini’s 400 INVALID_ARGUMENT', async () => {
    const fake = new FakeProvider().willSay('never sent');
    const client = await genai(fake);
    const error = await client.models
      .generateContent({
        model: 'gemini-2.5-flash',
        contents: [
          { role: 'user', parts: [{ text: 'Hi' }] },
          { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { result: 'rain' } } }] },
        ],
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).message).toContain('Please ensure that function response turn comes immediately after a function call turn.');
    expect((error as ApiError).message).toContain('INVALID_ARGUMENT');
    expect(fake.asked()).toHaveLength(0);
  });
});

describe('Gemini routes the fake does not serve, and bodies it cannot read', () => {
  test('an unknown Gemini path is a 404 in Gemini’s error shape, also under /gemini', async () => {
    const fake = new FakeProvider();
    for (const path of ['/v1beta/models/gemini-2.5-flash:predict', '/gemini/v1beta/models/gemini-2.5-flash:predict']) {
      const response = await fake.fetch(`http://fake.test${path}`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(404);
      const body = (await response.json()) as { error: { code: number; status: string; message: string } };
      expect(body.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
      expect(body.error.message).toContain(':generateContent');
    }
  });

  test('a malformed body gets Gemini’s 400, and a key in the query never reaches calls()', async () => {
    const fake = new FakeProvider();
    const response = await fake.fetch('http://fake.test/gemini/v1beta/models/gemini-2.5-flash:generateContent?key=fake-key', {
      method: 'POST',
      body: '{"contents": [',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: { code: 400, message: 'Invalid JSON payload received.', status: 'INVALID_ARGUMENT' } });
    expect(fake.calls()[0]!.path).not.toContain('fake-key');
    const unknownField = await fake.fetch('http://fake.test/v1beta/models/gemini-2.5-flash:generateContent', {
      method: 'POST',
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], temperature: 0.5 }),
    });
    expect(unknownField.status).toBe(400);
    expect(((await unknownField.json()) as { error: { message: string } }).error.message).toBe(
      'Invalid JSON payload received. Unknown name "temperature": Cannot find field.',
    );
  });
});

describe('@ai-sdk/google with ai against the fake', () => {
  let server: FakeServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function google(fake: FakeProvider): Promise<ReturnType<typeof createGoogleGenerativeAI>> {
    server = await fake.listen({ port: 0 });
    return createGoogleGenerativeAI({ apiKey: 'fake-key', baseURL: `${server.url}/gemini/v1beta` });
  }

  const weather = tool({
    description: 'Weather for a city',
    inputSchema: jsonSchema<{ city: string }>(cityParameters),
    execute: async ({ city }) => ({ city, sky: 'rain' }),
  });

  test('generateText runs a scripted tool loop to the final text', async () => {
    const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' }).willSay('It rains in Paris.');
    const provider = await google(fake);
    const result = await generateText({
      model: provider('gemini-2.5-flash'),
      prompt: 'Weather in Paris?',
      tools: { get_weather: weather },
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe('It rains in Paris.');
    expect(result.steps[0]!.toolCalls.map((call) => [call.toolName, call.input])).toEqual([['get_weather', { city: 'Paris' }]]);
    // @ai-sdk/google names the call with an id of its own, and sends the tool's output back as {name, content}.
    expect(fake.asked()[1]!.exchanges).toEqual([
      { toolCallId: result.steps[0]!.toolCalls[0]!.toolCallId, name: 'get_weather', result: JSON.stringify({ city: 'Paris', sky: 'rain' }), isError: false },
    ]);
    fake.assertConsumed();
  });

  test('unscripted, a tool loop’s first turn calls the first tool and the next turn answers text', async () => {
    const fake = new FakeProvider();
    const provider = await google(fake);
    const result = await generateText({ model: provider('gemini-2.5-flash'), prompt: 'Weather?', tools: { get_weather: weather }, stopWhen: stepCountIs(3) });
    expect(result.steps[0]!.toolCalls[0]!.toolName).toBe('get_weather');
    expect(typeof (result.steps[0]!.toolCalls[0]!.input as { city: unknown }).city).toBe('string');
    expect(result.text).toMatch(/^This is a fake answer from modeltape's FakeProvider/);
    expect(result.steps).toHaveLength(2);
  });

  test('streamText streams the scripted text over alt=sse', async () => {
    const fake = new FakeProvider().willSay('Streaming from the fake.');
    const provider = await google(fake);
    const result = streamText({ model: provider('gemini-2.5-flash'), prompt: 'Stream' });
    const pieces: string[] = [];
    for await (const piece of result.textStream) pieces.push(piece);
    expect(pieces.join('')).toBe('Streaming from the fake.');
    expect(pieces.length).toBeGreaterThan(1);
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
    expect(fake.calls()[0]!.path).toBe('/gemini/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  });

  test('generateObject gets the scripted value, and unscripted a value generated from the schema', async () => {
    const fake = new FakeProvider().willAnswer({ city: 'Paris', temperature: 18 });
    const provider = await google(fake);
    const scripted = await generateObject({ model: provider('gemini-2.5-flash'), schema: jsonSchema(citySchema), prompt: 'Weather as JSON' });
    expect(scripted.object).toEqual({ city: 'Paris', temperature: 18 });
    await server!.close();
    const unscriptedFake = new FakeProvider();
    const unscriptedProvider = await google(unscriptedFake);
    const unscripted = await generateObject({ model: unscriptedProvider('gemini-2.5-flash'), schema: jsonSchema(citySchema), prompt: 'Weather as JSON' });
    const value = unscripted.object as { city: unknown; temperature: unknown };
    expect(typeof value.city).toBe('string');
    expect(typeof value.temperature).toBe('number');
    expect(unscriptedFake.asked()[0]!.responseSchema!.source).toBe('generationConfig.responseSchema');
  });
});
