import { anthropicErrorBody } from './anthropic/error-body.js';
import { azureErrorBody } from './azure/error-body.js';
import { bedrockErrorBody, bedrockErrorHeaders } from './bedrock/error-body.js';
import { geminiErrorBody } from './gemini/error-body.js';
import { mcpErrorBody } from './mcp/json-rpc.js';
import { ollamaErrorBody } from './ollama/error-body.js';
import { openaiErrorBody } from './openai/error-body.js';
import type { ProviderError } from './provider-error.js';
import { providerOf, routeOf, type Provider } from './vocabulary.js';

export type { ProviderError };

/**
 * An error body in the provider's own shape, so its SDK raises a readable error: OpenAI
 * `{"error":{"message","type","param","code"}}` (Azure OpenAI's too, but for its resource's own
 * errors and its content filter's refusal), Anthropic
 * `{"type":"error","error":{"type","message"},"request_id"}`, Gemini's Google RPC
 * `{"error":{"code","message","status"}}` (Vertex AI's too), Ollama's `{"error":"…"}`, Bedrock's `{"message":"…"}`
 * (its type in a header: {@link errorHeaders}), and on an MCP route a
 * JSON-RPC error (`id` null: the proxy answers a request with its own id).
 */
export function errorBody(provider: Provider, error: ProviderError): Record<string, unknown> {
  switch (provider) {
    case 'anthropic':
      return anthropicErrorBody(error);
    // Vertex AI answers in Google's RPC shape, for Gemini and for a partner model's quota and
    // platform errors alike (see errorProviderOf for the Anthropic model's own errors).
    case 'gemini':
    case 'vertex':
      return geminiErrorBody(error);
    case 'ollama':
      return ollamaErrorBody(error);
    case 'openai':
      return openaiErrorBody(error);
    // Azure OpenAI: OpenAI's shape, but its own errors' `{code, message}` and its content filter's `innererror`.
    case 'azure':
      return azureErrorBody(error);
    case 'mcp':
      return mcpErrorBody(error);
    case 'bedrock':
      return bedrockErrorBody(error);
  }
}

/**
 * Whose shape an error to a request on `path` (the provider's path, no query) takes: the
 * upstream's, but for Vertex AI's Anthropic models (`…/publishers/anthropic/models/…:rawPredict`),
 * whose own errors come in Anthropic's shape (what `AnthropicVertex` reads). Vertex's quota and
 * platform errors are Google's for every model: a chaos fault keeps the upstream's shape.
 */
export function errorProviderOf(provider: Provider, path: string): Provider {
  if (provider !== 'vertex') return provider;
  const route = routeOf('POST', path, 'vertex');
  return route !== undefined && providerOf(route.api) === 'anthropic' ? 'anthropic' : 'vertex';
}

/**
 * The headers an error needs besides its body: Bedrock names the error's type in
 * `x-amzn-errortype` (the AWS SDK picks its exception class by it); the others none.
 */
export function errorHeaders(provider: Provider, type: string): Record<string, string> {
  return provider === 'bedrock' ? bedrockErrorHeaders(type) : {};
}

/**
 * modeltape's own error (a replay miss, a refused path) in the provider's shape: its type is
 * modeltape's (`modeltape_replay_miss`, …), also as OpenAI's `code`, and an Anthropic body
 * carries the message at the top level too.
 */
export function modeltapeErrorBody(provider: Provider, status: number, type: string, message: string): Record<string, unknown> {
  return errorBody(provider, { status, type, message, code: type, fromModeltape: true });
}
