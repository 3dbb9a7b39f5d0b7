import { isRecord } from '../../core/internal.js';
import type { ProviderError } from '../provider-error.js';
import { ollamaModelThinks, thinkTurnsOn, OLLAMA_THINK_LEVELS } from './thinking.js';

/**
 * What Ollama refuses before any model runs (ollama/ollama server/routes.go `ChatHandler`,
 * `GenerateHandler`, and the JSON binding of api/types.go): `{"error":"…"}` with the status it
 * answers. Go's decoder names the field that does not fit its type, as Ollama passes it on.
 */
function refuse(message: string, status = 400): ProviderError {
  return { status, type: 'invalid_request_error', message };
}

/** The error Ollama answers an `/api/chat` body with before any model runs, or undefined. */
export function refuseOllamaChatRequest(body: Record<string, unknown>): ProviderError | undefined {
  const common = refuseCommon(body, 'ChatRequest');
  if (common) return common;
  if (body.messages !== undefined && body.messages !== null) {
    if (!Array.isArray(body.messages)) return unmarshal(body.messages, 'ChatRequest.messages', '[]api.Message');
    for (const message of body.messages as unknown[]) {
      if (!isRecord(message)) return unmarshal(message, 'ChatRequest.messages', 'api.Message');
      if (message.role !== undefined && typeof message.role !== 'string') return unmarshal(message.role, 'ChatRequest.messages.role', 'string');
      if (message.content !== undefined && message.content !== null && typeof message.content !== 'string')
        return unmarshal(message.content, 'ChatRequest.messages.content', 'string');
      if (message.tool_calls !== undefined && message.tool_calls !== null && !Array.isArray(message.tool_calls))
        return unmarshal(message.tool_calls, 'ChatRequest.messages.tool_calls', '[]api.ToolCall');
      for (const call of Array.isArray(message.tool_calls) ? (message.tool_calls as unknown[]) : []) {
        const fn = isRecord(call) ? call.function : undefined;
        // Ollama's arguments are an object; an OpenAI-style JSON string does not decode.
        if (isRecord(fn) && fn.arguments !== undefined && fn.arguments !== null && !isRecord(fn.arguments))
          return unmarshal(fn.arguments, 'ChatRequest.messages.tool_calls.function.arguments', 'map[string]interface {}');
      }
    }
  }
  if (body.tools !== undefined && body.tools !== null && !Array.isArray(body.tools)) return unmarshal(body.tools, 'ChatRequest.tools', 'api.Tools');
  return refuseFormat(body.format);
}

/** The error Ollama answers an `/api/generate` body with before any model runs, or undefined. */
export function refuseOllamaGenerateRequest(body: Record<string, unknown>): ProviderError | undefined {
  const common = refuseCommon(body, 'GenerateRequest');
  if (common) return common;
  if (body.prompt !== undefined && typeof body.prompt !== 'string') return unmarshal(body.prompt, 'GenerateRequest.prompt', 'string');
  if (body.system !== undefined && typeof body.system !== 'string') return unmarshal(body.system, 'GenerateRequest.system', 'string');
  if (body.raw === true && ((typeof body.system === 'string' && body.system !== '') || body.template !== undefined || body.context !== undefined))
    return refuse('raw mode does not support template, system, or context');
  return refuseFormat(body.format);
}

function refuseCommon(body: Record<string, unknown>, type: string): ProviderError | undefined {
  if (body.model !== undefined && typeof body.model !== 'string') return unmarshal(body.model, `${type}.model`, 'string');
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') return unmarshal(body.stream, `${type}.stream`, 'bool');
  if (body.top_logprobs !== undefined && (typeof body.top_logprobs !== 'number' || body.top_logprobs < 0 || body.top_logprobs > 20))
    return refuse('top_logprobs must be between 0 and 20');
  if (body.think !== undefined && body.think !== null) {
    const allowed = `${OLLAMA_THINK_LEVELS.map((level) => JSON.stringify(level)).join(', ')}, true, or false`;
    if (typeof body.think === 'string' && !thinkTurnsOn(body.think)) return refuse(`invalid think value: ${JSON.stringify(body.think)} (must be ${allowed})`);
    if (typeof body.think !== 'string' && typeof body.think !== 'boolean') return refuse(`think must be a boolean or string (${allowed})`);
  }
  if (typeof body.model !== 'string' || body.model === '') return refuse('model is required');
  // Go's %q quotes the model as the request named it.
  if (thinkTurnsOn(body.think) && !ollamaModelThinks(body.model)) return refuse(`${JSON.stringify(body.model)} does not support thinking`);
  return undefined;
}

/**
 * A `format` that is neither `"json"` nor a JSON Schema object. Ollama finds it when the runner
 * reads the request (llm/llama_server.go): a 500 for a plain request (a streamed one gets the
 * same words as an NDJSON error line; the fake answers both with the 500).
 */
function refuseFormat(format: unknown): ProviderError | undefined {
  if (format === undefined || format === null || format === '' || format === 'json' || isRecord(format)) return undefined;
  const raw = JSON.stringify(format);
  return refuse(`invalid format: ${JSON.stringify(raw)}; expected "json" or a valid JSON Schema object`, 500);
}

/** Go's `json: cannot unmarshal <kind> into Go struct field <field> of type <type>`. */
function unmarshal(value: unknown, field: string, goType: string): ProviderError {
  const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value;
  return refuse(`json: cannot unmarshal ${kind} into Go struct field ${field} of type ${goType}`);
}
