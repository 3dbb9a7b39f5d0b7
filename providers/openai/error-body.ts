import type { ProviderError } from '../provider-error.js';

/** OpenAI's error body: `{"error":{"message","type","param","code"}}`, all four always present. */
export function openaiErrorBody(error: ProviderError): Record<string, unknown> {
  return { error: { message: error.message, type: error.type, param: error.param ?? null, code: error.code ?? null } };
}
