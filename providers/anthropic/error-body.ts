import type { ProviderError } from '../provider-error.js';

/** Anthropic's error types, a closed list. */
export const ANTHROPIC_ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'billing_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'rate_limit_error',
  'timeout_error',
  'api_error',
  'overloaded_error',
] as const;

/**
 * Anthropic's error body: `{"type":"error","error":{"type","message"},"request_id"}`; for
 * modeltape's own errors also a top-level `message` (see {@link ProviderError.fromModeltape}).
 */
export function anthropicErrorBody(error: ProviderError): Record<string, unknown> {
  const body: Record<string, unknown> = {
    type: 'error',
    error: { type: error.type, message: error.message, ...(error.details === undefined ? {} : { details: error.details }) },
    request_id: error.requestId ?? null,
  };
  if (error.fromModeltape === true) body.message = error.message;
  return body;
}

/** An error type Anthropic has: `type` when it is one, else the one its status falls under. */
export function anthropicErrorType(status: number, type: string): string {
  return (ANTHROPIC_ERROR_TYPES as readonly string[]).includes(type) ? type : status >= 500 ? 'api_error' : 'invalid_request_error';
}
