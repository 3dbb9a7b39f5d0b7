import { excerpt, isRecord, type Json } from '../../core/internal.js';
import type { ModelAnswer, UnreadableAnswer } from '../model-call.js';
import { checkArgumentsValue } from '../tool-arguments.js';
import { functionCallOf, partsText, type Part } from './contents.js';
import { UNNAMED_CALL_PREFIX } from './render-request.js';

/**
 * Reads a `GenerateContentResponse`: the first candidate's text parts (thoughts left out) and
 * function calls, its `finishReason`, and `usageMetadata`. A call without an id (Gemini pairs
 * calls and responses by name) gets `gemini-call-<n>`, which is never sent back.
 */
export function readGenerateAnswer(body: unknown): ModelAnswer | UnreadableAnswer {
  const candidate = isRecord(body) && Array.isArray(body.candidates) ? body.candidates[0] : undefined;
  const content = isRecord(candidate) && isRecord(candidate.content) ? candidate.content : undefined;
  if (content === undefined) {
    const blocked = isRecord(body) && isRecord(body.promptFeedback) ? ` (promptFeedback.blockReason ${String(body.promptFeedback.blockReason)})` : '';
    return { problem: `answered without candidates[0].content${blocked}: ${excerpt(JSON.stringify(body), 200)}` };
  }
  const parts = (Array.isArray(content.parts) ? content.parts.filter(isRecord) : []) as Part[];
  const text = partsText(parts);
  const usage = isRecord(body) && isRecord(body.usageMetadata) ? body.usageMetadata : {};
  return {
    text: parts.some((part) => typeof part.text === 'string' && part.thought !== true) ? text : null,
    toolCalls: parts
      .map(functionCallOf)
      .filter((call) => call !== undefined)
      .map((call, index) => {
        const args = (call.args ?? {}) as Json;
        const problem = checkArgumentsValue(args);
        return { id: call.id ?? `${UNNAMED_CALL_PREFIX}${index}`, name: call.name, args, ...(problem === undefined ? {} : { argumentsError: problem }) };
      }),
    stopReason: isRecord(candidate) && typeof candidate.finishReason === 'string' ? candidate.finishReason : 'STOP',
    usage: { input: numberOr0(usage.promptTokenCount), output: numberOr0(usage.candidatesTokenCount) + numberOr0(usage.thoughtsTokenCount) },
  };
}

function numberOr0(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}
