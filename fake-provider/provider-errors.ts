import { maskSecrets } from '../core/internal.js';
import { errorBody, errorHeaders, transientFailure, type Provider, type ProviderError } from '../providers/internal.js';
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
  return jsonResponse(error.status, body, { ...context.headers, ...errorHeaders(provider, error.type), ...headers });
}

/** The HTTP failures (429, 5xx) in each provider's shape, with `retry-after-ms` (Azure: and `retry-after`) unless turned off. */
export function httpFailure(provider: Provider, failure: Failure, context: ErrorContext): WireResponse {
  const retry: Record<string, string> = {};
  const retryAfterMs = 'retryAfterMs' in failure ? failure.retryAfterMs : null;
  if (retryAfterMs !== null) retry['retry-after-ms'] = String(retryAfterMs);
  // Azure OpenAI says it in seconds too, as its resources do.
  if (retryAfterMs !== null && provider === 'azure') retry['retry-after'] = String(Math.ceil(retryAfterMs / 1000));
  const kind = failure.kind === 'rate-limited' || failure.kind === 'unavailable' || failure.kind === 'overloaded' ? failure.kind : 'server-error';
  const known = transientFailure(provider, kind, 'modeltape FakeProvider', retryAfterMs);
  const custom = 'message' in failure ? failure.message : undefined;
  return errorResponse(provider, { ...known, ...(custom === undefined ? {} : { message: custom }) }, context, retry);
}
