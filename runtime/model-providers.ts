import { ModeltapeError, excerpt } from '../core/internal.js';
import { ModelCallError } from './errors.js';
import {
  readChatAnswer,
  readGenerateAnswer,
  readMessagesAnswer,
  readOllamaChatAnswer,
  readResponsesAnswer,
  renderChatRequest,
  renderGenerateRequest,
  renderMessagesRequest,
  renderOllamaChatRequest,
  renderResponsesRequest,
  type ModelAnswer,
  type ModelRequest,
  type ModelToolCall,
  type OfferedTool,
  type Turn,
  type TurnApi,
  type UnreadableAnswer,
} from '../providers/internal.js';

/** The wire APIs the runtime renders model calls in (names from providers/). */
export const MODEL_APIS = ['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini-generate', 'ollama-chat'] as const satisfies readonly TurnApi[];
export type ModelApi = (typeof MODEL_APIS)[number];

export type { ModelAnswer, ModelRequest, ModelToolCall, OfferedTool, Turn };

/**
 * How the runtime reaches a provider: through a `fetch` (the FakeProvider's `fake.fetch` in
 * tests, the global one for real HTTP, e.g. through a modeltape proxy's base URL).
 */
export interface ProviderConnection {
  api: ModelApi;
  /** @default 'https://api.openai.com/v1' (both OpenAI APIs), 'https://api.anthropic.com', 'https://generativelanguage.googleapis.com' or (Ollama) 'http://127.0.0.1:11434' */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer` (OpenAI, Ollama), `x-api-key` (Anthropic) or `x-goog-api-key` (Gemini); a local Ollama needs none. Never journaled. */
  apiKey?: string;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Extra request headers (never journaled). */
  headers?: Record<string, string>;
}

const DEFAULT_BASE_URLS: Record<ModelApi, string> = {
  'openai-chat': 'https://api.openai.com/v1',
  'openai-responses': 'https://api.openai.com/v1',
  'anthropic-messages': 'https://api.anthropic.com',
  'gemini-generate': 'https://generativelanguage.googleapis.com',
  'ollama-chat': 'http://127.0.0.1:11434',
};

/** Where each API's model call goes, from the base URL (Gemini names the model in the path). */
const ENDPOINTS: Record<ModelApi, (base: string, model: string) => string> = {
  'openai-chat': (base) => `${base}/chat/completions`,
  'openai-responses': (base) => `${base}/responses`,
  'anthropic-messages': (base) => `${base}/v1/messages`,
  'gemini-generate': (base, model) => `${base}/v1beta/models/${encodeURIComponent(model)}:generateContent`,
  'ollama-chat': (base) => `${base}/api/chat`,
};

/** The header each API takes its key in. */
const KEY_HEADERS: Record<ModelApi, (key: string) => Record<string, string>> = {
  'openai-chat': (key) => ({ authorization: `Bearer ${key}` }),
  'openai-responses': (key) => ({ authorization: `Bearer ${key}` }),
  'anthropic-messages': (key) => ({ 'x-api-key': key }),
  'gemini-generate': (key) => ({ 'x-goog-api-key': key }),
  'ollama-chat': (key) => ({ authorization: `Bearer ${key}` }),
};

/** How each API's body is written, and its answer read (providers/<provider>/<api>/). */
const RENDERERS: Record<ModelApi, (request: ModelRequest) => Record<string, unknown>> = {
  'openai-chat': renderChatRequest,
  'openai-responses': renderResponsesRequest,
  'anthropic-messages': renderMessagesRequest,
  'gemini-generate': renderGenerateRequest,
  'ollama-chat': renderOllamaChatRequest,
};

const READERS: Record<ModelApi, (body: unknown) => ModelAnswer | UnreadableAnswer> = {
  'openai-chat': readChatAnswer,
  'openai-responses': readResponsesAnswer,
  'anthropic-messages': readMessagesAnswer,
  'gemini-generate': readGenerateAnswer,
  'ollama-chat': readOllamaChatAnswer,
};

/** Sends one model request and reads the answer. */
export async function callModel(provider: string, connection: ProviderConnection, request: ModelRequest, signal?: AbortSignal): Promise<ModelAnswer> {
  const base = (connection.baseUrl ?? DEFAULT_BASE_URLS[connection.api]).replace(/\/+$/, '');
  const url = ENDPOINTS[connection.api](base, request.model);
  const body = renderModelRequest(connection.api, request);
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', ...connection.headers };
  if (connection.apiKey !== undefined) Object.assign(headers, KEY_HEADERS[connection.api](connection.apiKey));
  if (connection.api === 'anthropic-messages') headers['anthropic-version'] ??= '2023-06-01';
  const send = connection.fetch ?? globalThis.fetch;
  let response: Response;
  try {
    response = await send(url, { method: 'POST', headers, body: JSON.stringify(body), ...(signal ? { signal } : {}) });
  } catch (error) {
    throw new ModelCallError(`Could not reach provider "${provider}" at ${url}: ${(error as Error).message}`, undefined, error);
  }
  const text = await response.text();
  if (!response.ok) {
    throw new ModelCallError(`Provider "${provider}" answered ${response.status} to POST ${url}: ${excerpt(text, 300)}`, response.status);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ModelCallError(`Provider "${provider}" answered POST ${url} with a body that is not JSON: ${excerpt(text, 200)}`, response.status, error);
  }
  const answer = READERS[connection.api](parsed);
  if ('problem' in answer) throw new ModelCallError(`Provider "${provider}" ${answer.problem}`, response.status);
  return answer;
}

/** The request body the runtime sends for one model call: exactly the bytes' JSON, before serializing. */
export function renderModelRequest(api: ModelApi, request: ModelRequest): Record<string, unknown> {
  return RENDERERS[api](request);
}

/** Checks a provider connection once, at the boundary. */
export function checkConnection(name: string, connection: ProviderConnection): void {
  if (!MODEL_APIS.includes(connection.api)) {
    throw new ModeltapeError('invalid_provider', `Provider "${name}" has api "${String(connection.api)}": expected one of ${MODEL_APIS.join(', ')}.`);
  }
}
