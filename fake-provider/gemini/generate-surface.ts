import { createHash } from 'node:crypto';
import { isRecord } from '../../core/internal.js';
import { readGenerateRequest, refuseGenerateRequest, type AskedTurn } from '../../providers/internal.js';
import { PROVIDER_FINISHES, fakeThought, type Answer } from '../answer.js';
import { cutIntoChunks } from '../chunking.js';
import { answerText, fakeModel, refusalResponse, type RenderContext, type StreamFailure, type Surface } from '../surface.js';
import { countTokens } from '../usage.js';
import { jsonResponse, sseResponse, type WireResponse } from '../wire-response.js';

type Part = Record<string, unknown>;

/**
 * How `:streamGenerateContent` frames its stream: `sse` with `?alt=sse` (what @google/genai and
 * @ai-sdk/google ask for), `json-array` without it, where Gemini writes one JSON array of
 * `GenerateContentResponse` objects as they come (`application/json`).
 */
export type GeminiStreamFraming = 'sse' | 'json-array';

/**
 * Gemini `generateContent`: `POST /v1beta/models/{model}:generateContent`, and
 * `:streamGenerateContent` as server-sent events (`?alt=sse`) or as a streamed JSON array,
 * each element a partial `GenerateContentResponse`. With
 * `generationConfig.thinkingConfig.includeThoughts` the answer starts with a thought part.
 */
function generateSurface(framing: GeminiStreamFraming): Surface {
  return {
    provider: 'gemini',
    api: 'gemini-generate',

    refuse(body, options, context) {
      const refusal = refusalResponse('gemini', refuseGenerateRequest(body, options), context);
      // A stream asked for as a JSON array gets its error inside one, as real answers show
      // (google-gemini/gemini-cli#12425 quotes `[{"error": {…}}]`).
      if (refusal === undefined || framing === 'sse' || typeof refusal.body !== 'string') return refusal;
      return { ...refusal, body: `[${refusal.body}]` };
    },
    ask: readGenerateRequest,

    respond(turn, answer, context, failure) {
      return turn.stream
        ? streamGenerate(turn, answer, context, failure, framing)
        : jsonResponse(200, generateResponse(turn, answer, context), context.headers);
    },
  };
}

/** Gemini generateContent, streams framed as SSE. */
export const geminiGenerateSurface = generateSurface('sse');

/** Gemini generateContent, streams framed as one JSON array (`:streamGenerateContent` without `alt=sse`). */
export const geminiArrayStreamSurface = generateSurface('json-array');

/** The framing a `:streamGenerateContent` query asks for: SSE only with `alt=sse`. */
export function geminiStreamFraming(query: string): GeminiStreamFraming {
  return new URLSearchParams(query).get('alt') === 'sse' ? 'sse' : 'json-array';
}

/**
 * What `generationConfig.thinkingConfig` asks: whether the model thinks (a budget other than 0,
 * or a `thinkingLevel`) and whether its thoughts are shown (`includeThoughts`). Without a
 * thinking config the fake does not think (real 2.5 models think by default; the fake reports
 * thinking only when asked, so answers without one stay as they were).
 */
function thinkingOf(turn: AskedTurn): { thinks: boolean; shown: boolean } {
  const config = turn.body.generationConfig ?? turn.body.generation_config;
  const thinking = isRecord(config) ? (config.thinkingConfig ?? config.thinking_config) : undefined;
  if (!isRecord(thinking)) return { thinks: false, shown: false };
  const budget = thinking.thinkingBudget ?? thinking.thinking_budget;
  const thinks = budget !== 0;
  return { thinks, shown: thinks && (thinking.includeThoughts ?? thinking.include_thoughts) === true };
}

/**
 * The answer's parts: its text (a structured value as JSON text), then each function call (with
 * an id only when scripted with one). A thinking model signs its function calls, as Gemini does
 * (`thoughtSignature`, which clients send back with the call): here a base64 text that says it
 * is fake, the same for the same call.
 */
function answerParts(answer: Answer, thinks = false): Part[] {
  const parts: Part[] = [];
  const text = answer.kind === 'text' ? answer.text : answer.kind === 'structured' ? JSON.stringify(answer.value) : answer.text;
  if (text !== undefined) parts.push({ text });
  if (answer.kind === 'tool-calls') {
    for (const call of answer.calls) {
      const functionCall = { ...(call.id === undefined ? {} : { id: call.id }), name: call.name, args: call.arguments ?? {} };
      parts.push(thinks ? { functionCall, thoughtSignature: fakeThoughtSignature(functionCall) } : { functionCall });
    }
  }
  return parts;
}

/** A thought signature that can never pass for a real one: `fake-thought-signature:` and a hash of the call, in base64. */
function fakeThoughtSignature(call: unknown): string {
  const digest = createHash('sha256').update(JSON.stringify(call)).digest('hex').slice(0, 32);
  return Buffer.from(`fake-thought-signature:${digest}`).toString('base64');
}

function usageMetadata(promptTokens: number, candidatesTokens: number, thoughtsTokens: number): Record<string, unknown> {
  return {
    promptTokenCount: promptTokens,
    candidatesTokenCount: candidatesTokens,
    totalTokenCount: promptTokens + candidatesTokens + thoughtsTokens,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: promptTokens }],
    ...(thoughtsTokens > 0 ? { thoughtsTokenCount: thoughtsTokens } : {}),
  };
}

/**
 * The candidate's `finishReason`: the Gemini name when one was scripted, else the neutral finish
 * in Gemini's words (`length` → `MAX_TOKENS`, `content-filter` → `SAFETY`; a stop sequence ends
 * as `STOP`, as Gemini reports it), else `STOP`.
 */
function finishReasonOf(context: RenderContext): string {
  const finish = context.finish;
  if (finish === undefined) return 'STOP';
  // finishFor let only Gemini's own names through for this API, so a provider name is Gemini's.
  if ((PROVIDER_FINISHES as readonly string[]).includes(finish.scripted)) return finish.scripted;
  return finish.reason === 'length' ? 'MAX_TOKENS' : finish.reason === 'content-filter' ? 'SAFETY' : 'STOP';
}

/** Whether the answer was cut short by a block (every reason but `STOP` and `MAX_TOKENS`): its last chunk then carries no content. */
function isBlocked(finishReason: string): boolean {
  return finishReason !== 'STOP' && finishReason !== 'MAX_TOKENS';
}

/**
 * Safety ratings one per category, as Gemini lists them; the blocking one (dangerous content,
 * here) is rated `HIGH` and `blocked`, as a `SAFETY` finish or a blocked prompt shows it.
 */
function safetyRatings(): Array<Record<string, unknown>> {
  return [
    { category: 'HARM_CATEGORY_SEXUALLY_EXPLICIT', probability: 'NEGLIGIBLE' },
    { category: 'HARM_CATEGORY_HATE_SPEECH', probability: 'NEGLIGIBLE' },
    { category: 'HARM_CATEGORY_HARASSMENT', probability: 'NEGLIGIBLE' },
    { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true },
  ];
}

/** The candidate's end: its finishReason, its index, and the safety ratings of a `SAFETY` finish. */
function candidateEnd(finishReason: string): Record<string, unknown> {
  return { finishReason, index: 0, ...(finishReason === 'SAFETY' ? { safetyRatings: safetyRatings() } : {}) };
}

/**
 * A blocked prompt (finish `refusal`: Gemini has no refusal text): `promptFeedback` with
 * `blockReason: "SAFETY"` and its ratings, no candidates, usage of the prompt alone. The same
 * object answers JSON and is a stream's only chunk, as Gemini sends it in the first chunk.
 */
function blockedPrompt(turn: AskedTurn, context: RenderContext, responseId: string): Record<string, unknown> {
  return {
    promptFeedback: { blockReason: 'SAFETY', safetyRatings: safetyRatings() },
    usageMetadata: {
      promptTokenCount: context.promptTokens,
      totalTokenCount: context.promptTokens,
      promptTokensDetails: [{ modality: 'TEXT', tokenCount: context.promptTokens }],
    },
    modelVersion: fakeModel(turn.model),
    responseId,
  };
}

function generateResponse(turn: AskedTurn, answer: Answer, context: RenderContext): Record<string, unknown> {
  if (context.finish?.reason === 'refusal') return blockedPrompt(turn, context, context.newId('resp'));
  const thinking = thinkingOf(turn);
  const thought = thinking.thinks ? fakeThought(turn, answer) : '';
  const parts = thinking.shown ? [{ text: thought, thought: true }, ...answerParts(answer, true)] : answerParts(answer, thinking.thinks);
  const finishReason = finishReasonOf(context);
  // A block before any text leaves the candidate without content, as Gemini answers it.
  const content = isBlocked(finishReason) && parts.every((part) => part.text === '') ? {} : { content: { parts, role: 'model' } };
  return {
    candidates: [{ ...content, ...candidateEnd(finishReason) }],
    usageMetadata: usageMetadata(context.promptTokens, countTokens(answerText(answer)), thinking.thinks ? countTokens(thought) : 0),
    modelVersion: fakeModel(turn.model),
    responseId: context.newId('resp'),
  };
}

/** `data: {json}` and a blank line, with CRLFs, as Gemini frames every event of `alt=sse`. */
function sseFrame(value: unknown): string {
  return `data: ${JSON.stringify(value)}\r\n\r\n`;
}

/**
 * The frames of a streamed JSON array as Google's streaming JSON writes it: `[` before the first
 * element, `\n,\r\n` between elements, `\n]` at the end, each element pretty-printed with two
 * spaces. (The separators are as seen in real answers; a client should parse the array whole,
 * or cut it at top-level commas, and not rely on the whitespace.)
 */
function arrayFrames(values: readonly unknown[], closed: boolean): string[] {
  const frames = values.map((value, index) => `${index === 0 ? '[' : '\n,\r\n'}${JSON.stringify(value, null, 2)}`);
  if (closed) frames.push(values.length === 0 ? '[]' : '\n]');
  return frames;
}

// Text arrives in pieces, each its own partial response; a shown thought comes first, whole;
// function calls arrive whole, in one chunk after the text, as Gemini streams them. The last chunk
// carries finishReason (after a block, in a chunk of its own without content); every chunk
// carries usageMetadata and the same responseId and modelVersion. A blocked prompt is one chunk.
function streamGenerate(
  turn: AskedTurn,
  answer: Answer,
  context: RenderContext,
  failure: StreamFailure | undefined,
  framing: GeminiStreamFraming,
): WireResponse {
  const responseId = context.newId('resp');
  const render = (values: unknown[], closed: boolean): string[] => (framing === 'sse' ? values.map(sseFrame) : arrayFrames(values, closed));
  const respond = (frames: string[]): WireResponse =>
    framing === 'sse'
      ? sseResponse(frames, context.headers)
      : { status: 200, headers: { 'content-type': 'application/json; charset=UTF-8', ...context.headers }, frames };
  if (context.finish?.reason === 'refusal') return respond(render([blockedPrompt(turn, context, responseId)], true));
  const thinking = thinkingOf(turn);
  const parts = answerParts(answer, thinking.thinks);
  const modelVersion = fakeModel(turn.model);
  const finishReason = finishReasonOf(context);
  const blocked = isBlocked(finishReason);
  const thought = thinking.thinks ? fakeThought(turn, answer) : '';
  const thoughtsTokens = thinking.thinks ? countTokens(thought) : 0;
  const pieces: Part[][] = [];
  if (thinking.shown) pieces.push([{ text: thought, thought: true }]);
  for (const part of parts) {
    if (typeof part.text === 'string') for (const text of cutIntoChunks(part.text, context.chunking)) pieces.push([{ text }]);
  }
  const calls = parts.filter((part) => part.functionCall !== undefined);
  if (calls.length > 0) pieces.push(calls);
  // A block ends in a chunk of its own, so the pieces before it may be none at all.
  if (blocked) pieces.push([]);
  if (pieces.length === 0) pieces.push([{ text: '' }]);
  const total = countTokens(answerText(answer));
  let sent = '';
  const chunks = pieces.map((chunkParts, index) => {
    for (const part of chunkParts) if (part.thought !== true) sent += typeof part.text === 'string' ? part.text : JSON.stringify(part.functionCall);
    const last = index === pieces.length - 1;
    const content = chunkParts.length === 0 ? {} : { content: { parts: chunkParts, role: 'model' } };
    const candidate: Record<string, unknown> = last ? { ...content, ...candidateEnd(finishReason) } : { ...content, index: 0 };
    // Output tokens grow with what was sent and end at the answer's count, never zero.
    const outputTokens = last ? total : Math.min(total, countTokens(sent));
    return { candidates: [candidate], usageMetadata: usageMetadata(context.promptTokens, outputTokens, thoughtsTokens), modelVersion, responseId };
  });
  if (failure?.kind === 'stream-error') {
    const kept: unknown[] = chunks.slice(0, Math.min(failure.afterChunks, chunks.length - 1));
    kept.push({ error: { code: 500, message: failure.message ?? 'An internal error has occurred. (modeltape FakeProvider)', status: 'INTERNAL' } });
    return respond(render(kept, true));
  }
  const frames = render(chunks, true);
  if (failure?.kind === 'drop-connection') return { ...respond(frames), cut: { kind: 'drop', afterFrames: Math.min(failure.afterChunks, chunks.length - 1) } };
  return respond(frames);
}
