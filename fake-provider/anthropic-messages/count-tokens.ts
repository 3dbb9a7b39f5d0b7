import { readMessagesRequest, refuseCountTokensRequest, type RefusalOptions } from '../../providers/internal.js';
import { errorResponse } from '../provider-errors.js';
import type { RenderContext } from '../surface.js';
import { promptTokens } from '../usage.js';
import { jsonResponse, type WireResponse } from '../wire-response.js';
import { refuseForeignThinking } from './thinking.js';

/**
 * `POST /v1/messages/count_tokens`: `{input_tokens}`, counted as the fake counts a Messages
 * turn's prompt tokens, so a count equals the `usage.input_tokens` the same request gets. What
 * Messages refuses in the conversation, its tools and its thinking is refused here too.
 */
export function countTokensResponse(body: Record<string, unknown>, index: number, options: RefusalOptions, context: RenderContext): WireResponse {
  const refusal = refuseCountTokensRequest(body, options) ?? refuseForeignThinking(body);
  if (refusal !== undefined) return errorResponse('anthropic', refusal, context);
  return jsonResponse(200, { input_tokens: promptTokens(readMessagesRequest(body, index)) }, context.headers);
}
