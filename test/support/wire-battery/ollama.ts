// Ollama's wire APIs in the battery: /api/chat and /api/generate (JSON with `stream:false` and
// NDJSON otherwise: Ollama streams by default, so the streamed cases send no `stream` at all),
// /api/embed and /api/tags.
// Bodies and events are validated against Ollama's published OpenAPI document
// (test/fixtures/specs/ollama-schemas.json), which marks almost nothing required and so checks the
// types of what is there; what must be there is checked by the stream grammars
// (providers/ollama/*/stream-grammar.ts), the `{"error":"…"}` shape and the clients reading the
// bytes (the `ollama` client, and `ai` with ollama-ai-provider-v2 for chat).
import { Ollama, type ChatRequest, type EmbedRequest, type GenerateRequest } from 'ollama';
import { createOllama } from 'ollama-ai-provider-v2';
import { expect } from 'vitest';
import { checkOllamaChatStreamGrammar, checkOllamaGenerateStreamGrammar } from '../../../providers/internal.js';
import {
  answerSchema,
  expectClientReading,
  replaying,
  settle,
  turnCases,
  vercelReading,
  vercelReads,
  weather,
  type ClientErrors,
  type WireAnswer,
  type WireApiUnderTest,
} from '../wire-conformance.js';

// The `ollama` client raises a ResponseError carrying `.status_code` for an HTTP error, and a
// plain Error with the message for an `{"error":"…"}` line in a stream.
const OLLAMA_ERRORS: ClientErrors = {
  apiError: Error,
  status: (error) => (error as { status_code?: number }).status_code,
  streamError: (error) => error instanceof Error && !('status_code' in error) && error.name === 'Error',
};

function ollamaClient(answer: WireAnswer): Ollama {
  return new Ollama({ host: 'http://127.0.0.1:11434', fetch: replaying(answer) });
}

/** Ollama's error body: `{"error":"…"}`, the message alone. */
function ollamaErrorShape(body: unknown): string[] {
  const record = body as Record<string, unknown> | null;
  if (typeof record !== 'object' || record === null || typeof record.error !== 'string' || record.error === '')
    return [`expected {"error":"…"}, found ${JSON.stringify(body)?.slice(0, 120)}`];
  const others = Object.keys(record).filter((name) => name !== 'error');
  return others.length === 0 ? [] : [`expected the error alone, found also ${others.join(', ')}`];
}

const MODEL = 'llama3.2';
const lines = (check: (lines: readonly string[]) => string[]) => (events: readonly { data: string }[]) => check(events.map((event) => event.data));

export const ollamaChat: WireApiUnderTest = {
  api: 'ollama-chat',
  upstream: 'ollama',
  request: (shape) => ({
    method: 'POST',
    path: '/api/chat',
    body: {
      // Ollama refuses a request without a model.
      model: shape.refused ? '' : MODEL,
      messages: [
        ...(shape.system ? [{ role: 'system', content: 'Be brief.' }] : []),
        { role: 'user', content: `Weather in Paris? (${shape.tag})` },
        ...(shape.toolResults
          ? [
              { role: 'assistant', content: '', tool_calls: [{ function: { name: 'get_weather', arguments: { city: 'Paris' } } }] },
              { role: 'tool', content: '14 °C', tool_name: 'get_weather' },
            ]
          : []),
      ],
      ...(shape.tools ? { tools: [{ type: 'function', function: { name: 'get_weather', parameters: weather } }] } : {}),
      ...(shape.structured ? { format: answerSchema } : {}),
      ...(shape.stream ? {} : { stream: false }),
    },
  }),
  cases: turnCases(503),
  spec: { provider: 'ollama', body: 'ChatResponse', event: 'ChatStreamEvent', error: 'ErrorResponse' },
  streamFormat: 'ndjson',
  grammar: lines(checkOllamaChatStreamGrammar),
  isErrorEvent: (_event, data) => 'error' in data,
  errorShape: ollamaErrorShape,
  async clients(answer, request, testCase) {
    const body = request.body as unknown as ChatRequest;
    const client = ollamaClient(answer);
    const reading = await settle(async () => {
      if (testCase.shape.stream) return client.chat({ ...body, stream: true });
      const response = await client.chat({ ...body, stream: false });
      expect(response.done, 'done').toBe(true);
      return response;
    });
    expectClientReading('ollama', reading, testCase, OLLAMA_ERRORS);
    if (!vercelReads(testCase)) return 1;
    return 1 + (await vercelReading(createOllama({ fetch: replaying(answer) })(MODEL), testCase));
  },
};

export const ollamaGenerate: WireApiUnderTest = {
  api: 'ollama-generate',
  upstream: 'ollama',
  request: (shape) => ({
    method: 'POST',
    path: '/api/generate',
    body: {
      model: shape.refused ? '' : MODEL,
      prompt: `Weather in Paris? (${shape.tag})`,
      ...(shape.system ? { system: 'Be brief.' } : {}),
      ...(shape.structured ? { format: answerSchema } : {}),
      ...(shape.stream ? {} : { stream: false }),
    },
  }),
  // /api/generate takes no tools.
  cases: turnCases(503, { tools: false }),
  spec: { provider: 'ollama', body: 'GenerateResponse', event: 'GenerateStreamEvent', error: 'ErrorResponse' },
  streamFormat: 'ndjson',
  grammar: lines(checkOllamaGenerateStreamGrammar),
  isErrorEvent: (_event, data) => 'error' in data,
  errorShape: ollamaErrorShape,
  // ollama-ai-provider-v2 speaks /api/chat only: the `ollama` client alone reads /api/generate.
  async clients(answer, request, testCase) {
    const body = request.body as unknown as GenerateRequest;
    const client = ollamaClient(answer);
    const reading = await settle(async () => {
      if (testCase.shape.stream) return client.generate({ ...body, stream: true });
      const response = await client.generate({ ...body, stream: false });
      expect(response.done, 'done').toBe(true);
      return response;
    });
    expectClientReading('ollama', reading, testCase, OLLAMA_ERRORS);
    return 1;
  },
};

export const ollamaEmbed: WireApiUnderTest = {
  api: 'ollama-embed',
  upstream: 'ollama',
  request: (shape) => ({
    method: 'POST',
    path: '/api/embed',
    body: { model: shape.refused ? '' : 'nomic-embed-text', input: shape.tag === 'one' ? 'a' : ['a', shape.tag] },
  }),
  cases: [
    { name: 'one input', shape: { tag: 'one' }, outcome: 'answer' },
    { name: 'a list of inputs', shape: { tag: 'many' }, outcome: 'answer' },
    { name: 'a refused request', shape: { refused: true, tag: 'refused' }, outcome: 'http-error', status: 400 },
  ],
  spec: { provider: 'ollama', body: 'EmbedResponse', error: 'ErrorResponse' },
  errorShape: ollamaErrorShape,
  async clients(answer, request, testCase) {
    const body = request.body as unknown as EmbedRequest;
    const reading = await settle(async () => {
      const embedded = await ollamaClient(answer).embed(body);
      expect(embedded.embeddings.length, 'embeddings').toBe(Array.isArray(body.input) ? body.input.length : 1);
      return embedded;
    });
    expectClientReading('ollama', reading, testCase, OLLAMA_ERRORS);
    return 1;
  },
};

export const ollamaTags: WireApiUnderTest = {
  api: 'ollama-tags',
  upstream: 'ollama',
  request: () => ({ method: 'GET', path: '/api/tags' }),
  cases: [{ name: 'the local models', shape: { tag: 'list' }, outcome: 'answer' }],
  spec: { provider: 'ollama', body: 'ListResponse', error: 'ErrorResponse' },
  errorShape: ollamaErrorShape,
  async clients(answer, _request, testCase) {
    const reading = await settle(async () => {
      const listed = await ollamaClient(answer).list();
      expect(listed.models.length, 'models listed').toBeGreaterThan(0);
      return listed;
    });
    expectClientReading('ollama', reading, testCase, OLLAMA_ERRORS);
    return 1;
  },
};
