import type { ProviderError } from '../provider-error.js';

/** Ollama's error body: `{"error":"…"}`, the message alone. */
export function ollamaErrorBody(error: ProviderError): Record<string, unknown> {
  return { error: error.message };
}
