import { isRecord } from '../../core/internal.js';
import type { Answer, AskedMessage, AskedTool, AskedTurn, ResponseSchema, ToolExchange } from '../asked-turn.js';
import { cutArguments, cutIntoChunks } from '../chunking.js';
import { openaiError } from '../provider-errors.js';
import { checkOpenAiStrictSchema, formatContext } from '../strict-schema.js';
import {
  answerText,
  argumentsJson,
  contentText,
  fakeModel,
  parseArguments,
  askedTurn,
  OPENAI_MAX_TOOLS as MAX_TOOLS,
  OPENAI_TOOL_NAME as TOOL_NAME,
  type RenderContext,
  type StreamFailure,
  type Surface,
} from '../surface.js';
import { countTokens } from '../usage.js';
import { dataFrame, jsonResponse, sseResponse, type WireResponse } from '../wire-response.js';

const ROLES = ['system', 'assistant', 'user', 'function', 'tool', 'developer'];
// Reasoning models refuse the deprecated max_tokens (samples/openai/error-400-unsupported-parameter.json).
const REASONING_MODEL = /^(o\d|gpt-5)/;
const FINGERPRINT = 'fp_modeltape_fake';

/** OpenAI Chat Completions: `POST /v1/chat/completions`. */
export const openaiChatSurface: Surface = {
  provider: 'openai',
  endpoint: 'chat.completions',

  refuse(body, options, context) {
    const constrained = options.constrained;
    const refuse = (message: string, param: string | null, code: string | null = null): WireResponse =>
      openaiError(400, message, { param, code }, context.headers);
    if (typeof body.model !== 'string' || body.model === '') return refuse('you must provide a model parameter', null);
    if (body.messages === undefined) return refuse("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
    if (!Array.isArray(body.messages))
      return refuse(`Invalid type for 'messages': expected an array, but got ${typeof body.messages} instead.`, 'messages', 'invalid_type');
    if (body.messages.length === 0)
      return refuse("Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", 'messages', 'empty_array');
    const pending = new Map<string, number>();
    for (const [index, message] of (body.messages as unknown[]).entries()) {
      if (!isRecord(message))
        return refuse(`Invalid type for 'messages[${index}]': expected an object, but got ${typeof message} instead.`, `messages[${index}]`, 'invalid_type');
      if (!ROLES.includes(message.role as string)) {
        return refuse(
          `Invalid value: '${String(message.role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
          `messages[${index}].role`,
          'invalid_value',
        );
      }
      if (message.role === 'tool') {
        if (typeof message.tool_call_id !== 'string')
          return refuse(`Missing required parameter: 'messages[${index}].tool_call_id'.`, `messages[${index}].tool_call_id`, 'missing_required_parameter');
        if (!pending.has(message.tool_call_id))
          return refuse(
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
            `messages.[${index}].role`,
          );
        pending.delete(message.tool_call_id);
        continue;
      }
      if (pending.size > 0) {
        const [assistantIndex] = pending.values();
        return refuse(
          `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...pending.keys()].join(', ')}`,
          `messages.[${assistantIndex}].role`,
        );
      }
      if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
        for (const call of message.tool_calls as unknown[]) if (isRecord(call) && typeof call.id === 'string') pending.set(call.id, index);
      }
    }
    if (pending.size > 0) {
      const [assistantIndex] = pending.values();
      return refuse(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...pending.keys()].join(', ')}`,
        `messages.[${assistantIndex}].role`,
      );
    }
    const tools = Array.isArray(body.tools) ? (body.tools as unknown[]) : [];
    if (tools.length > MAX_TOOLS)
      return refuse(
        `Invalid 'tools': array too long. Expected an array with maximum length ${MAX_TOOLS}, but got an array with length ${tools.length} instead.`,
        'tools',
        'array_above_max_length',
      );
    for (const [index, tool] of tools.entries()) {
      // Custom tools ({type:"custom", custom:{name}}) carry their name elsewhere.
      const kind = isRecord(tool) && tool.type === 'custom' ? 'custom' : 'function';
      const holder = isRecord(tool) ? tool[kind] : undefined;
      const name = isRecord(holder) ? holder.name : undefined;
      if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
        return refuse(
          `Invalid 'tools[${index}].${kind}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
          `tools[${index}].${kind}.name`,
          'invalid_value',
        );
      }
    }
    if (tools.length === 0 && body.tool_choice !== undefined)
      return refuse("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.", 'tool_choice');
    if (tools.length === 0 && body.parallel_tool_calls !== undefined)
      return refuse("Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are specified.", 'parallel_tool_calls');
    if (body.stream_options !== undefined && body.stream !== true)
      return refuse("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options');
    if (body.max_tokens !== undefined && REASONING_MODEL.test(body.model)) {
      return refuse(
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        'max_tokens',
        'unsupported_parameter',
      );
    }
    if (typeof body.temperature === 'number' && body.temperature > 2)
      return refuse(
        `Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got ${body.temperature} instead.`,
        'temperature',
        'decimal_above_max_value',
      );
    if (typeof body.temperature === 'number' && body.temperature < 0)
      return refuse(
        `Invalid 'temperature': decimal below minimum value. Expected a value >= 0, but got ${body.temperature} instead.`,
        'temperature',
        'decimal_below_min_value',
      );
    const format = isRecord(body.response_format) ? body.response_format : undefined;
    if (format?.type === 'json_object') {
      const mentionsJson = (body.messages as Array<Record<string, unknown>>).some((message) => /json/i.test(contentText(message.content)));
      if (!mentionsJson) return refuse("'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.", 'messages');
    }
    if (constrained && format?.type === 'json_schema' && isRecord(format.json_schema) && format.json_schema.strict === true) {
      const violation = checkOpenAiStrictSchema(format.json_schema.schema);
      if (violation)
        return refuse(
          `Invalid schema for response_format '${String(format.json_schema.name ?? 'response')}': In context=${formatContext(violation.context)}, ${violation.message}`,
          'response_format',
        );
    }
    if (constrained) {
      for (const [index, tool] of tools.entries()) {
        if (!isRecord(tool) || !isRecord(tool.function) || tool.function.strict !== true) continue;
        const violation = checkOpenAiStrictSchema(tool.function.parameters);
        if (violation)
          return refuse(
            `Invalid schema for function '${String(tool.function.name)}': In context=${formatContext(violation.context)}, ${violation.message}`,
            `tools[${index}].function.parameters`,
          );
      }
    }
    return undefined;
  },

  ask(body, index) {
    const all = body.messages as Array<Record<string, unknown>>;
    const systemParts = all.filter((message) => message.role === 'system' || message.role === 'developer').map((message) => contentText(message.content));
    const system = systemParts.length > 0 ? systemParts.join('\n\n') : undefined;
    const messages: AskedMessage[] = [];
    const names = new Map<string, string>();
    for (const message of all) {
      if (message.role === 'system' || message.role === 'developer') continue;
      if (message.role === 'tool') {
        messages.push({ role: 'tool', text: contentText(message.content), toolCallId: String(message.tool_call_id) });
        continue;
      }
      const asked: AskedMessage = { role: message.role === 'assistant' ? 'assistant' : 'user', text: contentText(message.content) };
      if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
        asked.toolCalls = (message.tool_calls as Array<Record<string, unknown>>).map((call) => {
          const fn = isRecord(call.function) ? call.function : {};
          names.set(String(call.id), String(fn.name));
          return { id: String(call.id), name: String(fn.name), arguments: parseArguments(fn.arguments) };
        });
      }
      messages.push(asked);
    }
    const tools: AskedTool[] = (Array.isArray(body.tools) ? (body.tools as Array<Record<string, unknown>>) : [])
      .filter((tool) => isRecord(tool.function))
      .map((tool) => {
        const fn = tool.function as Record<string, unknown>;
        return {
          name: String(fn.name),
          description: typeof fn.description === 'string' ? fn.description : undefined,
          parameters: fn.parameters ?? { type: 'object', properties: {} },
          strict: fn.strict === true,
        };
      });
    const format = isRecord(body.response_format) ? body.response_format : undefined;
    let responseSchema: ResponseSchema | undefined;
    if (format?.type === 'json_schema' && isRecord(format.json_schema)) {
      responseSchema = {
        source: 'response_format',
        name: typeof format.json_schema.name === 'string' ? format.json_schema.name : undefined,
        schema: format.json_schema.schema ?? {},
        strict: format.json_schema.strict === true,
      };
    }
    return askedTurn(body, {
      index,
      provider: 'openai',
      endpoint: 'chat.completions',
      system,
      messages,
      tools,
      responseSchema,
      exchanges: trailingToolResults(messages, names),
    });
  },

  respond(turn, answer, context, failure) {
    return turn.stream ? streamChat(turn, answer, context, failure) : jsonResponse(200, completion(turn, answer, context), context.headers);
  },

  error(status, type, message, context) {
    return openaiError(status, message, { type, code: type }, context.headers);
  },
};

function trailingToolResults(messages: readonly AskedMessage[], names: ReadonlyMap<string, string>): ToolExchange[] {
  const results: ToolExchange[] = [];
  for (let index = messages.length - 1; index >= 0 && messages[index]!.role === 'tool'; index--) {
    const message = messages[index]!;
    results.unshift({ toolCallId: message.toolCallId!, name: names.get(message.toolCallId!), result: message.text, isError: false });
  }
  return results;
}

function messageContent(answer: Answer): string | null {
  if (answer.kind === 'text') return answer.text;
  if (answer.kind === 'structured') return JSON.stringify(answer.value);
  return answer.text ?? null;
}

function toolCalls(answer: Answer, context: RenderContext): Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }> {
  if (answer.kind !== 'tool-calls') return [];
  return answer.calls.map((call) => ({
    id: call.id ?? context.newId('call'),
    type: 'function',
    function: { name: call.name, arguments: argumentsJson(call.arguments) },
  }));
}

function usage(promptTokens: number, completionTokens: number): Record<string, unknown> {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

function completion(turn: AskedTurn, answer: Answer, context: RenderContext): Record<string, unknown> {
  const calls = toolCalls(answer, context);
  const message: Record<string, unknown> = { role: 'assistant', content: messageContent(answer), refusal: null, annotations: [] };
  if (calls.length > 0) message.tool_calls = calls;
  return {
    id: context.newId('chatcmpl'),
    object: 'chat.completion',
    created: context.created,
    model: fakeModel(turn.model),
    choices: [{ index: 0, message, logprobs: null, finish_reason: calls.length > 0 ? 'tool_calls' : 'stop' }],
    usage: usage(context.promptTokens, countTokens(answerText(answer))),
    service_tier: 'default',
    system_fingerprint: FINGERPRINT,
  };
}

// The stream of a chat completion: role first, content deltas, tool-call deltas keyed by index
// with id and name only in the first, the finish chunk, the usage chunk when asked, [DONE].
function streamChat(turn: AskedTurn, answer: Answer, context: RenderContext, failure: StreamFailure | undefined): WireResponse {
  const id = context.newId('chatcmpl');
  const includeUsage = isRecord(turn.body.stream_options) && turn.body.stream_options.include_usage === true;
  // Every chunk repeats the same fields: written once, with each chunk's choice spliced in.
  const head = JSON.stringify({
    id,
    object: 'chat.completion.chunk',
    created: context.created,
    model: fakeModel(turn.model),
    service_tier: 'default',
    system_fingerprint: FINGERPRINT,
  }).slice(0, -1);
  const tail = includeUsage ? ',"usage":null}' : '}';
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
    `data: ${head},"choices":[{"index":0,"delta":${JSON.stringify(delta)},"logprobs":null,"finish_reason":${JSON.stringify(finish)}}]${tail}\n\n`;
  const calls = toolCalls(answer, context);
  const content = messageContent(answer);
  const frames: string[] = [];
  const firstDelta = (index: number) => ({ index, id: calls[index]!.id, type: 'function', function: { name: calls[index]!.function.name, arguments: '' } });
  // With no text, the first tool call opens in the role chunk, as OpenAI streams it.
  const openFirstCall = calls.length > 0 && content === null;
  frames.push(
    chunk(openFirstCall ? { role: 'assistant', content: null, tool_calls: [firstDelta(0)], refusal: null } : { role: 'assistant', content: '', refusal: null }),
  );
  for (const piece of cutIntoChunks(content ?? '', context.chunking)) frames.push(chunk({ content: piece }));
  for (const [index, call] of calls.entries()) {
    if (index > 0 || !openFirstCall) frames.push(chunk({ tool_calls: [firstDelta(index)] }));
    for (const piece of cutArguments(call.function.arguments, context.chunking))
      frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  }
  frames.push(chunk({}, calls.length > 0 ? 'tool_calls' : 'stop'));
  if (includeUsage) frames.push(`data: ${head},"choices":[],"usage":${JSON.stringify(usage(context.promptTokens, countTokens(answerText(answer))))}}\n\n`);
  frames.push(dataFrame('[DONE]'));
  if (failure?.kind === 'stream-error') {
    const kept = frames.slice(0, Math.min(failure.afterChunks, frames.length - 1));
    kept.push(
      dataFrame({
        error: {
          message: failure.message ?? 'The server had an error while processing your request. (modeltape FakeProvider)',
          type: 'server_error',
          param: null,
          code: null,
        },
      }),
    );
    return sseResponse(kept, context.headers);
  }
  if (failure?.kind === 'drop-connection')
    return { ...sseResponse(frames, context.headers), cut: { kind: 'drop', afterFrames: Math.min(failure.afterChunks, frames.length - 1) } };
  return sseResponse(frames, context.headers);
}
