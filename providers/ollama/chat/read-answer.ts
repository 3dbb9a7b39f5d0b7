import { excerpt, isRecord, type Json } from '../../../core/internal.js';
import type { ModelAnswer, UnreadableAnswer } from '../../model-call.js';

/**
 * Reads an Ollama `/api/chat` answer (not streamed): the message's text and tool calls (their
 * arguments are objects already), `done_reason`, and `prompt_eval_count` / `eval_count`. A tool
 * call without an id gets one from its position, so the journal can pair its result.
 */
export function readOllamaChatAnswer(body: unknown): ModelAnswer | UnreadableAnswer {
  if (!isRecord(body) || !isRecord(body.message)) return { problem: `answered without message: ${excerpt(JSON.stringify(body), 200)}` };
  const message = body.message;
  const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as Array<Record<string, unknown>>) : [];
  const toolCalls = calls.map((call, index) => {
    const fn = isRecord(call.function) ? call.function : {};
    const id = typeof call.id === 'string' && call.id !== '' ? call.id : `ollama-call-${index}`;
    const name = String(fn.name);
    if (!isRecord(fn.arguments)) return { id, name, args: JSON.stringify(fn.arguments ?? null), argumentsError: 'the arguments are not a JSON object' };
    return { id, name, args: fn.arguments as Json };
  });
  const content = typeof message.content === 'string' ? message.content : '';
  return {
    text: content === '' && toolCalls.length > 0 ? null : content,
    toolCalls,
    stopReason: typeof body.done_reason === 'string' ? body.done_reason : 'stop',
    usage: {
      input: typeof body.prompt_eval_count === 'number' ? body.prompt_eval_count : 0,
      output: typeof body.eval_count === 'number' ? body.eval_count : 0,
    },
  };
}
