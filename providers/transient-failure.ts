import type { ProviderError } from './provider-error.js';
import type { Provider } from './vocabulary.js';

/** The failures a client retries: a rate limit, a server error, the service unavailable or overloaded. */
export const TRANSIENT_FAILURES = ['rate-limited', 'server-error', 'unavailable', 'overloaded'] as const;
export type TransientFailure = (typeof TRANSIENT_FAILURES)[number];

/**
 * How each provider answers a transient failure, and with which status: OpenAI 429
 * `rate_limit_exceeded`, Anthropic 429 `rate_limit_error` and 529 `overloaded_error`, Gemini
 * `RESOURCE_EXHAUSTED` / `UNAVAILABLE` / `INTERNAL` (Vertex AI the same, in its own words), Ollama's plain messages, Bedrock's
 * `ThrottlingException` / `ServiceUnavailableException` / `ModelNotReadyException` / `InternalServerException`,
 * Azure OpenAI's own 429 (`{"error":{"code":"429","message":"Requests to the … Please retry after N seconds. …"}}`,
 * N from `retryAfterMs`) and OpenAI's 5xx. `by` names who
 * plays it (`modeltape FakeProvider`, `modeltape chaos`), at the end of the message, so nobody
 * mistakes it for the real provider.
 */
export function transientFailure(provider: Provider, kind: TransientFailure, by: string, retryAfterMs: number | null = 0): Omit<ProviderError, 'requestId'> {
  if (provider === 'azure') return kind === 'rate-limited' ? azureRateLimit(by, retryAfterMs) : ownWords(by).openai[kind];
  return ownWords(by)[provider][kind];
}

/**
 * Azure OpenAI's 429, in the resource's words: its body is `{"error":{"code":"429","message"}}` and
 * the message says when to retry in whole seconds (clients parse it: `retry after (\d+) second`),
 * as the `retry-after` header does. The operation and api-version a real one names are not known here.
 */
function azureRateLimit(by: string, retryAfterMs: number | null): Omit<ProviderError, 'requestId'> {
  const seconds = Math.ceil((retryAfterMs ?? 0) / 1000);
  return {
    status: 429,
    type: '429',
    message: `Requests to the operation under Azure OpenAI API have exceeded call rate limit of your current pricing tier. Please retry after ${seconds} second${seconds === 1 ? '' : 's'}. Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit. (${by})`,
  };
}

const ownWords = (by: string): Record<Exclude<Provider, 'azure'>, Record<TransientFailure, Omit<ProviderError, 'requestId'>>> => ({
  openai: {
    'rate-limited': {
      status: 429,
      type: 'requests',
      code: 'rate_limit_exceeded',
      message: `Rate limit reached for fake model in organization org-fake on requests per min (RPM): Limit 3, Used 3, Requested 1. (${by})`,
    },
    unavailable: { status: 503, type: 'server_error', code: 'service_unavailable', message: `The server is temporarily unavailable. (${by})` },
    // 529 is Anthropic's; OpenAI says the same thing with a 503.
    overloaded: {
      status: 503,
      type: 'server_error',
      code: 'server_is_overloaded',
      message: `The server is overloaded or not ready yet. (${by})`,
    },
    'server-error': { status: 500, type: 'server_error', message: `The server had an error while processing your request. (${by})` },
  },
  anthropic: {
    'rate-limited': {
      status: 429,
      type: 'rate_limit_error',
      message: `This request would exceed your account's rate limit. Please try again later. (${by})`,
    },
    unavailable: { status: 503, type: 'api_error', message: `Service unavailable. (${by})` },
    overloaded: { status: 529, type: 'overloaded_error', message: `Overloaded (${by})` },
    'server-error': { status: 500, type: 'api_error', message: `Internal server error (${by})` },
  },
  gemini: {
    'rate-limited': {
      status: 429,
      type: 'RESOURCE_EXHAUSTED',
      message: `Resource has been exhausted (e.g. check quota). (${by})`,
    },
    unavailable: { status: 503, type: 'UNAVAILABLE', message: `The service is currently unavailable. (${by})` },
    overloaded: { status: 503, type: 'UNAVAILABLE', message: `The model is overloaded. Please try again later. (${by})` },
    'server-error': { status: 500, type: 'INTERNAL', message: `An internal error has occurred. (${by})` },
  },
  // Vertex AI's quota and capacity errors, in Google's RPC shape, for every publisher's model.
  vertex: {
    'rate-limited': {
      status: 429,
      type: 'RESOURCE_EXHAUSTED',
      message: `Resource exhausted. Please try again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details. (${by})`,
    },
    unavailable: { status: 503, type: 'UNAVAILABLE', message: `The service is currently unavailable. (${by})` },
    overloaded: { status: 503, type: 'UNAVAILABLE', message: `The model is overloaded. Please try again later. (${by})` },
    'server-error': { status: 500, type: 'INTERNAL', message: `Internal error encountered. (${by})` },
  },
  ollama: {
    'rate-limited': { status: 429, type: 'rate_limited', message: `too many requests (${by})` },
    unavailable: { status: 503, type: 'unavailable', message: `server busy, please try again. maximum pending requests exceeded (${by})` },
    overloaded: { status: 503, type: 'unavailable', message: `server busy, please try again. maximum pending requests exceeded (${by})` },
    'server-error': { status: 500, type: 'server_error', message: `an internal error occurred (${by})` },
  },
  // Bedrock Runtime's own exceptions (the type goes in `x-amzn-errortype`; see errorHeaders).
  bedrock: {
    'rate-limited': { status: 429, type: 'ThrottlingException', message: `Too many requests, please wait before trying again. (${by})` },
    unavailable: { status: 503, type: 'ServiceUnavailableException', message: `Service unavailable, please try again later. (${by})` },
    overloaded: { status: 429, type: 'ModelNotReadyException', message: `The model is not ready to serve inference requests. Try again later. (${by})` },
    'server-error': { status: 500, type: 'InternalServerException', message: `The server encountered an internal error. (${by})` },
  },
  // An MCP server behind a gateway: the HTTP status, with a JSON-RPC error body.
  mcp: {
    'rate-limited': { status: 429, type: 'rate_limited', message: `Too many requests (${by})` },
    unavailable: { status: 503, type: 'unavailable', message: `Service unavailable (${by})` },
    overloaded: { status: 503, type: 'unavailable', message: `Server overloaded, try again later (${by})` },
    'server-error': { status: 500, type: 'internal_error', message: `Internal error (${by})` },
  },
});
