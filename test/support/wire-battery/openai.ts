// OpenAI's wire APIs in the battery: Chat Completions, Responses, embeddings and the model list,
// validated against OpenAI's published spec.
import { createOpenAI } from '@ai-sdk/openai';
import OpenAI from 'openai';
import { expect } from 'vitest';
import { checkChatStreamGrammar, checkResponsesStreamGrammar } from '../../../providers/internal.js';
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

const OPENAI_ERRORS: ClientErrors = { apiError: OpenAI.APIError };

function openAiClient(answer: WireAnswer): OpenAI {
  return new OpenAI({ apiKey: 'fake-key', baseURL: 'https://api.openai.com/v1', fetch: replaying(answer), maxRetries: 0 });
}

/** OpenAI's error body: `{"error":{message,type,param,code}}`. */
export function openAiErrorShape(body: unknown): string[] {
  const error = (body as { error?: Record<string, unknown> } | null)?.error;
  if (error === undefined || error === null || typeof error !== 'object') return [`expected {"error":{…}}, found ${JSON.stringify(body)?.slice(0, 120)}`];
  const problems: string[] = [];
  if (typeof error.message !== 'string' || error.message === '') problems.push('.error.message: expected a non-empty string');
  if (typeof error.type !== 'string') problems.push('.error.type: expected a string');
  for (const name of ['param', 'code']) if (!(name in error)) problems.push(`.error.${name}: expected the key (null when there is none)`);
  return problems;
}

export const chat: WireApiUnderTest = {
  api: 'openai-chat',
  upstream: 'openai',
  request: (shape) => ({
    method: 'POST',
    path: '/v1/chat/completions',
    body: {
      model: 'gpt-4o',
      ...(shape.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
      messages: shape.refused
        ? []
        : [
            ...(shape.system ? [{ role: 'system', content: 'Be brief.' }] : []),
            { role: 'user', content: `Weather in Paris? (${shape.tag})` },
            ...(shape.toolResults
              ? [
                  {
                    role: 'assistant',
                    content: null,
                    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
                  },
                  { role: 'tool', tool_call_id: 'call_1', content: '14 °C' },
                ]
              : []),
          ],
      ...(shape.tools ? { tools: [{ type: 'function', function: { name: 'get_weather', parameters: weather, strict: true } }] } : {}),
      ...(shape.structured ? { response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: answerSchema, strict: true } } } : {}),
    },
  }),
  cases: turnCases(503),
  spec: { provider: 'openai', body: 'CreateChatCompletionResponse', event: 'CreateChatCompletionStreamResponse', error: 'ErrorResponse' },
  grammar: checkChatStreamGrammar,
  isErrorEvent: (_event, data) => 'error' in data,
  errorShape: openAiErrorShape,
  async clients(answer, request, testCase) {
    const body = request.body as unknown as OpenAI.ChatCompletionCreateParams;
    expectClientReading('openai', await settle(() => openAiClient(answer).chat.completions.create(body)), testCase, OPENAI_ERRORS);
    if (!vercelReads(testCase)) return 1;
    return 1 + (await vercelReading(createOpenAI({ apiKey: 'fake-key', fetch: replaying(answer) }).chat('gpt-4o'), testCase));
  },
};

export const responses: WireApiUnderTest = {
  api: 'openai-responses',
  upstream: 'openai',
  request: (shape) => ({
    method: 'POST',
    path: '/v1/responses',
    body: {
      model: 'gpt-4o',
      ...(shape.stream ? { stream: true } : {}),
      ...(shape.system ? { instructions: 'Be brief.' } : {}),
      input: shape.refused
        ? 7
        : shape.toolResults
          ? [
              { role: 'user', content: `Weather in Paris? (${shape.tag})` },
              { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
              { type: 'function_call_output', call_id: 'call_1', output: '14 °C' },
            ]
          : `Weather in Paris? (${shape.tag})`,
      ...(shape.tools ? { tools: [{ type: 'function', name: 'get_weather', parameters: weather, strict: true }] } : {}),
      ...(shape.structured ? { text: { format: { type: 'json_schema', name: 'answer', schema: answerSchema, strict: true } } } : {}),
    },
  }),
  cases: turnCases(503),
  spec: { provider: 'openai', body: 'Response', event: 'ResponseStreamEvent', error: 'ErrorResponse' },
  grammar: checkResponsesStreamGrammar,
  errorShape: openAiErrorShape,
  async clients(answer, request, testCase) {
    const body = request.body as unknown as OpenAI.Responses.ResponseCreateParams;
    expectClientReading('openai', await settle(() => openAiClient(answer).responses.create(body)), testCase, OPENAI_ERRORS);
    if (!vercelReads(testCase)) return 1;
    return 1 + (await vercelReading(createOpenAI({ apiKey: 'fake-key', fetch: replaying(answer) }).responses('gpt-4o'), testCase));
  },
};

export const embeddings: WireApiUnderTest = {
  api: 'openai-embeddings',
  upstream: 'openai',
  request: (shape) => ({
    method: 'POST',
    path: '/v1/embeddings',
    body: shape.refused
      ? { model: 'text-embedding-3-small' }
      : { model: 'text-embedding-3-small', input: ['a', shape.tag], encoding_format: shape.tag === 'base64' ? 'base64' : 'float' },
  }),
  cases: [
    { name: 'floats', shape: { tag: 'floats' }, outcome: 'answer' },
    // The spec types `embedding` as numbers only; base64 vectors are checked by the client reading them.
    { name: 'base64', shape: { tag: 'base64' }, outcome: 'answer' },
    { name: 'a refused request', shape: { refused: true, tag: 'refused' }, outcome: 'http-error', status: 400 },
  ],
  spec: { provider: 'openai', body: 'CreateEmbeddingResponse', error: 'ErrorResponse' },
  asSpecified: (body) => {
    const record = body as { data: Array<{ embedding: unknown }> };
    const floats = (base64: string): number[] => {
      const bytes = Buffer.from(base64, 'base64');
      return [...new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)];
    };
    return { ...record, data: record.data.map((item) => (typeof item.embedding === 'string' ? { ...item, embedding: floats(item.embedding) } : item)) };
  },
  errorShape: openAiErrorShape,
  async clients(answer, request, testCase) {
    const body = request.body as unknown as OpenAI.EmbeddingCreateParams;
    expectClientReading('openai', await settle(() => openAiClient(answer).embeddings.create(body)), testCase, OPENAI_ERRORS);
    return 1;
  },
};

export const models: WireApiUnderTest = {
  api: 'openai-models',
  upstream: 'openai',
  request: () => ({ method: 'GET', path: '/v1/models' }),
  cases: [{ name: 'the model list', shape: { tag: 'list' }, outcome: 'answer' }],
  spec: { provider: 'openai', body: 'ListModelsResponse', error: 'ErrorResponse' },
  errorShape: openAiErrorShape,
  async clients(answer, _request, testCase) {
    const reading = await settle(async () => {
      const page = await openAiClient(answer).models.list();
      expect(page.data.length, 'models listed').toBeGreaterThan(0);
      return page.data;
    });
    expectClientReading('openai', reading, testCase, OPENAI_ERRORS);
    return 1;
  },
};
