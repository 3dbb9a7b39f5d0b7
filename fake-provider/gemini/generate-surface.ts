import { readGenerateRequest, refuseGenerateRequest, type AskedTurn } from '../../providers/internal.js';
import type { Answer } from '../answer.js';
import { cutIntoChunks } from '../chunking.js';
import { answerText, fakeModel, refusalResponse, type RenderContext, type StreamFailure, type Surface } from '../surface.js';
import { countTokens } from '../usage.js';
import { jsonResponse, sseResponse, type WireResponse } from '../wire-response.js';

type Part = Record<string, unknown>;

/**
 * Gemini `generateContent`: `POST /v1beta/models/{model}:generateContent`, and
 * `:streamGenerateContent?alt=sse` as server-sent events, each a partial `GenerateContentResponse`.
 */
export const geminiGenerateSurface: Surface = {
  provider: 'gemini',
  api: 'gemini-generate',

  refuse: (body, options, context) => refusalResponse('gemini', refuseGenerateRequest(body, options), context),
  ask: readGenerateRequest,

  respond(turn, answer, context, failure) {
    return turn.stream ? streamGenerate(turn, answer, context, failure) : jsonResponse(200, generateResponse(turn, answer, context), context.headers);
  },
};

/** The answer's parts: its text (a structured value as JSON text), then each function call (with an id only when scripted with one). */
function answerParts(answer: Answer): Part[] {
  const parts: Part[] = [];
  const text = answer.kind === 'text' ? answer.text : answer.kind === 'structured' ? JSON.stringify(answer.value) : answer.text;
  if (text !== undefined) parts.push({ text });
  if (answer.kind === 'tool-calls') {
    for (const call of answer.calls)
      parts.push({ functionCall: { ...(call.id === undefined ? {} : { id: call.id }), name: call.name, args: call.arguments ?? {} } });
  }
  return parts;
}

function usageMetadata(promptTokens: number, candidatesTokens: number): Record<string, unknown> {
  return {
    promptTokenCount: promptTokens,
    candidatesTokenCount: candidatesTokens,
    totalTokenCount: promptTokens + candidatesTokens,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: promptTokens }],
  };
}

function generateResponse(turn: AskedTurn, answer: Answer, context: RenderContext): Record<string, unknown> {
  return {
    candidates: [{ content: { parts: answerParts(answer), role: 'model' }, finishReason: 'STOP', index: 0 }],
    usageMetadata: usageMetadata(context.promptTokens, countTokens(answerText(answer))),
    modelVersion: fakeModel(turn.model),
    responseId: context.newId('resp'),
  };
}

/** `data: {json}` and a blank line, with CRLFs, as Gemini frames every event of `alt=sse`. */
function geminiFrame(value: unknown): string {
  return `data: ${JSON.stringify(value)}\r\n\r\n`;
}

// Text arrives in pieces, each its own partial response; function calls arrive whole, in one
// chunk after the text, as Gemini streams them. The last chunk carries finishReason; every chunk
// carries usageMetadata and the same responseId and modelVersion.
function streamGenerate(turn: AskedTurn, answer: Answer, context: RenderContext, failure: StreamFailure | undefined): WireResponse {
  const parts = answerParts(answer);
  const responseId = context.newId('resp');
  const modelVersion = fakeModel(turn.model);
  const pieces: Part[][] = [];
  for (const part of parts) {
    if (typeof part.text === 'string') for (const text of cutIntoChunks(part.text, context.chunking)) pieces.push([{ text }]);
  }
  const calls = parts.filter((part) => part.functionCall !== undefined);
  if (calls.length > 0) pieces.push(calls);
  if (pieces.length === 0) pieces.push([{ text: '' }]);
  const total = countTokens(answerText(answer));
  let sent = '';
  const frames = pieces.map((chunkParts, index) => {
    sent += chunkParts.map((part) => (typeof part.text === 'string' ? part.text : JSON.stringify(part.functionCall))).join('');
    const last = index === pieces.length - 1;
    const candidate: Record<string, unknown> = { content: { parts: chunkParts, role: 'model' }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 };
    // Output tokens grow with what was sent and end at the answer's count, never zero.
    const outputTokens = last ? total : Math.min(total, countTokens(sent));
    return geminiFrame({ candidates: [candidate], usageMetadata: usageMetadata(context.promptTokens, outputTokens), modelVersion, responseId });
  });
  if (failure?.kind === 'stream-error') {
    const kept = frames.slice(0, Math.min(failure.afterChunks, frames.length - 1));
    kept.push(
      geminiFrame({ error: { code: 500, message: failure.message ?? 'An internal error has occurred. (modeltape FakeProvider)', status: 'INTERNAL' } }),
    );
    return sseResponse(kept, context.headers);
  }
  if (failure?.kind === 'drop-connection')
    return { ...sseResponse(frames, context.headers), cut: { kind: 'drop', afterFrames: Math.min(failure.afterChunks, frames.length - 1) } };
  return sseResponse(frames, context.headers);
}
