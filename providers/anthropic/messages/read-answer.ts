import { excerpt, type Json } from '../../../core/internal.js';
import type { ModelAnswer, UnreadableAnswer } from '../../model-call.js';
import { checkArgumentsValue } from '../../tool-arguments.js';

/** Reads a Messages answer: its text blocks, tool uses, stop reason and usage. */
export function readMessagesAnswer(body: unknown): ModelAnswer | UnreadableAnswer {
  const message = body as {
    content?: Array<{ type: string; text?: string; id?: string; name?: string; input?: Json }>;
    stop_reason?: string;
    usage?: { input_tokens?: number; output_tokens?: number };
  };
  if (!Array.isArray(message.content)) return { problem: `answered without a content array: ${excerpt(JSON.stringify(body), 200)}` };
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
