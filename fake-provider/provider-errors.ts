import { maskSecrets } from '../core/internal.js';
import type { Failure } from './failures.js';
import { jsonResponse, type WireResponse } from './wire-response.js';

/** OpenAI's error body: `{"error":{"message","type","param","code"}}`, all four always present. */
export function openaiError(
  status: number,
  message: string,
  fields: { type?: string; param?: string | null; code?: string | null } = {},
  headers: Record<string, string> = {},
): WireResponse {
  // An error body reaches SDK error messages and so test logs: it never carries a key.
  return jsonResponse(
    status,
    { error: { message: maskSecrets(message), type: fields.type ?? 'invalid_request_error', param: fields.param ?? null, code: fields.code ?? null } },
    headers,
  );
}

/** Anthropic's error body: `{"type":"error","error":{"type","message"},"request_id"}`. */
export function anthropicError(status: number, type: string, message: string, requestId: string, headers: Record<string, string> = {}): WireResponse {
  return jsonResponse(status, { type: 'error', error: { type, message: maskSecrets(message) }, request_id: requestId }, headers);
}

/** The HTTP failures (429, 5xx) in each provider's shape, with `retry-after-ms` unless turned off. */
export function httpFailure(provider: 'openai' | 'anthropic', failure: Failure, requestId: string, headers: Record<string, string>): WireResponse {
  const retry: Record<string, string> = {};
  if ('retryAfterMs' in failure && failure.retryAfterMs !== null) retry['retry-after-ms'] = String(failure.retryAfterMs);
  const all = { ...headers, ...retry };
  const custom = 'message' in failure ? failure.message : undefined;
  switch (failure.kind) {
    case 'rate-limited':
      return provider === 'openai'
        ? openaiError(
            429,
            custom ??
              'Rate limit reached for fake model in organization org-fake on requests per min (RPM): Limit 3, Used 3, Requested 1. (modeltape FakeProvider)',
            { type: 'requests', code: 'rate_limit_exceeded' },
            all,
          )
        : anthropicError(
            429,
            'rate_limit_error',
            custom ?? "This request would exceed your account's rate limit. Please try again later. (modeltape FakeProvider)",
            requestId,
            all,
          );
    case 'unavailable':
      return provider === 'openai'
        ? openaiError(
            503,
            custom ?? 'The server is temporarily unavailable. (modeltape FakeProvider)',
            { type: 'server_error', code: 'service_unavailable' },
            all,
          )
        : anthropicError(503, 'api_error', custom ?? 'Service unavailable. (modeltape FakeProvider)', requestId, all);
    case 'overloaded':
      // 529 is Anthropic's; OpenAI says the same thing with a 503.
      return provider === 'openai'
        ? openaiError(
            503,
            custom ?? 'The server is overloaded or not ready yet. (modeltape FakeProvider)',
            { type: 'server_error', code: 'server_is_overloaded' },
            all,
          )
        : anthropicError(529, 'overloaded_error', custom ?? 'Overloaded (modeltape FakeProvider)', requestId, all);
    default:
      return provider === 'openai'
        ? openaiError(500, custom ?? 'The server had an error while processing your request. (modeltape FakeProvider)', { type: 'server_error' }, all)
        : anthropicError(500, 'api_error', custom ?? 'Internal server error (modeltape FakeProvider)', requestId, all);
  }
}
