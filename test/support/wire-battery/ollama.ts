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
  statefulEntry,
  turnCases,
  vercelReading,
  vercelReads,
  weather,
  type ClientErrors,
  type StatefulStep,
  type WireAnswer,
  type WireApiUnderTest,
} from '../wire-conformance.js';
import type { GrammarEvent } from '../../../providers/internal.js';

// The `ollama` client raises a ResponseError carrying `.status_code` for an HTTP error, and a
// plain Error with the message for an `{"error":"…"}` line in a stream.
const OLLAMA_ERRORS: ClientErrors = {
  apiError: Error,
  status: (error) => (error as { status_code?: number }).status_code,
  streamError: (error) => error instanceof Error && !('status_code' in error) && error.name === 'Error',
};

function ollamaClient(answer: WireAnswer): Ollama {
  return ollamaOver(replaying(answer));
}

function ollamaOver(fetch: typeof globalThis.fetch): Ollama {
  return new Ollama({ host: 'http://127.0.0.1:11434', fetch });
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

// --- model management: show, ps, version, pull, push, create, copy, delete ----------------------

/**
 * The progress stream of pull, push and create as ollama/ollama server/routes.go writes it: one
 * `{"status":…}` object a line (a transfer adds digest, total, completed), the last
 * `{"status":"success"}`. Problems, in order; empty when it fits.
 */
function checkProgressStream(events: readonly GrammarEvent[]): string[] {
  if (events.length === 0) return ['the stream has no lines'];
  const problems: string[] = [];
  for (const [position, event] of events.entries()) {
    const line = JSON.parse(event.data) as Record<string, unknown>;
    if ('error' in line) return [...problems, `line ${position} is an error: ${String(line.error)}`];
    if (typeof line.status !== 'string' || line.status === '') problems.push(`line ${position}: expected a "status"`);
    if ('digest' in line && !(typeof line.digest === 'string' && /^sha256:[0-9a-f]{64}$/.test(line.digest))) problems.push(`line ${position}: .digest`);
    if ('completed' in line && (typeof line.total !== 'number' || typeof line.completed !== 'number' || line.completed > line.total))
      problems.push(`line ${position}: .completed past .total`);
    if (line.status === 'success' && position !== events.length - 1) problems.push(`line ${position}: "success" before the end`);
  }
  if ((JSON.parse(events.at(-1)!.data) as { status?: unknown }).status !== 'success')
    problems.push(`the stream stops after ${events.length} lines without {"status":"success"}`);
  return problems;
}

const COPY = 'fake-llama3.2:backup';

const MODEL_STEPS: StatefulStep<Ollama>[] = [
  {
    case: { name: 'the version (GET /api/version)', shape: { tag: 'version' }, outcome: 'answer', bodySchema: 'VersionResponse' },
    request: () => ({ method: 'GET', path: '/api/version' }),
    read: (client) => client.version(),
  },
  {
    // A turn loads its model, so /api/ps has one to list.
    case: {
      name: 'a turn loads a model (POST /api/chat)',
      shape: { tag: 'turn' },
      script: (fake) => void fake.willSay('Loaded.'),
      outcome: 'answer',
      bodySchema: 'ChatResponse',
    },
    request: () => ({ method: 'POST', path: '/api/chat', body: { model: MODEL, messages: [{ role: 'user', content: 'Hi (turn)' }], stream: false } }),
    read: (client, request) => client.chat({ ...(request.body as unknown as ChatRequest), stream: false }),
  },
  {
    case: { name: 'the loaded models (GET /api/ps)', shape: { tag: 'ps' }, outcome: 'answer', bodySchema: 'PsResponse' },
    request: () => ({ method: 'GET', path: '/api/ps' }),
    read: async (client) => {
      const running = await client.ps();
      expect(
        running.models.map((model) => model.name),
        'loaded models',
      ).toEqual(['fake-llama3.2:latest']);
      return running;
    },
  },
  {
    case: { name: 'show a model', shape: { tag: 'show' }, outcome: 'answer', bodySchema: 'ShowResponse' },
    request: () => ({ method: 'POST', path: '/api/show', body: { model: MODEL } }),
    read: (client) => client.show({ model: MODEL }),
  },
  {
    case: { name: 'pull a model, streamed', shape: { tag: 'pull', stream: true }, outcome: 'stream' },
    request: () => ({ method: 'POST', path: '/api/pull', body: { model: 'mistral' } }),
    read: (client) => client.pull({ model: 'mistral', stream: true }),
  },
  {
    case: { name: 'pull a model, stream:false', shape: { tag: 'pull-one' }, outcome: 'answer' },
    request: () => ({ method: 'POST', path: '/api/pull', body: { model: 'gemma3', stream: false } }),
    read: (client) => client.pull({ model: 'gemma3', stream: false }),
  },
  {
    case: { name: 'create a model from another, streamed', shape: { tag: 'create', stream: true }, outcome: 'stream' },
    request: () => ({ method: 'POST', path: '/api/create', body: { model: 'fake-brief', from: MODEL, system: 'Be brief.' } }),
    read: (client) => client.create({ model: 'fake-brief', from: MODEL, system: 'Be brief.', stream: true }),
  },
  {
    case: { name: 'push a model, stream:false', shape: { tag: 'push' }, outcome: 'answer' },
    request: () => ({ method: 'POST', path: '/api/push', body: { model: 'fake-brief', stream: false } }),
    read: (client) => client.push({ model: 'fake-brief', stream: false }),
  },
  {
    case: { name: 'copy a model (200, no body)', shape: { tag: 'copy' }, outcome: 'empty' },
    request: () => ({ method: 'POST', path: '/api/copy', body: { source: MODEL, destination: COPY } }),
    read: (client) => client.copy({ source: MODEL, destination: COPY }),
  },
  {
    case: { name: 'show the copy', shape: { tag: 'show-copy' }, outcome: 'answer', bodySchema: 'ShowResponse' },
    request: () => ({ method: 'POST', path: '/api/show', body: { model: COPY } }),
    read: (client) => client.show({ model: COPY }),
  },
  {
    case: { name: 'delete the copy (200, no body)', shape: { tag: 'delete' }, outcome: 'empty' },
    request: () => ({ method: 'DELETE', path: '/api/delete', body: { model: COPY } }),
    read: (client) => client.delete({ model: COPY }),
  },
  {
    case: { name: "the deleted copy: a 404 model '…' not found", shape: { tag: 'show-deleted' }, outcome: 'http-error', status: 404 },
    request: () => ({ method: 'POST', path: '/api/show', body: { model: COPY } }),
    read: (client) => client.show({ model: COPY }),
  },
  {
    case: { name: 'delete an unknown model: a 404', shape: { tag: 'delete-unknown' }, outcome: 'http-error', status: 404 },
    request: () => ({ method: 'DELETE', path: '/api/delete', body: { model: 'no-such-model' } }),
    read: (client) => client.delete({ model: 'no-such-model' }),
  },
];

export const ollamaModels: WireApiUnderTest = {
  api: 'ollama-models',
  upstream: 'ollama',
  ...statefulEntry(MODEL_STEPS, ollamaOver, { name: 'ollama', errors: OLLAMA_ERRORS }),
  spec: { provider: 'ollama', body: 'StatusResponse', event: 'StatusEvent', error: 'ErrorResponse' },
  streamFormat: 'ndjson',
  grammar: checkProgressStream,
  isErrorEvent: (_event, data) => 'error' in data,
  errorShape: ollamaErrorShape,
};
