// OpenAI's wire APIs in the battery: Chat Completions, Responses, embeddings and the model list,
// validated against OpenAI's published spec.
import { createOpenAI } from '@ai-sdk/openai';
import OpenAI from 'openai';
import { expect } from 'vitest';
import { checkChatStreamGrammar, checkResponsesStreamGrammar } from '../../../providers/internal.js';
import {
  answerSchema,
  expectClientReading,
  idOf,
  replaying,
  segmentOf,
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
  type WireRequest,
} from '../wire-conformance.js';

export const OPENAI_ERRORS: ClientErrors = { apiError: OpenAI.APIError };

function openAiClient(answer: WireAnswer): OpenAI {
  return openAiOver(replaying(answer));
}

function openAiOver(fetch: typeof globalThis.fetch): OpenAI {
  return new OpenAI({ apiKey: 'fake-key', baseURL: 'https://api.openai.com/v1', fetch, maxRetries: 0 });
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

// --- the Responses API's server-held state: stored responses and conversations ------------------

const said = (text: string) => (fake: { willSay(text: string): unknown }) => void fake.willSay(text);
const turn = (tag: string, extra: Record<string, unknown> = {}): WireRequest => ({
  method: 'POST',
  path: '/v1/responses',
  body: { model: 'gpt-4o', input: `Weather in Paris? (${tag})`, ...extra },
});
const asCreate = (request: WireRequest) => request.body as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming;

/** `DELETE /v1/responses/{id}`: the spec says only "OK"; the API answers `{id, object:"response.deleted", deleted:true}`. */
function deletedResponseShape(body: unknown): string[] {
  const record = body as Record<string, unknown> | null;
  const problems: string[] = [];
  if (typeof record?.id !== 'string' || !record.id.startsWith('fake-resp-')) problems.push('.id: expected the deleted response id');
  if (record?.object !== 'response.deleted') problems.push('.object: expected "response.deleted"');
  if (record?.deleted !== true) problems.push('.deleted: expected true');
  const others = Object.keys(record ?? {}).filter((name) => !['id', 'object', 'deleted'].includes(name));
  if (others.length > 0) problems.push(`unexpected members ${others.join(', ')}`);
  return problems;
}

const storedId = (earlier: ReadonlyMap<string, unknown>) => encodeURIComponent(idOf(earlier, 'store'));

export const STORED_STEPS: StatefulStep<OpenAI>[] = [
  {
    case: {
      name: 'a response to store (POST /v1/responses)',
      shape: { tag: 'store' },
      script: said('Stored hello.'),
      outcome: 'answer',
      bodySchema: 'Response',
    },
    request: () => ({
      method: 'POST',
      path: '/v1/responses',
      body: {
        model: 'gpt-4o',
        input: [
          { role: 'developer', content: 'Be brief.' },
          { role: 'user', content: 'Weather in Paris? (store)' },
          { role: 'user', content: [{ type: 'input_text', text: 'And in Lyon?' }] },
        ],
      },
    }),
    read: (client, request) => client.responses.create(asCreate(request)),
  },
  {
    case: { name: 'retrieve it', shape: { tag: 'retrieve' }, outcome: 'answer', bodySchema: 'Response' },
    request: (earlier) => ({ method: 'GET', path: `/v1/responses/${storedId(earlier)}` }),
    read: (client, request) => client.responses.retrieve(segmentOf(request, 3)),
  },
  {
    case: { name: 'its input items, newest first', shape: { tag: 'input-items' }, outcome: 'answer' },
    request: (earlier) => ({ method: 'GET', path: `/v1/responses/${storedId(earlier)}/input_items` }),
    read: async (client, request) => (await client.responses.inputItems.list(segmentOf(request, 3))).data,
  },
  {
    case: { name: 'its input items, oldest first, one a page', shape: { tag: 'input-items-page' }, outcome: 'answer' },
    request: (earlier) => ({ method: 'GET', path: `/v1/responses/${storedId(earlier)}/input_items?limit=1&order=asc` }),
    read: async (client, request) => (await client.responses.inputItems.list(segmentOf(request, 3), { limit: 1, order: 'asc' })).data,
  },
  {
    case: { name: 'the next page (after the last id)', shape: { tag: 'input-items-after' }, outcome: 'answer' },
    request: (earlier) => ({
      method: 'GET',
      path: `/v1/responses/${storedId(earlier)}/input_items?limit=1&order=asc&after=${encodeURIComponent(idOf(earlier, 'input-items-page', (page) => page.last_id))}`,
    }),
    read: async (client, request) => {
      const after = new URLSearchParams(request.path.split('?')[1]).get('after')!;
      return (await client.responses.inputItems.list(segmentOf(request, 3), { limit: 1, order: 'asc', after })).data;
    },
  },
  {
    case: { name: 'cancel a synchronous response: a 400', shape: { tag: 'cancel' }, outcome: 'http-error', status: 400 },
    request: (earlier) => ({ method: 'POST', path: `/v1/responses/${storedId(earlier)}/cancel` }),
    read: (client, request) => client.responses.cancel(segmentOf(request, 3)),
  },
  {
    case: { name: 'delete it', shape: { tag: 'delete' }, outcome: 'answer', bodyShape: deletedResponseShape },
    request: (earlier) => ({ method: 'DELETE', path: `/v1/responses/${storedId(earlier)}` }),
    read: (client, request) => client.responses.delete(segmentOf(request, 3)),
  },
  {
    case: { name: 'the deleted response: a 404', shape: { tag: 'retrieve-deleted' }, outcome: 'http-error', status: 404 },
    request: (earlier) => ({ method: 'GET', path: `/v1/responses/${storedId(earlier)}` }),
    read: (client, request) => client.responses.retrieve(segmentOf(request, 3)),
  },
  {
    case: { name: 'an unknown response: a 404', shape: { tag: 'unknown' }, outcome: 'http-error', status: 404 },
    request: () => ({ method: 'GET', path: '/v1/responses/resp_unknown/input_items' }),
    read: async (client, request) => (await client.responses.inputItems.list(segmentOf(request, 3))).data,
  },
];

export const responsesStored: WireApiUnderTest = {
  api: 'openai-responses-stored',
  upstream: 'openai',
  ...statefulEntry(STORED_STEPS, openAiOver, { name: 'openai', errors: OPENAI_ERRORS }),
  spec: { provider: 'openai', body: 'ResponseItemList', error: 'ErrorResponse' },
  errorShape: openAiErrorShape,
};

const conversationId = (earlier: ReadonlyMap<string, unknown>) => encodeURIComponent(idOf(earlier, 'create'));
const firstAdded = (earlier: ReadonlyMap<string, unknown>) =>
  encodeURIComponent(idOf(earlier, 'items-create', (list) => (list.data as Array<{ id?: unknown }> | undefined)?.[0]?.id));
const itemOf = (request: WireRequest) => [segmentOf(request, 5), { conversation_id: segmentOf(request, 3) }] as const;

export const CONVERSATION_STEPS: StatefulStep<OpenAI>[] = [
  {
    case: { name: 'create a conversation with an item', shape: { tag: 'create' }, outcome: 'answer' },
    request: () => ({
      method: 'POST',
      path: '/v1/conversations',
      body: { metadata: { topic: 'weather' }, items: [{ type: 'message', role: 'developer', content: 'Be brief.' }] },
    }),
    read: (client, request) => client.conversations.create(request.body as OpenAI.Conversations.ConversationCreateParams),
  },
  {
    case: { name: 'retrieve it', shape: { tag: 'retrieve' }, outcome: 'answer' },
    request: (earlier) => ({ method: 'GET', path: `/v1/conversations/${conversationId(earlier)}` }),
    read: (client, request) => client.conversations.retrieve(segmentOf(request, 3)),
  },
  {
    case: { name: 'update its metadata', shape: { tag: 'update' }, outcome: 'answer' },
    request: (earlier) => ({ method: 'POST', path: `/v1/conversations/${conversationId(earlier)}`, body: { metadata: { topic: 'rain' } } }),
    read: (client, request) => client.conversations.update(segmentOf(request, 3), request.body as unknown as OpenAI.Conversations.ConversationUpdateParams),
  },
  {
    case: { name: 'add two items', shape: { tag: 'items-create' }, outcome: 'answer', bodySchema: 'ConversationItemList' },
    request: (earlier) => ({
      method: 'POST',
      path: `/v1/conversations/${conversationId(earlier)}/items`,
      body: {
        items: [
          { type: 'message', role: 'user', content: 'I am Ada.' },
          { type: 'message', role: 'assistant', content: 'Hello, Ada.' },
        ],
      },
    }),
    read: async (client, request) =>
      (await client.conversations.items.create(segmentOf(request, 3), request.body as unknown as OpenAI.Conversations.ItemCreateParams)).data,
  },
  {
    case: { name: 'list the items, oldest first, two a page', shape: { tag: 'items-list' }, outcome: 'answer', bodySchema: 'ConversationItemList' },
    request: (earlier) => ({ method: 'GET', path: `/v1/conversations/${conversationId(earlier)}/items?limit=2&order=asc` }),
    read: async (client, request) => (await client.conversations.items.list(segmentOf(request, 3), { limit: 2, order: 'asc' })).data,
  },
  {
    case: { name: 'retrieve an item', shape: { tag: 'item-retrieve' }, outcome: 'answer', bodySchema: 'ConversationItem' },
    request: (earlier) => ({ method: 'GET', path: `/v1/conversations/${conversationId(earlier)}/items/${firstAdded(earlier)}` }),
    read: (client, request) => client.conversations.items.retrieve(...itemOf(request)),
  },
  {
    case: {
      name: 'a turn on the conversation (POST /v1/responses)',
      shape: { tag: 'turn' },
      script: said('Your name is Ada.'),
      outcome: 'answer',
      bodySchema: 'Response',
    },
    request: (earlier) => turn('turn', { conversation: idOf(earlier, 'create') }),
    read: (client, request) => client.responses.create(asCreate(request)),
  },
  {
    case: { name: 'conversation and previous_response_id: a 400', shape: { tag: 'both' }, outcome: 'http-error', status: 400 },
    request: (earlier) => turn('both', { conversation: idOf(earlier, 'create'), previous_response_id: idOf(earlier, 'turn') }),
    read: (client, request) => client.responses.create(asCreate(request)),
  },
  {
    case: { name: 'the items after the turn, newest first', shape: { tag: 'items-after-turn' }, outcome: 'answer', bodySchema: 'ConversationItemList' },
    request: (earlier) => ({ method: 'GET', path: `/v1/conversations/${conversationId(earlier)}/items` }),
    read: async (client, request) => (await client.conversations.items.list(segmentOf(request, 3))).data,
  },
  {
    case: { name: 'delete an item', shape: { tag: 'item-delete' }, outcome: 'answer' },
    request: (earlier) => ({ method: 'DELETE', path: `/v1/conversations/${conversationId(earlier)}/items/${firstAdded(earlier)}` }),
    read: (client, request) => client.conversations.items.delete(...itemOf(request)),
  },
  {
    case: { name: 'the deleted item: a 404', shape: { tag: 'item-deleted' }, outcome: 'http-error', status: 404 },
    request: (earlier) => ({ method: 'GET', path: `/v1/conversations/${conversationId(earlier)}/items/${firstAdded(earlier)}` }),
    read: (client, request) => client.conversations.items.retrieve(...itemOf(request)),
  },
  {
    case: { name: 'delete the conversation', shape: { tag: 'delete' }, outcome: 'answer', bodySchema: 'DeletedConversationResource' },
    request: (earlier) => ({ method: 'DELETE', path: `/v1/conversations/${conversationId(earlier)}` }),
    read: (client, request) => client.conversations.delete(segmentOf(request, 3)),
  },
  {
    case: { name: 'the deleted conversation: a 404', shape: { tag: 'deleted' }, outcome: 'http-error', status: 404 },
    request: (earlier) => ({ method: 'GET', path: `/v1/conversations/${conversationId(earlier)}` }),
    read: (client, request) => client.conversations.retrieve(segmentOf(request, 3)),
  },
  {
    case: { name: 'a turn on an unknown conversation: a 404', shape: { tag: 'unknown' }, outcome: 'http-error', status: 404 },
    request: () => turn('unknown', { conversation: 'conv_unknown' }),
    read: (client, request) => client.responses.create(asCreate(request)),
  },
];

export const conversations: WireApiUnderTest = {
  api: 'openai-conversations',
  upstream: 'openai',
  ...statefulEntry(CONVERSATION_STEPS, openAiOver, { name: 'openai', errors: OPENAI_ERRORS }),
  spec: { provider: 'openai', body: 'ConversationResource', error: 'ErrorResponse' },
  errorShape: openAiErrorShape,
};
