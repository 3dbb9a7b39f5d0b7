import { isRecord } from '../../core/internal.js';
import { errorResponse } from '../provider-errors.js';
import type { RenderContext } from '../surface.js';
import { countTokens } from '../usage.js';
import { jsonResponse, type WireResponse } from '../wire-response.js';

/**
 * Gemini `:countTokens`: `{contents}` (or `{generateContentRequest:{contents,…}}`) → `{totalTokens}`,
 * counted the way the fake counts usage (about four characters a token, never zero).
 */
export function geminiCountTokensResponse(body: Record<string, unknown>, context: RenderContext): WireResponse {
  const request = isRecord(body.generateContentRequest) ? body.generateContentRequest : body;
  const contents = Array.isArray(request.contents) ? request.contents : [];
  if (contents.length === 0)
    return errorResponse('gemini', { status: 400, type: 'INVALID_ARGUMENT', message: '* CountTokensRequest.contents: contents is not specified\n' }, context);
  let text = '';
  for (const content of contents) {
    const parts = isRecord(content) && Array.isArray(content.parts) ? content.parts : [];
    for (const part of parts) if (isRecord(part)) text += typeof part.text === 'string' ? part.text : JSON.stringify(part);
  }
  return jsonResponse(200, { totalTokens: countTokens(text), promptTokensDetails: [{ modality: 'TEXT', tokenCount: countTokens(text) }] }, context.headers);
}
