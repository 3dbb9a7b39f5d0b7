import { excerpt, isRecord } from '../../../core/internal.js';
import type { ModelAnswer, ModelToolCall, UnreadableAnswer } from '../../model-call.js';
import { parseToolArguments } from '../../tool-arguments.js';

/**
 * Reads a Responses API answer (not streamed): the text of its message items' `output_text`
 * parts, its `function_call` items as tool calls (keyed by `call_id`, which their outputs name),
 * and usage. Reasoning items carry no answer and are skipped. The stop reason is the response's
 * `status`, or the reason it is `incomplete` (`max_output_tokens`, `content_filter`).
 */
export function readResponsesAnswer(body: unknown): ModelAnswer | UnreadableAnswer {
  if (!isRecord(body) || !Array.isArray(body.output)) return { problem: `answered without an output list: ${excerpt(JSON.stringify(body), 200)}` };
  const texts: string[] = [];
  const toolCalls: ModelToolCall[] = [];
  for (const item of body.output) {
    if (!isRecord(item)) continue;
    if (item.type === 'message' && Array.isArray(item.content)) {
      for (const part of item.content) if (isRecord(part) && part.type === 'output_text' && typeof part.text === 'string') texts.push(part.text);
    } else if (item.type === 'function_call') {
      const id = String(item.call_id);
      const name = String(item.name);
      const raw = typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? null);
      const parsed = parseToolArguments(raw);
      toolCalls.push(parsed.ok ? { id, name, args: parsed.value } : { id, name, args: raw, argumentsError: parsed.reason });
    }
  }
  const incomplete = isRecord(body.incomplete_details) && typeof body.incomplete_details.reason === 'string' ? body.incomplete_details.reason : undefined;
  const usage = isRecord(body.usage) ? body.usage : {};
  return {
    text: texts.length === 0 ? null : texts.join(''),
    toolCalls,
    stopReason: incomplete ?? (typeof body.status === 'string' ? body.status : 'completed'),
    usage: {
      input: typeof usage.input_tokens === 'number' ? usage.input_tokens : 0,
      output: typeof usage.output_tokens === 'number' ? usage.output_tokens : 0,
    },
  };
}
