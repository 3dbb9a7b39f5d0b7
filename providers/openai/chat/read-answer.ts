import { excerpt } from '../../../core/internal.js';
import type { ModelAnswer, UnreadableAnswer } from '../../model-call.js';
import { parseToolArguments } from '../../tool-arguments.js';

/** Reads a Chat Completions answer: the first choice's text and tool calls, its finish reason and usage. */
export function readChatAnswer(body: unknown): ModelAnswer | UnreadableAnswer {
  const choice = (
    body as {
      choices?: Array<{
        message?: { content?: string | null; tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }> };
        finish_reason?: string;
      }>;
    }
  ).choices?.[0];
  if (choice?.message === undefined) return { problem: `answered without choices[0].message: ${excerpt(JSON.stringify(body), 200)}` };
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
