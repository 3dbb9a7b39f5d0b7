// Gemini's wire APIs in the battery: generateContent (and its alt=sse stream), countTokens,
// embedContent / batchEmbedContents and the model list (generateContent and countTokens also on
// Vertex AI's routes, test/support/wire-battery/vertex.ts). Google publishes no OpenAPI document for
// the Gemini API, so these entries have no `spec`: their bytes are checked by the stream grammar
// (providers/gemini/stream-grammar.ts), Google's RPC error shape and the clients reading them
// (@google/genai, and `ai` with @ai-sdk/google).
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { ApiError, GoogleGenAI, Type, type GenerateContentConfig } from '@google/genai';
import { APICallError, embed, embedMany, type LanguageModel } from 'ai';
import { expect } from 'vitest';
import { checkGenerateStreamGrammar } from '../../../providers/internal.js';
import {
  answerSchema,
  expectClientReading,
  replaying,
  routeText,
  settle,
  turnCases,
  vercelReading,
  vercelReads,
  weather,
  type ClientErrors,
  type WireAnswer,
  type WireApiUnderTest,
  type WireCase,
  type WireRequest,
} from '../wire-conformance.js';

const GENAI_ERRORS: ClientErrors = { apiError: ApiError };

function genai(answer: WireAnswer): GoogleGenAI {
  return GEMINI_API.genai(replaying(answer));
}

function vercelGoogle(answer: WireAnswer): ReturnType<typeof createGoogleGenerativeAI> {
  return createGoogleGenerativeAI({ apiKey: 'fake-key', fetch: replaying(answer) });
}

/** Google's RPC error body (the Gemini API's and Vertex AI's): `{"error":{code,message,status}}`, the code a number and the status an RPC status name. */
export function geminiErrorShape(body: unknown): string[] {
  const error = (body as { error?: Record<string, unknown> } | null)?.error;
  if (error === undefined || error === null || typeof error !== 'object') return [`expected {"error":{…}}, found ${JSON.stringify(body)?.slice(0, 120)}`];
  const problems: string[] = [];
  if (!Number.isInteger(error.code)) problems.push('.error.code: expected the HTTP status as a number');
  if (typeof error.message !== 'string' || error.message === '') problems.push('.error.message: expected a non-empty string');
  if (typeof error.status !== 'string' || !/^[A-Z][A-Z_]*$/.test(error.status)) problems.push('.error.status: expected an RPC status such as INVALID_ARGUMENT');
  return problems;
}

const MODEL = 'gemini-2.5-flash';

function contents(tag: string, toolResults = false): unknown[] {
  return [
    { role: 'user', parts: [{ text: `Weather in Paris? (${tag})` }] },
    ...(toolResults
      ? [
          { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
          { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { result: '14 °C' } } }] },
        ]
      : []),
  ];
}

// Structured output both ways Gemini takes it: the OpenAPI-subset `responseSchema` (plain) and
// `responseJsonSchema` (streamed).
const responseSchema = {
  type: Type.OBJECT,
  properties: { city: { type: Type.STRING }, temperature: { type: Type.NUMBER } },
  required: ['city', 'temperature'],
};

/**
 * Where Gemini's generateContent and countTokens are served, and the clients that read them there:
 * the Gemini API (`/v1beta/models/{model}:…`, an API key) or Vertex AI (`…/publishers/google/models/{model}:…`).
 */
export interface GeminiPlace {
  upstream: 'gemini' | 'vertex';
  /** The path of a model's method (`generateContent`, `streamGenerateContent?alt=sse`, `countTokens`). */
  path(model: string, method: string): string;
  /** @google/genai over a `fetch`. */
  genai(fetch: typeof globalThis.fetch): GoogleGenAI;
  /** `ai`'s model over a `fetch`. */
  vercel(fetch: typeof globalThis.fetch, model: string): LanguageModel;
  /** The name the client readings go by. */
  name: string;
}

const GEMINI_API: GeminiPlace = {
  upstream: 'gemini',
  path: (model, method) => `/v1beta/models/${model}:${method}`,
  // No retryOptions: @google/genai then sends each call once.
  genai: (fetch) => new GoogleGenAI({ apiKey: 'fake-key', httpOptions: { fetch } }),
  vercel: (fetch, model) => createGoogleGenerativeAI({ apiKey: 'fake-key', fetch })(model),
  name: '@google/genai',
};

/**
 * @google/genai reads the answer as `call` asks it. Where the place's path is the one the client
 * builds (Vertex AI's), the client must have sent exactly the route the surface was asked.
 */
async function genaiReading(place: GeminiPlace, answer: WireAnswer, request: WireRequest, testCase: WireCase, call: (client: GoogleGenAI) => Promise<unknown>) {
  const sent: string[] = [];
  const reading = await settle(() => call(place.genai(replaying(answer, sent))));
  if (place.upstream === 'vertex') {
    const [path, query] = request.path.split('?');
    expect(sent, `${place.name} "${testCase.name}": the client's request`).toEqual([routeText(request.method, path!, new URLSearchParams(query))]);
  }
  expectClientReading(place.name, reading, testCase, GENAI_ERRORS);
}

/** generateContent (and its alt=sse stream) where `place` serves it. */
export function generateEntry(place: GeminiPlace): WireApiUnderTest {
  return {
    api: 'gemini-generate',
    upstream: place.upstream,
    request: (shape) => ({
      method: 'POST',
      path: place.path(MODEL, shape.stream ? 'streamGenerateContent?alt=sse' : 'generateContent'),
      body: {
        // Gemini refuses a request without contents.
        contents: shape.refused ? [] : contents(shape.tag, shape.toolResults),
        ...(shape.system ? { systemInstruction: { parts: [{ text: 'Be brief.' }] } } : {}),
        ...(shape.tools ? { tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: weather }] }] } : {}),
        ...(shape.structured
          ? {
              generationConfig: shape.stream
                ? { responseMimeType: 'application/json', responseJsonSchema: answerSchema }
                : { responseMimeType: 'application/json', responseSchema },
            }
          : {}),
      },
    }),
    cases: turnCases(503),
    grammar: checkGenerateStreamGrammar,
    isErrorEvent: (_event, data) => 'error' in data,
    errorShape: geminiErrorShape,
    async clients(answer, request, testCase) {
      const body = request.body as { contents: unknown[]; systemInstruction?: unknown; tools?: unknown; generationConfig?: Record<string, unknown> };
      const config = {
        ...(body.systemInstruction === undefined ? {} : { systemInstruction: body.systemInstruction }),
        ...(body.tools === undefined ? {} : { tools: body.tools }),
        ...body.generationConfig,
      } as GenerateContentConfig;
      // The client checks that there are contents before it sends; the refusal it reads is the surface's.
      const params = { model: MODEL, contents: (body.contents.length > 0 ? body.contents : 'Hi') as never, config };
      await genaiReading(place, answer, request, testCase, async (client) => {
        if (testCase.shape.stream) return client.models.generateContentStream(params);
        const response = await client.models.generateContent(params);
        expect(response.candidates?.[0]?.finishReason, 'finishReason').toBe('STOP');
        return response;
      });
      if (!vercelReads(testCase)) return 1;
      return 1 + (await vercelReading(place.vercel(replaying(answer), MODEL), testCase));
    },
  };
}

/** countTokens where `place` serves it. */
export function countTokensEntry(place: GeminiPlace): WireApiUnderTest {
  return {
    api: 'gemini-count-tokens',
    upstream: place.upstream,
    request: (shape) => ({
      method: 'POST',
      path: place.path(MODEL, 'countTokens'),
      body: { contents: shape.refused ? [] : contents(shape.tag, shape.toolResults) },
    }),
    cases: [
      { name: 'a message', shape: { tag: 'count-text' }, outcome: 'answer' },
      { name: 'a function call and its response', shape: { toolResults: true, tag: 'count-tools' }, outcome: 'answer' },
      { name: 'a refused request', shape: { refused: true, tag: 'refused' }, outcome: 'http-error', status: 400 },
    ],
    errorShape: geminiErrorShape,
    async clients(answer, request, testCase) {
      const sent = (request.body as { contents: unknown[] }).contents;
      await genaiReading(place, answer, request, testCase, async (client) => {
        const counted = await client.models.countTokens({ model: MODEL, contents: (sent.length > 0 ? sent : 'Hi') as never });
        expect(counted.totalTokens, 'totalTokens').toBeGreaterThan(0);
        return counted;
      });
      return 1;
    },
  };
}

export const generate = generateEntry(GEMINI_API);
export const geminiCountTokens = countTokensEntry(GEMINI_API);

const EMBEDDING_MODEL = 'gemini-embedding-001';

export const geminiEmbed: WireApiUnderTest = {
  api: 'gemini-embed',
  upstream: 'gemini',
  request: (shape) =>
    shape.tag === 'single'
      ? {
          method: 'POST',
          path: `/v1beta/models/${EMBEDDING_MODEL}:embedContent`,
          body: { model: `models/${EMBEDDING_MODEL}`, content: { parts: [{ text: 'a' }] } },
        }
      : {
          method: 'POST',
          path: `/v1beta/models/${EMBEDDING_MODEL}:batchEmbedContents`,
          body: {
            requests: shape.refused ? [] : ['a', shape.tag].map((text) => ({ model: `models/${EMBEDDING_MODEL}`, content: { parts: [{ text }] } })),
          },
        },
  cases: [
    { name: 'one content (embedContent)', shape: { tag: 'single' }, outcome: 'answer' },
    { name: 'a batch (batchEmbedContents)', shape: { tag: 'batch' }, outcome: 'answer' },
    { name: 'an empty batch, refused', shape: { refused: true, tag: 'refused' }, outcome: 'http-error', status: 400 },
  ],
  errorShape: geminiErrorShape,
  async clients(answer, _request, testCase) {
    const model = vercelGoogle(answer).textEmbeddingModel(EMBEDDING_MODEL);
    // @ai-sdk/google sends one value to :embedContent and more to :batchEmbedContents.
    const vercel = await settle(async () => {
      const vectors =
        testCase.shape.tag === 'single'
          ? [(await embed({ model, value: 'a', maxRetries: 0 })).embedding]
          : (await embedMany({ model, values: ['a', 'b'], maxRetries: 0 })).embeddings;
      expect(
        vectors.every((vector) => vector.length > 0),
        'vectors',
      ).toBe(true);
      return vectors;
    });
    expectClientReading('@ai-sdk/google', vercel, testCase, { apiError: APICallError, status: (error) => (error as { statusCode?: number }).statusCode });
    if (testCase.shape.tag === 'single') return 1;
    // @google/genai sends a list of contents to :batchEmbedContents.
    const reading = await settle(async () => {
      const embedded = await genai(answer).models.embedContent({ model: EMBEDDING_MODEL, contents: ['a', 'b'] });
      expect(embedded.embeddings?.length, 'embeddings').toBe(2);
      return embedded;
    });
    expectClientReading('@google/genai', reading, testCase, GENAI_ERRORS);
    return 2;
  },
};

export const geminiModels: WireApiUnderTest = {
  api: 'gemini-models',
  upstream: 'gemini',
  request: (shape) => ({ method: 'GET', path: shape.tag === 'one' ? `/v1beta/models/${MODEL}` : '/v1beta/models' }),
  cases: [
    { name: 'the model list', shape: { tag: 'list' }, outcome: 'answer' },
    { name: 'one model', shape: { tag: 'one' }, outcome: 'answer' },
  ],
  errorShape: geminiErrorShape,
  async clients(answer, _request, testCase) {
    const client = genai(answer);
    const reading = await settle(async () => {
      if (testCase.shape.tag === 'one') {
        const model = await client.models.get({ model: MODEL });
        expect(model.name, 'the model').toMatch(/^models\//);
        return model;
      }
      const names: string[] = [];
      for await (const model of await client.models.list()) names.push(model.name ?? '');
      expect(names.length, 'models listed').toBeGreaterThan(0);
      return names;
    });
    expectClientReading('@google/genai', reading, testCase, GENAI_ERRORS);
    return 1;
  },
};
