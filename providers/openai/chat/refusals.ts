import { isRecord } from '../../../core/internal.js';
import type { ProviderError } from '../../provider-error.js';
import type { RefusalOptions } from '../../refusal.js';
import { openaiRefusal, refuseStrictSchema, refuseTemperature, refuseToolCount } from '../refusal-rules.js';
import { contentText } from '../../turn.js';
import { OPENAI_TOOL_NAME as TOOL_NAME } from '../limits.js';

const ROLES = ['system', 'assistant', 'user', 'function', 'tool', 'developer'];
// Reasoning models refuse the deprecated max_tokens (samples/openai/error-400-unsupported-parameter.json).
const REASONING_MODEL = /^(o\d|gpt-5)/;
const MAX_CHOICES = 128;

/** The 400 OpenAI answers a Chat Completions request with before any model runs, or undefined. */
export function refuseChatRequest(body: Record<string, unknown>, options: RefusalOptions): ProviderError | undefined {
  const constrained = options.constrained;
  const refuse = openaiRefusal;
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
        return refuse("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", `messages.[${index}].role`);
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
  const tooMany = refuseToolCount(tools);
  if (tooMany) return tooMany;
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
  const temperature = refuseTemperature(body.temperature);
  if (temperature) return temperature;
  // n: 1 to 128 choices (the real 400 for n: 130 has code integer_above_max_value).
  if (body.n !== undefined && body.n !== null) {
    if (typeof body.n !== 'number' || !Number.isInteger(body.n))
      return refuse(
        `Invalid type for 'n': expected an integer, but got ${typeof body.n === 'number' ? 'a decimal' : `a ${typeof body.n}`} instead.`,
        'n',
        'invalid_type',
      );
    if (body.n > MAX_CHOICES)
      return refuse(`Invalid 'n': integer above maximum value. Expected a value <= ${MAX_CHOICES}, but got ${body.n} instead.`, 'n', 'integer_above_max_value');
    if (body.n < 1)
      return refuse(`Invalid 'n': integer below minimum value. Expected a value >= 1, but got ${body.n} instead.`, 'n', 'integer_below_min_value');
  }
  const format = isRecord(body.response_format) ? body.response_format : undefined;
  if (format?.type === 'json_object') {
    const mentionsJson = (body.messages as Array<Record<string, unknown>>).some((message) => /json/i.test(contentText(message.content)));
    if (!mentionsJson) return refuse("'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.", 'messages');
  }
  if (constrained && format?.type === 'json_schema' && isRecord(format.json_schema) && format.json_schema.strict === true) {
    const invalid = refuseStrictSchema('response_format', String(format.json_schema.name ?? 'response'), format.json_schema.schema, 'response_format');
    if (invalid) return invalid;
  }
  if (constrained) {
    for (const [index, tool] of tools.entries()) {
      if (!isRecord(tool) || !isRecord(tool.function) || tool.function.strict !== true) continue;
      const invalid = refuseStrictSchema('function', String(tool.function.name), tool.function.parameters, `tools[${index}].function.parameters`);
      if (invalid) return invalid;
    }
  }
  return undefined;
}
