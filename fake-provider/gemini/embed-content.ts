import { isRecord } from '../../core/internal.js';
import { embed } from '../openai-embeddings.js';
import { errorResponse } from '../provider-errors.js';
import type { RenderContext } from '../surface.js';
import { jsonResponse, type WireResponse } from '../wire-response.js';

/**
 * Gemini embeddings: `:embedContent` (`{content}` → `{embedding:{values}}`) and
 * `:batchEmbedContents` (`{requests:[{model, content}]}` → `{embeddings:[{values}]}`), a
 * deterministic unit vector per content's text (the same as `embed`), `outputDimensionality` long.
 */
export function geminiEmbedResponse(body: Record<string, unknown>, batch: boolean, dimensionsDefault: number, context: RenderContext): WireResponse {
  const refuse = (message: string): WireResponse => errorResponse('gemini', { status: 400, type: 'INVALID_ARGUMENT', message }, context);
  if (batch) {
    if (!Array.isArray(body.requests) || body.requests.length === 0) return refuse('* BatchEmbedContentsRequest.requests: requests must not be empty\n');
    if (body.requests.length > 100)
      return refuse(`* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch, got ${body.requests.length}\n`);
    const embeddings: Array<{ values: number[] }> = [];
    for (const [index, request] of body.requests.entries()) {
      const made = embedOne(isRecord(request) ? request : {}, dimensionsDefault, `BatchEmbedContentsRequest.requests[${index}]`);
      if (typeof made === 'string') return refuse(made);
      embeddings.push(made);
    }
    return jsonResponse(200, { embeddings }, context.headers);
  }
  const made = embedOne(body, dimensionsDefault, 'EmbedContentRequest');
  return typeof made === 'string' ? refuse(made) : jsonResponse(200, { embedding: made }, context.headers);
}

// One content's embedding, or the refusal's message.
function embedOne(request: Record<string, unknown>, dimensionsDefault: number, where: string): { values: number[] } | string {
  const content = isRecord(request.content) ? request.content : undefined;
  const parts = content !== undefined && Array.isArray(content.parts) ? content.parts.filter(isRecord) : [];
  if (parts.length === 0) return `* ${where}.content: content is not specified\n`;
  const text = parts.map((part) => (typeof part.text === 'string' ? part.text : '')).join('');
  const dimensions = request.outputDimensionality ?? request.output_dimensionality ?? dimensionsDefault;
  if (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1)
    return `* ${where}.output_dimensionality: output_dimensionality must be a positive integer, got ${JSON.stringify(dimensions)}\n`;
  return { values: [...embed(text, dimensions)] };
}
