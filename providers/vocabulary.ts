/**
 * The names every part uses for providers and their wire APIs: the proxy (whose conventions an
 * upstream follows), the replay engine and the fake (which API a request is, which error shape
 * answers it), the runtime (which API it renders) and the drift report (how it reads a body).
 */

/**
 * Whose conventions a server follows: error shapes, credential headers, path quirks. `mcp` is a
 * Model Context Protocol server over Streamable HTTP: JSON-RPC on one endpoint. `azure` is Azure
 * OpenAI: OpenAI's wire APIs (`openai-chat`, `openai-responses`, `openai-embeddings`, …) under
 * `/openai/deployments/{deployment}/…` or `/openai/v1/…` on a resource's host. `bedrock` is AWS
 * Bedrock Runtime: `/model/{modelId}/converse`, `…/converse-stream`, `…/invoke` and
 * `…/invoke-with-response-stream`, signed with SigV4, streamed in AWS's binary event stream.
 * `vertex` is Google Vertex AI: Gemini's wire APIs (`gemini-generate`, `gemini-count-tokens`) at
 * `/v1/projects/{project}/locations/{location}/publishers/google/models/{model}:generateContent`
 * (and `v1beta1`), and Anthropic's (`anthropic-messages`, `anthropic-count-tokens`) at
 * `…/publishers/anthropic/models/{model}:rawPredict` and `:streamRawPredict`, on a host per
 * location, with Google OAuth access tokens.
 */
export const PROVIDERS = ['openai', 'anthropic', 'gemini', 'ollama', 'mcp', 'azure', 'bedrock', 'vertex'] as const;
export type Provider = (typeof PROVIDERS)[number];

/**
 * One wire API: a route (or a few that take the same body) in one provider's format.
 * `…-models` are the model lists (`ollama-models` is Ollama's model management: show, ps,
 * version, pull, push, create, copy, delete); the others carry a request body.
 */
export const WIRE_APIS = [
  'openai-chat',
  'openai-responses',
  // The Responses API's server-held state: a stored response (its input items, its cancel), and the Conversations API.
  'openai-responses-stored',
  'openai-conversations',
  'openai-embeddings',
  'openai-models',
  'anthropic-messages',
  'anthropic-count-tokens',
  'anthropic-models',
  'gemini-generate',
  'gemini-count-tokens',
  'gemini-embed',
  'gemini-models',
  'ollama-chat',
  'ollama-generate',
  'ollama-embed',
  'ollama-tags',
  'ollama-models',
  // A Model Context Protocol server's JSON-RPC endpoint (any path: the upstream says it is one).
  'mcp',
  // OpenAI Realtime over WebSocket: the upgrade `GET /v1/realtime?model=…` and the session's events (see isRealtimePath).
  'openai-realtime',
  // Bedrock Runtime's Converse API: `/model/{modelId}/converse` and `…/converse-stream` (one body, the model's own API aside).
  'bedrock-converse',
  // Bedrock Runtime's InvokeModel: `/model/{modelId}/invoke` and `…/invoke-with-response-stream`, with the model's own body (Anthropic Messages, Amazon Nova, …).
  'bedrock-invoke',
] as const;
export type WireApi = (typeof WIRE_APIS)[number];

/** The wire APIs whose request is a model turn (a conversation that a model answers). */
export const TURN_APIS = [
  'openai-chat',
  'openai-responses',
  'anthropic-messages',
  'gemini-generate',
  'ollama-chat',
  'ollama-generate',
  'openai-realtime',
  'bedrock-converse',
  // InvokeModel is a turn when its body is a chat model's (Anthropic Messages, Amazon Nova); other bodies are not read.
  'bedrock-invoke',
] as const;
export type TurnApi = (typeof TURN_APIS)[number];

/** The provider whose format a wire API is in. */
export function providerOf(api: WireApi): Provider {
  return api.slice(0, api.indexOf('-')) as Provider;
}

/** What a request's method and path are, in the provider's own terms. */
export interface Route {
  api: WireApi;
  provider: Provider;
  /** For Gemini, Bedrock and Vertex, the model named in the path (`/v1beta/models/{model}:generateContent`, `/model/{modelId}/converse`), decoded. */
  model?: string;
  /** For Gemini, Bedrock and Vertex, whether the path asks for a stream (`:streamGenerateContent`, `/converse-stream`, `/invoke-with-response-stream`, `:streamRawPredict`). */
  stream?: boolean;
}

/**
 * The wire API a request is for, from its method and path (without the query, and without a
 * `/openai`, `/anthropic`, `/gemini` or `/ollama` prefix), or undefined for a route no provider
 * here has. Anthropic's two clients build `/v1/messages` (@anthropic-ai/sdk) and `/messages`
 * (@ai-sdk/anthropic) from one base URL, and OpenAI's clients `/v1/…` or `/…`; both are read.
 * `hint` settles the paths two providers share (`/v1/models`, OpenAI-compatible `/v1/…` on an
 * Ollama server): the provider an upstream or header says it is. An `mcp` hint is an MCP
 * server's endpoint, whatever its path.
 */
export function routeOf(method: string, path: string, hint?: Provider): Route | undefined {
  if (hint === 'mcp') return { api: 'mcp', provider: 'mcp' };
  if (hint === 'azure') {
    // Azure OpenAI: `/openai/deployments/{deployment}/chat/completions`, `/openai/responses`,
    // `/openai/v1/…`; the `/openai` may already be gone (withoutProviderPrefix takes it).
    const azure = AZURE_PATH.exec(path);
    const route = azure === null ? undefined : routeOf(method, azure[1]!, 'openai');
    return route === undefined || route.provider !== 'openai' ? undefined : { ...route, provider: 'azure' };
  }
  const verb = method.toUpperCase();
  const vertex = VERTEX_PATH.exec(path);
  if (vertex !== null) return verb === 'POST' ? vertexRoute(vertex[1]!, vertex[2]!, vertex[3]!) : undefined;
  if (hint === 'vertex') return undefined;
  const bedrock = BEDROCK_PATH.exec(path);
  if (bedrock !== null) {
    if (verb !== 'POST') return undefined;
    const model = decodedSegment(bedrock[1]!);
    const operation = bedrock[2]!;
    const api = operation.startsWith('converse') ? 'bedrock-converse' : 'bedrock-invoke';
    return {
      api,
      provider: 'bedrock',
      ...(model === undefined ? {} : { model }),
      stream: operation === 'converse-stream' || operation === 'invoke-with-response-stream',
    };
  }
  if (hint === 'bedrock') return undefined;
  const gemini = /^\/(v1|v1beta|v1alpha)\/(models|tunedModels)\/([^/:]+):([A-Za-z]+)$/.exec(path);
  if (gemini !== null && verb === 'POST') {
    const model = decodeURIComponent(gemini[3]!);
    const api = GEMINI_METHODS[gemini[4]!];
    if (api !== undefined) return { api, provider: 'gemini', model, ...(api === 'gemini-generate' ? { stream: gemini[4] === 'streamGenerateContent' } : {}) };
    return undefined;
  }
  if (/^\/(v1|v1beta|v1alpha)\/models(\/[^/:]+)?$/.test(path) && verb === 'GET' && (hint === 'gemini' || /^\/v1(beta|alpha)\//.test(path)))
    return { api: 'gemini-models', provider: 'gemini' };
  if (verb === 'POST' && OLLAMA_ROUTES[path] !== undefined) return { api: OLLAMA_ROUTES[path]!, provider: 'ollama' };
  if (verb === 'GET' && path === '/api/tags') return { api: 'ollama-tags', provider: 'ollama' };
  if (OLLAMA_MODEL_ROUTES.has(`${verb} ${path}`) || (hint === 'ollama' && (verb === 'GET' || verb === 'HEAD') && path === '/'))
    return { api: 'ollama-models', provider: 'ollama' };
  if (verb === 'GET' && /^(\/v1)?\/models(\/[^/]+)?$/.test(path))
    return hint === 'anthropic' ? { api: 'anthropic-models', provider: 'anthropic' } : { api: 'openai-models', provider: 'openai' };
  if (RESPONSES_STORED.test(`${verb} ${path}`)) return { api: 'openai-responses-stored', provider: 'openai' };
  if (CONVERSATIONS.test(`${verb} ${path}`)) return { api: 'openai-conversations', provider: 'openai' };
  if (verb !== 'POST') return undefined;
  if (/^(\/v1)?\/messages$/.test(path)) return { api: 'anthropic-messages', provider: 'anthropic' };
  if (/^(\/v1)?\/messages\/count_tokens$/.test(path)) return { api: 'anthropic-count-tokens', provider: 'anthropic' };
  if (/^(\/v1)?\/chat\/completions$/.test(path)) return { api: 'openai-chat', provider: 'openai' };
  if (/^(\/v1)?\/responses$/.test(path)) return { api: 'openai-responses', provider: 'openai' };
  if (/^(\/v1)?\/embeddings$/.test(path)) return { api: 'openai-embeddings', provider: 'openai' };
  return undefined;
}

/**
 * Whether a path (without its query and provider prefix) is OpenAI Realtime's WebSocket endpoint,
 * `/v1/realtime` (or `/realtime`, as OpenAI's clients build either from a base URL). It is an
 * upgrade, not an HTTP route, so `routeOf` leaves it out: the proxy and the fake accept it on
 * their upgrade path only.
 */
export function isRealtimePath(path: string): boolean {
  return /^(?:\/v1)?\/realtime$/.test(path);
}

// A Vertex AI publisher model's method: `/v1/projects/{project}/locations/{location}/publishers/{publisher}/models/{model}:{method}`
// (`v1beta1` too, which @google/genai and @ai-sdk/google-vertex send).
const VERTEX_PATH = /^\/(?:v1|v1beta1)\/projects\/[^/]+\/locations\/[^/]+\/publishers\/(google|anthropic)\/models\/([^/:]+):([A-Za-z]+)$/;

// The wire API of a Vertex publisher model's method: Gemini's own, or Anthropic's Messages
// through `rawPredict` (`count-tokens:rawPredict` is Anthropic's token count).
function vertexRoute(publisher: string, segment: string, method: string): Route | undefined {
  const model = decodedSegment(segment);
  if (publisher === 'google') {
    const api = GEMINI_METHODS[method];
    if (api === undefined) return undefined;
    return {
      api,
      provider: 'vertex',
      ...(model === undefined ? {} : { model }),
      ...(api === 'gemini-generate' ? { stream: method === 'streamGenerateContent' } : {}),
    };
  }
  if (method !== 'rawPredict' && method !== 'streamRawPredict') return undefined;
  if (model === 'count-tokens') return method === 'rawPredict' ? { api: 'anthropic-count-tokens', provider: 'vertex' } : undefined;
  return { api: 'anthropic-messages', provider: 'vertex', ...(model === undefined ? {} : { model }), stream: method === 'streamRawPredict' };
}

/** The project and location a Vertex AI path names (`/v1/projects/{project}/locations/{location}/…`), or undefined. */
export function vertexLocationOf(path: string): { project: string; location: string } | undefined {
  const match = /^\/(?:v1|v1beta1)\/projects\/([^/]+)\/locations\/([^/]+)\//.exec(path);
  if (match === null) return undefined;
  const project = decodedSegment(match[1]!);
  const location = decodedSegment(match[2]!);
  return project === undefined || location === undefined ? undefined : { project, location };
}

// A Bedrock Runtime operation on a model (its id or ARN, URL-encoded as the AWS SDK sends it).
const BEDROCK_PATH = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream)$/;

// A path segment decoded, or undefined when its escapes are malformed.
function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

// An Azure OpenAI path: what follows `/openai` and `/deployments/{deployment}` is OpenAI's route.
const AZURE_PATH = /^(?:\/openai)?(?:\/deployments\/[^/]+)?(\/.+)$/;

/** The deployment an Azure OpenAI path names (`/openai/deployments/{deployment}/…`), or undefined. */
export function azureDeploymentOf(path: string): string | undefined {
  const match = /^(?:\/openai)?\/deployments\/([^/]+)\//.exec(path);
  return match === null ? undefined : decodeURIComponent(match[1]!);
}

// A stored response: GET or DELETE /v1/responses/{id}, GET …/input_items, POST …/cancel.
const RESPONSES_STORED =
  /^(?:(?:GET|DELETE) (?:\/v1)?\/responses\/[^/]+|GET (?:\/v1)?\/responses\/[^/]+\/input_items|POST (?:\/v1)?\/responses\/[^/]+\/cancel)$/;
// The Conversations API: /v1/conversations, /{id}, /{id}/items, /{id}/items/{item_id}.
const CONVERSATIONS =
  /^(?:POST (?:\/v1)?\/conversations|(?:GET|POST|DELETE) (?:\/v1)?\/conversations\/[^/]+|(?:GET|POST) (?:\/v1)?\/conversations\/[^/]+\/items|(?:GET|DELETE) (?:\/v1)?\/conversations\/[^/]+\/items\/[^/]+)$/;

const GEMINI_METHODS: Record<string, WireApi | undefined> = {
  generateContent: 'gemini-generate',
  streamGenerateContent: 'gemini-generate',
  countTokens: 'gemini-count-tokens',
  embedContent: 'gemini-embed',
  batchEmbedContents: 'gemini-embed',
};

const OLLAMA_ROUTES: Record<string, WireApi | undefined> = {
  '/api/chat': 'ollama-chat',
  '/api/generate': 'ollama-generate',
  '/api/embed': 'ollama-embed',
  '/api/embeddings': 'ollama-embed',
};

/** Ollama's model management (server/routes.go): what clients call before and around a chat. */
const OLLAMA_MODEL_ROUTES = new Set([
  'POST /api/show',
  'GET /api/ps',
  'GET /api/version',
  'HEAD /api/version',
  'POST /api/pull',
  'POST /api/push',
  'POST /api/create',
  'POST /api/copy',
  'DELETE /api/delete',
]);

/** The prefixes under which one server (the fake, a proxy) serves each provider's routes. */
export const PROVIDER_PREFIX = /^\/(openai|anthropic|gemini|ollama)(?=\/)/;

/** A path without its provider prefix, and the provider the prefix named. */
export function withoutProviderPrefix(path: string): { path: string; prefixed: Provider | undefined } {
  const match = PROVIDER_PREFIX.exec(path);
  return match === null ? { path, prefixed: undefined } : { path: path.slice(match[0].length), prefixed: match[1] as Provider };
}

/**
 * The conventions an upstream follows, from its name and base URL: `…vertex…` or `…aiplatform…`
 * is Vertex AI, `…bedrock…` is Bedrock Runtime, `…azure…` is Azure OpenAI,
 * `…anthropic…` or `…claude…` is Anthropic, `…gemini…` or googleapis Gemini, `…ollama…` or port
 * 11434 Ollama, anything else OpenAI's, which most compatible servers follow.
 */
export function guessProvider(name: string, baseUrl = ''): Provider {
  const text = `${name} ${baseUrl}`.toLowerCase();
  if (text.includes('vertex') || text.includes('aiplatform')) return 'vertex';
  if (text.includes('bedrock')) return 'bedrock';
  if (text.includes('azure')) return 'azure';
  if (text.includes('anthropic') || text.includes('claude')) return 'anthropic';
  if (text.includes('gemini') || text.includes('googleapis')) return 'gemini';
  if (text.includes('ollama') || text.includes(':11434')) return 'ollama';
  return 'openai';
}

/**
 * The provider's own path for a request: Anthropic's two clients build `/v1/messages`
 * (@anthropic-ai/sdk) and `/messages` (@ai-sdk/anthropic) from one base URL, so for Anthropic a
 * path without `/v1` gets it, and both key on the same path.
 */
export function providerPath(provider: Provider, path: string): string {
  if (provider === 'anthropic' && path !== '/v1' && !path.startsWith('/v1/')) return `/v1${path}`;
  return path;
}
