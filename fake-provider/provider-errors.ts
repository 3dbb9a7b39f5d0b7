import { maskSecrets } from '../core/internal.js';
import { errorBody, type Provider, type ProviderError } from '../providers/internal.js';
import type { Failure } from './failures.js';
import { jsonResponse, type WireResponse } from './wire-response.js';

/** Where an error response goes: the request id an Anthropic body names, the headers every response carries. */
export interface ErrorContext {
  requestId: string;
  headers: Record<string, string>;
}

/**
 * An error response in the provider's own shape (the one copy of each shape is in providers/).
 * An error body reaches SDK error messages and so test logs: it never carries a key.
 */
export function errorResponse(provider: Provider, error: ProviderError, context: ErrorContext, headers: Record<string, string> = {}): WireResponse {
  const body = errorBody(provider, { ...error, message: maskSecrets(error.message), requestId: error.requestId ?? context.requestId });
  return jsonResponse(error.status, body, { ...context.headers, ...headers });
}

/** The words each provider answers a failure kind with, and its status. */
const FAILURE_ERRORS: Record<Provider, Record<'rate-limited' | 'unavailable' | 'overloaded' | 'server-error', Omit<ProviderError, 'requestId'>>> = {
  openai: {
    'rate-limited': {
      status: 429,
      type: 'requests',
      code: 'rate_limit_exceeded',
      message: 'Rate limit reached for fake model in organization org-fake on requests per min (RPM): Limit 3, Used 3, Requested 1. (modeltape FakeProvider)',
    },
    unavailable: { status: 503, type: 'server_error', code: 'service_unavailable', message: 'The server is temporarily unavailable. (modeltape FakeProvider)' },
    // 529 is Anthropic's; OpenAI says the same thing with a 503.
    overloaded: {
      status: 503,
      type: 'server_error',
      code: 'server_is_overloaded',
      message: 'The server is overloaded or not ready yet. (modeltape FakeProvider)',
    },
    'server-error': { status: 500, type: 'server_error', message: 'The server had an error while processing your request. (modeltape FakeProvider)' },
  },
  anthropic: {
    'rate-limited': {
      status: 429,
      type: 'rate_limit_error',
      message: "This request would exceed your account's rate limit. Please try again later. (modeltape FakeProvider)",
    },
    unavailable: { status: 503, type: 'api_error', message: 'Service unavailable. (modeltape FakeProvider)' },
    overloaded: { status: 529, type: 'overloaded_error', message: 'Overloaded (modeltape FakeProvider)' },
    'server-error': { status: 500, type: 'api_error', message: 'Internal server error (modeltape FakeProvider)' },
  },
  gemini: {
    'rate-limited': {
      status: 429,
      type: 'RESOURCE_EXHAUSTED',
      message: 'Resource has been exhausted (e.g. check quota). (modeltape FakeProvider)',
    },
    unavailable: { status: 503, type: 'UNAVAILABLE', message: 'The service is currently unavailable. (modeltape FakeProvider)' },
    overloaded: { status: 503, type: 'UNAVAILABLE', message: 'The model is overloaded. Please try again later. (modeltape FakeProvider)' },
    'server-error': { status: 500, type: 'INTERNAL', message: 'An internal error has occurred. (modeltape FakeProvider)' },
  },
  ollama: {
    'rate-limited': { status: 429, type: 'rate_limited', message: 'too many requests (modeltape FakeProvider)' },
    unavailable: { status: 503, type: 'unavailable', message: 'server busy, please try again. maximum pending requests exceeded (modeltape FakeProvider)' },
    overloaded: { status: 503, type: 'unavailable', message: 'server busy, please try again. maximum pending requests exceeded (modeltape FakeProvider)' },
    'server-error': { status: 500, type: 'server_error', message: 'an internal error occurred (modeltape FakeProvider)' },
  },
};

/** The HTTP failures (429, 5xx) in each provider's shape, with `retry-after-ms` unless turned off. */
export function httpFailure(provider: Provider, failure: Failure, context: ErrorContext): WireResponse {
  const retry: Record<string, string> = {};
  if ('retryAfterMs' in failure && failure.retryAfterMs !== null) retry['retry-after-ms'] = String(failure.retryAfterMs);
  const kind = failure.kind === 'rate-limited' || failure.kind === 'unavailable' || failure.kind === 'overloaded' ? failure.kind : 'server-error';
  const known = FAILURE_ERRORS[provider][kind];
  const custom = 'message' in failure ? failure.message : undefined;
  return errorResponse(provider, { ...known, ...(custom === undefined ? {} : { message: custom }) }, context, retry);
}
