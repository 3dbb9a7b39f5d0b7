import { ModeltapeError, excerpt } from '../core/internal.js';
import { ModelCallError } from './errors.js';
import { checkArgumentsValue, parseToolArguments } from './tool-arguments.js';
import type { Json } from './journal-store.js';
import type { Tool } from './tool-box.js';

/** The wire format a provider speaks. */
export const MODEL_APIS = ['openai-chat', 'anthropic-messages'] as const;
export type ModelApi = (typeof MODEL_APIS)[number];

/**
 * How the runtime reaches a provider: through a `fetch` (the FakeProvider's `fake.fetch` in
 * tests, the global one for real HTTP, e.g. through a modeltape proxy's base URL).
 */
export interface ProviderConnection {
  api: ModelApi;
  /** @default 'https://api.openai.com/v1' or 'https://api.anthropic.com' */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer` (OpenAI) or `x-api-key` (Anthropic). Never journaled. */
  apiKey?: string;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Extra request headers (never journaled). */
  headers?: Record<string, string>;
}

/** One tool call a model asked for. `args` is the parsed JSON (or the raw text when it did not parse). */
export interface ModelToolCall {
  id: string;
  name: string;
  args: Json;
  /** Why the arguments as sent cannot be accepted at all (not JSON, a duplicate key, too deep, …); `args` then holds the raw text. */
  argumentsError?: string;
}

/** A model's answer, as the journal keeps it. */
export interface ModelAnswer {
  text: string | null;
  toolCalls: ModelToolCall[];
  stopReason: string;
  usage: { input: number; output: number };
}

/** The conversation, provider-neutral. */
export type Turn =
  | { role: 'user'; content: string }
  | { role: 'assistant'; text: string | null; toolCalls: ModelToolCall[] }
  | { role: 'tool'; callId: string; name: string; content: string; isError: boolean };

export interface ModelRequest {
  model: string;
  system: string;
  turns: readonly Turn[];
  tools: readonly Tool[];
  output: Record<string, unknown> | undefined;
  maxTokens: number;
}

const DEFAULT_BASE_URLS: Record<ModelApi, string> = { 'openai-chat': 'https://api.openai.com/v1', 'anthropic-messages': 'https://api.anthropic.com' };

/** Sends one model request and reads the answer. */
export async function callModel(provider: string, connection: ProviderConnection, request: ModelRequest, signal?: AbortSignal): Promise<ModelAnswer> {
  const base = (connection.baseUrl ?? DEFAULT_BASE_URLS[connection.api]).replace(/\/+$/, '');
  const url = connection.api === 'openai-chat' ? `${base}/chat/completions` : `${base}/v1/messages`;
  const body = renderModelRequest(connection.api, request);
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', ...connection.headers };
  if (connection.apiKey !== undefined) {
    if (connection.api === 'openai-chat') headers.authorization = `Bearer ${connection.apiKey}`;
    else headers['x-api-key'] = connection.apiKey;
  }
  if (connection.api === 'anthropic-messages') headers['anthropic-version'] ??= '2023-06-01';
  const send = connection.fetch ?? globalThis.fetch;
  let response: Response;
  try {
    response = await send(url, { method: 'POST', headers, body: JSON.stringify(body), ...(signal ? { signal } : {}) });
  } catch (error) {
    throw new ModelCallError(`Could not reach provider "${provider}" at ${url}: ${(error as Error).message}`, undefined, error);
  }
  const text = await response.text();
  if (!response.ok) {
    throw new ModelCallError(`Provider "${provider}" answered ${response.status} to POST ${url}: ${excerpt(text, 300)}`, response.status);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ModelCallError(`Provider "${provider}" answered POST ${url} with a body that is not JSON: ${excerpt(text, 200)}`, response.status, error);
  }
  return connection.api === 'openai-chat' ? openAiAnswer(provider, parsed) : anthropicAnswer(provider, parsed);
}

/** The request body the runtime sends for one model call: exactly the bytes' JSON, before serializing. */
export function renderModelRequest(api: ModelApi, request: ModelRequest): Record<string, unknown> {
  return api === 'openai-chat' ? openAiBody(request) : anthropicBody(request);
}

function openAiBody(request: ModelRequest): Record<string, unknown> {
  const messages: unknown[] = [];
  if (request.system) messages.push({ role: 'system', content: request.system });
  for (const turn of request.turns) {
    if (turn.role === 'user') messages.push({ role: 'user', content: turn.content });
    else if (turn.role === 'tool') messages.push({ role: 'tool', tool_call_id: turn.callId, content: turn.content });
    else {
      messages.push({
        role: 'assistant',
        content: turn.text,
        ...(turn.toolCalls.length > 0
          ? {
              tool_calls: turn.toolCalls.map((call) => ({
                id: call.id,
                type: 'function',
                function: { name: call.name, arguments: typeof call.args === 'string' ? call.args : JSON.stringify(call.args) },
              })),
            }
          : {}),
      });
    }
  }
  return {
    model: request.model,
    messages,
    max_completion_tokens: request.maxTokens,
    ...(request.tools.length > 0
      ? {
          tools: request.tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } })),
        }
      : {}),
    ...(request.output ? { response_format: { type: 'json_schema', json_schema: { name: 'output', strict: true, schema: request.output } } } : {}),
  };
}

function openAiAnswer(provider: string, body: unknown): ModelAnswer {
  const choice = (
    body as {
      choices?: Array<{
        message?: { content?: string | null; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }> };
        finish_reason?: string;
      }>;
    }
  ).choices?.[0];
  if (choice?.message === undefined)
    throw new ModelCallError(`Provider "${provider}" answered without choices[0].message: ${excerpt(JSON.stringify(body), 200)}`);
  const usage = (body as { usage?: { prompt_tokens?: number; completion_tokens?: number } }).usage;
  return {
    text: choice.message.content ?? null,
    toolCalls: (choice.message.tool_calls ?? []).map((call) => {
      const parsed = parseToolArguments(call.function.arguments);
      return parsed.ok
        ? { id: call.id, name: call.function.name, args: parsed.value }
        : { id: call.id, name: call.function.name, args: call.function.arguments, argumentsError: parsed.reason };
    }),
    stopReason: choice.finish_reason ?? 'stop',
    usage: { input: usage?.prompt_tokens ?? 0, output: usage?.completion_tokens ?? 0 },
  };
}

function anthropicBody(request: ModelRequest): Record<string, unknown> {
  const messages: Array<{ role: string; content: unknown[] }> = [];
  for (const turn of request.turns) {
    if (turn.role === 'user') messages.push({ role: 'user', content: [{ type: 'text', text: turn.content }] });
    else if (turn.role === 'assistant') {
      const content: unknown[] = [];
      if (turn.text) content.push({ type: 'text', text: turn.text });
      for (const call of turn.toolCalls) content.push({ type: 'tool_use', id: call.id, name: call.name, input: call.args });
      messages.push({ role: 'assistant', content });
    } else {
      // Results of one turn's calls travel together in one user message.
      const block = { type: 'tool_result', tool_use_id: turn.callId, content: turn.content, ...(turn.isError ? { is_error: true } : {}) };
      const last = messages[messages.length - 1];
      if (last !== undefined && last.role === 'user' && last.content.every((part) => (part as { type: string }).type === 'tool_result'))
        last.content.push(block);
      else messages.push({ role: 'user', content: [block] });
    }
  }
  return {
    model: request.model,
    max_tokens: request.maxTokens,
    ...(request.system ? { system: request.system } : {}),
    messages,
    ...(request.tools.length > 0
      ? { tools: request.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters })) }
      : {}),
  };
}

function anthropicAnswer(provider: string, body: unknown): ModelAnswer {
  const message = body as {
    content?: Array<{ type: string; text?: string; id?: string; name?: string; input?: Json }>;
    stop_reason?: string;
    usage?: { input_tokens?: number; output_tokens?: number };
  };
  if (!Array.isArray(message.content))
    throw new ModelCallError(`Provider "${provider}" answered without a content array: ${excerpt(JSON.stringify(body), 200)}`);
  const texts = message.content.filter((block) => block.type === 'text').map((block) => block.text ?? '');
  return {
    text: texts.length > 0 ? texts.join('') : null,
    toolCalls: message.content
      .filter((block) => block.type === 'tool_use')
      .map((block) => {
        const args = block.input ?? {};
        const problem = checkArgumentsValue(args);
        return { id: block.id!, name: block.name!, args, ...(problem === undefined ? {} : { argumentsError: problem }) };
      }),
    stopReason: message.stop_reason ?? 'end_turn',
    usage: { input: message.usage?.input_tokens ?? 0, output: message.usage?.output_tokens ?? 0 },
  };
}

/** Checks a provider connection once, at the boundary. */
export function checkConnection(name: string, connection: ProviderConnection): void {
  if (!MODEL_APIS.includes(connection.api)) {
    throw new ModeltapeError('invalid_provider', `Provider "${name}" has api "${String(connection.api)}": expected one of ${MODEL_APIS.join(', ')}.`);
  }
}
