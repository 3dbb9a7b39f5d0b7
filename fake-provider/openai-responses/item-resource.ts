import { isRecord } from '../../core/internal.js';
import type { IdKind } from '../surface.js';
import type { ResponseItem } from './response-store.js';

// The item types the spec's ItemResource gives a `status` (populated when returned by the API).
const WITH_STATUS = new Set(['message', 'function_call', 'function_call_output']);

/**
 * An input item as the API hands it back (the spec's ItemResource): with an id (the fake's
 * `fake-item-N` when it was sent without one), its `type`, a `status` where the type has one,
 * and a message's string content as content parts (`input_text`, or `output_text` for an
 * assistant's). What the item already carries is kept as sent.
 */
export function asItemResource(item: ResponseItem, newId: (kind: IdKind) => string): ResponseItem {
  const { type, id, ...rest } = item;
  const kind = typeof type === 'string' ? type : 'message';
  const resource: ResponseItem = { type: kind, id: typeof id === 'string' ? id : newId('item'), ...rest };
  if (kind === 'message' && typeof item.content === 'string')
    resource.content = [
      item.role === 'assistant' ? { type: 'output_text', text: item.content, annotations: [], logprobs: [] } : { type: 'input_text', text: item.content },
    ];
  if (WITH_STATUS.has(kind) && resource.status === undefined) resource.status = 'completed';
  return resource;
}

/** The input items of a request, as resources: a string `input` is one user message. */
export function inputResources(input: unknown, newId: (kind: IdKind) => string): ResponseItem[] {
  const items = typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : Array.isArray(input) ? input : [];
  return items.filter(isRecord).map((item) => asItemResource(item, newId));
}
