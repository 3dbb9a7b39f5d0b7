import { errorResponse } from '../provider-errors.js';
import type { RenderContext } from '../surface.js';
import { jsonResponse, type WireResponse } from '../wire-response.js';

/** The Anthropic models the fake lists, newest first as Anthropic lists them; each says it is fake. */
export const ANTHROPIC_FAKE_MODELS = ['fake-claude-opus-4-8', 'fake-claude-sonnet-4-5', 'fake-claude-haiku-4-5'] as const;

/**
 * `GET /v1/models` (paged by `limit`, `after_id`, `before_id`) and `GET /v1/models/{id}` with
 * Anthropic headers, in Anthropic's shape (`ListResponse[ModelInfo]`, `ModelInfo`). Any id is
 * described, as the fake answers as any model.
 */
export function anthropicModelsResponse(context: RenderContext, request: { model: string | undefined; query: URLSearchParams }): WireResponse {
  if (request.model !== undefined) return jsonResponse(200, describe(request.model, context), context.headers);
  const refuse = (message: string): WireResponse => errorResponse('anthropic', { status: 400, type: 'invalid_request_error', message }, context);
  const limitText = request.query.get('limit');
  const limit = limitText === null ? 20 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    return refuse(`limit: Input should be ${Number.isInteger(limit) && limit > 1000 ? 'less than or equal to 1000' : 'greater than or equal to 1'}`);
  const ids: readonly string[] = ANTHROPIC_FAKE_MODELS;
  const after = request.query.get('after_id');
  const before = request.query.get('before_id');
  let start = 0;
  let end = ids.length;
  if (after !== null) start = ids.indexOf(after) + 1;
  if (before !== null) end = Math.max(0, ids.indexOf(before));
  // Before an id, the page is the `limit` models just before it; otherwise the first after the start.
  const page = before !== null ? ids.slice(Math.max(start, end - limit), end) : ids.slice(start, Math.min(end, start + limit));
  const firstShown = ids.indexOf(page[0] ?? '');
  const hasMore = before !== null ? firstShown > start : start + page.length < end;
  return jsonResponse(
    200,
    { data: page.map((id) => describe(id, context)), has_more: hasMore, first_id: page[0] ?? null, last_id: page.at(-1) ?? null },
    context.headers,
  );
}

function describe(id: string, context: RenderContext): Record<string, unknown> {
  return {
    type: 'model',
    id,
    display_name: `${id} (modeltape fake)`,
    created_at: new Date(context.created * 1000).toISOString(),
    capabilities: null,
    max_input_tokens: 200_000,
    max_tokens: 64_000,
  };
}
