import type { ProviderError } from '../provider-error.js';

/** The Google RPC status each HTTP status stands for, as Gemini answers them. */
const RPC_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'NOT_IMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** The Google RPC status of an HTTP status. */
export function rpcStatus(status: number): string {
  return RPC_STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
}

/**
 * Gemini's error body, Google's RPC shape: `{"error":{"code","message","status"}}`. `type` is the
 * RPC status (`INVALID_ARGUMENT`, …); modeltape's own types are written in capitals the same way.
 */
export function geminiErrorBody(error: ProviderError): Record<string, unknown> {
  return { error: { code: error.status, message: error.message, status: error.type.toUpperCase() } };
}
