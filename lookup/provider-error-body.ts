/** Which provider's conventions an upstream follows: error shapes, path quirks. */
export type ProviderFlavor = 'openai' | 'anthropic' | 'gemini' | 'ollama';

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

/**
 * The conventions an upstream follows, from its name and base URL: `…anthropic…` or `…claude…`
 * is Anthropic, `…gemini…` or googleapis Gemini, `…ollama…` or port 11434 Ollama, anything else
 * OpenAI's, which most compatible servers follow.
 */
export function guessProviderFlavor(name: string, baseUrl = ''): ProviderFlavor {
  const text = `${name} ${baseUrl}`.toLowerCase();
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
export function providerPath(flavor: ProviderFlavor, path: string): string {
  if (flavor === 'anthropic' && path !== '/v1' && !path.startsWith('/v1/')) return `/v1${path}`;
  return path;
}
