import type { ProviderFlavor } from './upstream-table.js';

/**
 * An error body in the provider's own shape, so its SDK raises a readable error:
 * OpenAI `{"error":{"message","type","param","code"}}`, Anthropic
 * `{"type":"error","error":{"type","message"},"request_id"}`, Gemini's Google RPC shape, and
 * Ollama's `{"error":"…"}`.
 */
export function providerErrorBody(flavor: ProviderFlavor, status: number, type: string, message: string): string {
  switch (flavor) {
    case 'anthropic':
      // The top-level `message` is modeltape's addition: @anthropic-ai/sdk prints a body's
      // top-level message as the error text, and otherwise prints the whole body as escaped JSON.
      return JSON.stringify({ type: 'error', error: { type, message }, request_id: null, message });
    case 'gemini':
      return JSON.stringify({ error: { code: status, message, status: type.toUpperCase() } });
    case 'ollama':
      return JSON.stringify({ error: message });
    case 'openai':
      return JSON.stringify({ error: { message, type, param: null, code: type } });
  }
}
