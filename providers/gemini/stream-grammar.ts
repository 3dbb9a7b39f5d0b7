/**
 * The order of a Gemini `:streamGenerateContent?alt=sse` stream: `data:` lines without an
 * `event:` line, each a GenerateContentResponse with a non-empty `candidates` array; the last one
 * carries a candidate's `finishReason` and the `usageMetadata`, and nothing comes after it. An
 * `{"error":{code,message,status}}` frame ends the stream early instead.
 */
import type { GrammarEvent } from '../openai/chat/stream-grammar.js';

/** What in `events` breaks the Gemini stream grammar, one line each (`event 2: …`); empty when it holds. */
export function checkGenerateStreamGrammar(events: readonly GrammarEvent[]): string[] {
  const violations: string[] = [];
  if (events.length === 0) return ['the stream has no events: expected GenerateContentResponse frames, the last with finishReason'];
  let ended: 'finished' | 'error' | undefined;
  events.forEach((frame, position) => {
    const where = `event ${position}`;
    if (ended !== undefined) {
      violations.push(`${where}: comes after ${ended === 'finished' ? 'the frame with finishReason' : 'the error'}`);
      return;
    }
    if (frame.event !== undefined) violations.push(`${where}: has an event line "${frame.event}"; Gemini frames have none`);
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(frame.data) as Record<string, unknown>;
    } catch {
      violations.push(`${where}: data is not JSON: ${frame.data.slice(0, 80)}`);
      return;
    }
    if ('error' in data) {
      ended = 'error';
      return;
    }
    const candidates = Array.isArray(data.candidates) ? (data.candidates as Array<Record<string, unknown>>) : [];
    if (candidates.length === 0) {
      violations.push(`${where}: .candidates: expected a non-empty array`);
      return;
    }
    if (candidates.some((candidate) => typeof candidate.finishReason === 'string')) {
      if (typeof data.usageMetadata !== 'object' || data.usageMetadata === null) violations.push(`${where}: the frame with finishReason has no usageMetadata`);
      ended = 'finished';
    }
  });
  if (ended === undefined) violations.push(`the stream stops after ${events.length} events without a finishReason`);
  return violations;
}
