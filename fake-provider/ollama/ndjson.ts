import { fakeThought, type Answer } from '../answer.js';
import { cutIntoChunks } from '../chunking.js';
import { answerText, fakeModel, type RenderContext, type StreamFailure } from '../surface.js';
import { countTokens } from '../usage.js';
import type { WireResponse } from '../wire-response.js';
import { ollamaThinks, type AskedTurn } from '../../providers/internal.js';

/**
 * What Ollama's `/api/chat` and `/api/generate` answers share: the head (`model`, `created_at`
 * from the fake's clock), the metrics of the final object, and NDJSON framing (one JSON object a
 * line, `application/x-ndjson`, as ollama/ollama server/routes.go `streamResponse` writes it).
 */

/** `model` and `created_at`, first in every object Ollama sends. */
export function ollamaHead(turn: AskedTurn, context: RenderContext): { model: string; created_at: string } {
  return { model: fakeModel(turn.model), created_at: new Date(context.created * 1000).toISOString() };
}

/**
 * The final object's metrics, in nanoseconds as Ollama counts them: made from the token counts,
 * so they are deterministic and never zero.
 */
export function ollamaMetrics(answer: Answer, context: RenderContext, thinking = ''): Record<string, number> {
  // Ollama counts the thinking it generated among the eval tokens.
  const evalCount = countTokens(answerText(answer)) + (thinking === '' ? 0 : countTokens(thinking));
  const promptEvalDuration = context.promptTokens * 1_000_000;
  const evalDuration = evalCount * 10_000_000;
  const loadDuration = 1_000_000;
  return {
    total_duration: loadDuration + promptEvalDuration + evalDuration,
    load_duration: loadDuration,
    prompt_eval_count: context.promptTokens,
    prompt_eval_duration: promptEvalDuration,
    eval_count: evalCount,
    eval_duration: evalDuration,
  };
}

/**
 * What the model thinks before it answers, when it thinks (`think` on, or absent for a model with
 * the thinking capability): the fake says what it will do, and that it is fake. Empty otherwise.
 */
export function ollamaThinking(turn: AskedTurn, answer: Answer): string {
  return ollamaThinks(turn.body) ? fakeThought(turn, answer) : '';
}

/** `done_reason` of the final object: `length` when the turn hit the token limit, else `stop` (a stop sequence too, as Ollama reports it). */
export function ollamaDoneReason(context: RenderContext): 'stop' | 'length' {
  return context.finish?.reason === 'length' ? 'length' : 'stop';
}

/** The text an Ollama answer carries: text, or a structured value as JSON text. */
export function ollamaContent(answer: Answer): string {
  if (answer.kind === 'text') return answer.text;
  if (answer.kind === 'structured') return JSON.stringify(answer.value);
  return answer.text ?? '';
}

/** The content pieces a stream delivers, each its own object. */
export function contentPieces(answer: Answer, context: RenderContext): string[] {
  return cutIntoChunks(ollamaContent(answer), context.chunking);
}

/**
 * An NDJSON stream of these objects. A stream error keeps `afterChunks` objects (never the
 * final one) and ends with Ollama's mid-stream error line `{"error":"…"}`, the status staying
 * 200; a dropped connection closes after `afterChunks` lines.
 */
export function ndjsonResponse(objects: readonly unknown[], context: RenderContext, failure: StreamFailure | undefined): WireResponse {
  const frames = objects.map((object) => `${JSON.stringify(object)}\n`);
  const headers = { 'content-type': 'application/x-ndjson', ...context.headers };
  if (failure?.kind === 'stream-error') {
    const kept = frames.slice(0, Math.min(failure.afterChunks, frames.length - 1));
    kept.push(`${JSON.stringify({ error: failure.message ?? 'an error was encountered while running the model (modeltape FakeProvider)' })}\n`);
    return { status: 200, headers, frames: kept };
  }
  if (failure?.kind === 'drop-connection')
    return { status: 200, headers, frames, cut: { kind: 'drop', afterFrames: Math.min(failure.afterChunks, frames.length - 1) } };
  return { status: 200, headers, frames };
}
