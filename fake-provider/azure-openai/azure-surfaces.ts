import { isRecord } from '../../core/internal.js';
import {
  completionFilterResults,
  promptAnnotationChunk,
  promptFilterAnnotation,
  responsesContentFilters,
  type AzureFilterHit,
} from '../../providers/internal.js';
import { openaiChatSurface } from '../openai-chat/chat-surface.js';
import { openaiResponsesSurface } from '../openai-responses/responses-surface.js';
import { answerText, type Surface } from '../surface.js';
import { dataFrame, type WireResponse } from '../wire-response.js';

/**
 * What the fake's Azure OpenAI answers say filtered a turn scripted to end with `finish:
 * 'content-filter'`: `hate`, at severity `high`.
 */
export const AZURE_FILTERED_BY: AzureFilterHit = { category: 'hate', severity: 'high' };

/**
 * Azure OpenAI's Chat Completions: OpenAI's answer, with Azure's annotations. A completion has
 * `prompt_filter_results` and each choice its `content_filter_results` (the category that filtered
 * it, on a `content_filter` finish, whose content is null when nothing came before the cut); a
 * stream starts with a chunk of no choices that carries the prompt's annotations, its role and
 * finish chunks carry empty results, and its content chunks the completion's.
 */
export const azureChatSurface: Surface = {
  ...openaiChatSurface,
  provider: 'azure',
  ask: (body, index, route) => ({ ...openaiChatSurface.ask(body, index, route), provider: 'azure' }),
  respond(turn, answer, context, failure) {
    const wire = openaiChatSurface.respond(turn, answer, context, failure);
    return turn.stream ? annotatedChatStream(wire) : annotatedJson(wire, annotateCompletion);
  },
};

/**
 * Azure OpenAI's Responses API: OpenAI's answer with Azure's `content_filters` (the prompt's entry
 * and the completion's, `blocked` on a `content_filter` finish); in a stream, `null` on the events
 * of a response still in progress and the entries on the one that ends it.
 */
export const azureResponsesSurface: Surface = {
  ...openaiResponsesSurface,
  provider: 'azure',
  ask: (body, index, route) => ({ ...openaiResponsesSurface.ask(body, index, route), provider: 'azure' }),
  respond(turn, answer, context, failure) {
    const wire = openaiResponsesSurface.respond(turn, answer, context, failure);
    const filters = (response: Record<string, unknown>): unknown =>
      response.status === 'in_progress' || response.status === 'queued'
        ? null
        : responsesContentFilters(turn.prompt.length, answerText(answer).length, filteredResponse(response) ? AZURE_FILTERED_BY : undefined);
    if (!turn.stream) return annotatedJson(wire, (json) => withContentFilters(json, filters(json)));
    const frames = (wire.frames ?? []).map((frame) => {
      if (typeof frame !== 'string') return frame;
      const match = /^(event: [^\n]*\n)data: (.*)\n\n$/s.exec(frame);
      if (match === null) return frame;
      const event = JSON.parse(match[2]!) as Record<string, unknown>;
      if (!isRecord(event.response)) return frame;
      return `${match[1]}data: ${JSON.stringify({ ...event, response: withContentFilters(event.response, filters(event.response)) })}\n\n`;
    });
    return { ...wire, frames };
  },
};

function filteredResponse(response: Record<string, unknown>): boolean {
  return isRecord(response.incomplete_details) && response.incomplete_details.reason === 'content_filter';
}

/** `content_filters` where Azure puts it: after `completed_at`, before `error`. */
function withContentFilters(response: Record<string, unknown>, filters: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let placed = false;
  for (const [key, value] of Object.entries(response)) {
    if (key === 'error' && !placed) {
      out.content_filters = filters;
      placed = true;
    }
    if (key !== 'content_filters') out[key] = value;
  }
  if (!placed) out.content_filters = filters;
  return out;
}

function annotatedJson(wire: WireResponse, annotate: (json: Record<string, unknown>) => Record<string, unknown>): WireResponse {
  if (wire.status !== 200 || wire.body === undefined) return wire;
  const text = typeof wire.body === 'string' ? wire.body : Buffer.from(wire.body).toString('utf8');
  return { ...wire, body: JSON.stringify(annotate(JSON.parse(text) as Record<string, unknown>)) };
}

function annotateCompletion(json: Record<string, unknown>): Record<string, unknown> {
  const choices = (Array.isArray(json.choices) ? json.choices : []).map((choice: Record<string, unknown>) => {
    const filtered = choice.finish_reason === 'content_filter';
    const message = isRecord(choice.message) ? { ...choice.message } : choice.message;
    // A filter that cut the answer before any text leaves no content (as Azure answers it).
    if (filtered && isRecord(message) && message.content === '') message.content = null;
    return { content_filter_results: completionFilterResults(filtered ? AZURE_FILTERED_BY : undefined), ...choice, message };
  });
  return { ...json, choices, prompt_filter_results: promptFilterAnnotation() };
}

function annotatedChatStream(wire: WireResponse): WireResponse {
  if (wire.frames === undefined) return wire;
  const frames: Array<string | Uint8Array> = [dataFrame(promptAnnotationChunk())];
  for (const frame of wire.frames) frames.push(typeof frame === 'string' ? annotatedChunk(frame) : frame);
  return { ...wire, frames, ...(wire.cut === undefined ? {} : { cut: { ...wire.cut, afterFrames: wire.cut.afterFrames + 1 } }) };
}

// A chunk with its choices annotated: content and tool-call deltas carry the completion's results,
// the role chunk and a plain finish empty ones, a content_filter finish the category that filtered it.
function annotatedChunk(frame: string): string {
  return splicedChunk(frame) ?? parsedChunk(frame);
}

const ONE_CHOICE = ',"choices":[{"index":';
const CHOICE_OPENS = ',"choices":[{'.length;
let safeResults: string | undefined;
let filteredResults: string | undefined;

/**
 * The chat surface's own chunk of one choice (`…,"choices":[{"index":N,"delta":{…},…}]…`) with its
 * results spliced in as the first member of the choice, byte for byte what parsedChunk writes,
 * without reading and writing the chunk again; undefined for any other chunk.
 */
export function splicedChunk(frame: string): string | undefined {
  if (!frame.startsWith('data: {')) return undefined;
  const at = frame.indexOf(ONE_CHOICE);
  if (at < 0 || frame.indexOf(ONE_CHOICE, at + 1) >= 0) return undefined;
  const delta = frame.indexOf('"delta":', at);
  if (delta < 0) return undefined;
  const opens = frame.slice(delta + 8, delta + 22);
  let results: string;
  // The finish's string is the only place a bare `"content_filter"` can be: text is escaped.
  if (frame.includes('"finish_reason":"content_filter"')) results = filteredResults ??= JSON.stringify(completionFilterResults(AZURE_FILTERED_BY));
  else if (opens.startsWith('{"role":') || opens.startsWith('{}') || opens.startsWith('{"content":""')) results = '{}';
  else if (opens.startsWith('{"content":"') || opens.startsWith('{"tool_calls":') || opens.startsWith('{"refusal":"'))
    results = safeResults ??= JSON.stringify(completionFilterResults());
  else return undefined;
  const cut = at + CHOICE_OPENS;
  return `${frame.slice(0, cut)}"content_filter_results":${results},${frame.slice(cut)}`;
}

export function parsedChunk(frame: string): string {
  if (!frame.startsWith('data: {')) return frame;
  const chunk = JSON.parse(frame.slice(6)) as Record<string, unknown>;
  if (!Array.isArray(chunk.choices) || chunk.choices.length === 0) return frame;
  const choices = chunk.choices.map((choice: Record<string, unknown>) => {
    const delta = isRecord(choice.delta) ? choice.delta : {};
    const says = (typeof delta.content === 'string' && delta.content !== '') || delta.tool_calls !== undefined || typeof delta.refusal === 'string';
    const results =
      choice.finish_reason === 'content_filter'
        ? completionFilterResults(AZURE_FILTERED_BY)
        : says && delta.role === undefined
          ? completionFilterResults()
          : {};
    return { content_filter_results: results, ...choice };
  });
  return dataFrame({ ...chunk, choices });
}

/** The deployment a turn on a deployment route answers for, as its model when the body names none. */
export function withDeploymentModel(body: Record<string, unknown>, deployment: string | undefined): Record<string, unknown> {
  return deployment === undefined || (typeof body.model === 'string' && body.model !== '') ? body : { ...body, model: deployment };
}
