import { isRecord } from '../core/internal.js';
import { readMessagesRequest } from './anthropic/messages/read-request.js';
import { readConverseRequest } from './bedrock/converse/read-request.js';
import { readInvokeRequest } from './bedrock/invoke/read-request.js';
import { readOllamaChatRequest } from './ollama/chat/read-request.js';
import { readOllamaGenerateRequest } from './ollama/generate/read-request.js';
import { readGenerateRequest } from './gemini/read-request.js';
import { readChatRequest } from './openai/chat/read-request.js';
import { readResponsesRequest } from './openai/responses/read-request.js';
import type { AskedTurn } from './turn.js';
import { providerOf, routeOf, withoutProviderPrefix, type Provider, type Route, type TurnApi } from './vocabulary.js';

/** Each turn API's reader: a request body into the turn it shows the model. */
const READERS: Partial<Record<TurnApi, (body: Record<string, unknown>, index: number, route: Route) => AskedTurn>> = {
  'openai-chat': readChatRequest,
  'openai-responses': readResponsesRequest,
  // On Vertex AI the model is in the path (`…/publishers/anthropic/models/{model}:rawPredict`), not the body.
  'anthropic-messages': (body, index, route) => {
    const turn = readMessagesRequest(body, index);
    return route.provider === 'vertex' ? { ...turn, model: route.model ?? turn.model, stream: route.stream === true || turn.stream } : turn;
  },
  'ollama-chat': readOllamaChatRequest,
  'ollama-generate': readOllamaGenerateRequest,
  'gemini-generate': readGenerateRequest,
  'bedrock-converse': readConverseRequest,
  'bedrock-invoke': readInvokeRequest,
};

/** The turn APIs a reader here can read. */
export function readableTurnApis(): TurnApi[] {
  return Object.keys(READERS) as TurnApi[];
}

/**
 * What a request body would show a model turn (system, messages, tools, prompt…), read by its
 * API's reader; undefined for a path that is not a model turn, a body that is not an object, or
 * one its reader cannot read. `provider` settles a path two providers share (`/v1/models`), as
 * `routeOf` takes it.
 */
export function readTurn(path: string, body: unknown, method = 'POST', provider?: Provider): AskedTurn | undefined {
  const route = routeOf(method, withoutProviderPrefix(path.split('?')[0]!).path, provider);
  if (route === undefined || !(route.api in READERS)) return undefined;
  return readTurnAs(route.api as TurnApi, body, route);
}

/**
 * A request body read as `api`'s, whatever path it came on (an OpenAI-compatible server's own
 * path, say); undefined for a body that is not an object or that the reader cannot read.
 */
export function readTurnAs(api: TurnApi, body: unknown, route: Route = { api, provider: providerOf(api) }): AskedTurn | undefined {
  const reader = READERS[api];
  if (reader === undefined || !isRecord(body)) return undefined;
  try {
    return reader(body, 0, route);
  } catch {
    return undefined;
  }
}
