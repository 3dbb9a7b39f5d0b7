import { isRecord } from '../../../core/internal.js';
import type { ProviderError } from '../../provider-error.js';
import type { RefusalOptions } from '../../refusal.js';
import { openaiRefusal, refuseStrictSchema, refuseTemperature, refuseToolCount } from '../refusal-rules.js';
import { OPENAI_TOOL_NAME as TOOL_NAME } from '../limits.js';

/** The 400 OpenAI answers a Responses request with before any model runs, or undefined. */
export function refuseResponsesRequest(body: Record<string, unknown>, options: RefusalOptions): ProviderError | undefined {
  const constrained = options.constrained;
  const refuse = openaiRefusal;
  if (typeof body.model !== 'string' || body.model === '') return refuse("Missing required parameter: 'model'.", 'model', 'missing_required_parameter');
  if (body.max_tokens !== undefined)
    return refuse(
      "Unsupported parameter: 'max_tokens'. In the Responses API, this parameter has moved to 'max_output_tokens'.",
      'max_tokens',
      'unsupported_parameter',
    );
  if (body.input !== undefined && typeof body.input !== 'string' && !Array.isArray(body.input))
    return refuse("Invalid type for 'input': expected one of a string or an array of input items.", 'input', 'invalid_type');
  // With previous_response_id (or a conversation) the calls live in the stored response, which
  // the fake does not keep: only a self-contained input can be checked.
  const stateful = body.previous_response_id !== undefined || body.conversation !== undefined;
  const calls = new Set<string>();
  for (const item of stateful || !Array.isArray(body.input) ? [] : (body.input as unknown[])) {
    if (!isRecord(item)) continue;
    if (item.type === 'function_call' && typeof item.call_id === 'string') calls.add(item.call_id);
    if (item.type === 'function_call_output' && !calls.has(String(item.call_id)))
      return refuse(`No tool call found for function call output with call_id ${String(item.call_id)}.`, 'input');
  }
  const tools = Array.isArray(body.tools) ? (body.tools as unknown[]) : [];
  const tooMany = refuseToolCount(tools);
  if (tooMany) return tooMany;
  for (const [index, tool] of tools.entries()) {
    if (!isRecord(tool) || tool.type !== 'function') continue;
    if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name)) {
      return refuse(
        `Invalid 'tools[${index}].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
        `tools[${index}].name`,
        'invalid_value',
      );
    }
  }
  const temperature = refuseTemperature(body.temperature);
  if (temperature) return temperature;
  if (constrained) {
    const format = isRecord(body.text) && isRecord(body.text.format) ? body.text.format : undefined;
    if (format?.type === 'json_schema' && format.strict === true) {
      const invalid = refuseStrictSchema('response_format', String(format.name ?? 'response'), format.schema, 'text.format.schema');
      if (invalid) return invalid;
    }
    // Only tools that say `strict: true` are held to strict mode here; left out, the Responses
    // API converts the schema to strict form itself and accepts it.
    for (const [index, tool] of tools.entries()) {
      if (!isRecord(tool) || tool.type !== 'function' || tool.strict !== true) continue;
      const invalid = refuseStrictSchema('function', String(tool.name), tool.parameters, `tools[${index}].parameters`);
      if (invalid) return invalid;
    }
  }
  return undefined;
}
