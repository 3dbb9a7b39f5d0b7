import { excerpt, isRecord } from '../../../core/internal.js';
import type { ModelAnswer, UnreadableAnswer } from '../../model-call.js';

/**
 * Reads an Ollama `/api/generate` answer (not streamed): its `response` text, `done_reason`, and
 * `prompt_eval_count` / `eval_count`. A completion has no tool calls.
 */
export function readOllamaGenerateAnswer(body: unknown): ModelAnswer | UnreadableAnswer {
  if (!isRecord(body) || typeof body.response !== 'string') return { problem: `answered without response: ${excerpt(JSON.stringify(body), 200)}` };
  return {
    text: body.response,
    toolCalls: [],
    stopReason: typeof body.done_reason === 'string' ? body.done_reason : 'stop',
    usage: {
      input: typeof body.prompt_eval_count === 'number' ? body.prompt_eval_count : 0,
      output: typeof body.eval_count === 'number' ? body.eval_count : 0,
    },
  };
}
