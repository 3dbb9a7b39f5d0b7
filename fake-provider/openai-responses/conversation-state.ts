import { isRecord, maskSecrets } from '../../core/internal.js';
import type { ProviderError } from '../../providers/internal.js';
import { isSealedByFake } from './reasoning.js';
import type { Lookup, ResponseItem, ResponseStore } from './response-store.js';

/** A request with its server-held state resolved: the whole conversation in `input`, and its own input items. */
export interface ResolvedRequest {
  /** The body with `input` = the previous response's conversation and output, then this input, every `item_reference` replaced by its item. */
  body: Record<string, unknown>;
  /** This request's own input, references resolved (what the store keeps as its input). */
  input: ResponseItem[];
}

/**
 * Resolves `previous_response_id` and `item_reference` items against the fake's store, and
 * checks reasoning items sent back, the way OpenAI does before any model runs: an unknown
 * previous response is a 400 `previous_response_not_found`, an unknown item a 404, and
 * `encrypted_content` the fake did not make a 400 `invalid_encrypted_content`.
 */
export function resolveConversation(body: Record<string, unknown>, store: ResponseStore): ResolvedRequest | { refusal: ProviderError } {
  // An input of the wrong type is left for the refusals to name.
  if (body.input !== undefined && typeof body.input !== 'string' && !Array.isArray(body.input)) return { body, input: [] };
  const sent = typeof body.input === 'string' ? [{ type: 'message', role: 'user', content: body.input }] : Array.isArray(body.input) ? body.input : [];
  const input: ResponseItem[] = [];
  for (const item of sent as unknown[]) {
    if (!isRecord(item)) {
      input.push(item as ResponseItem);
      continue;
    }
    if (item.type === 'item_reference') {
      const id = String(item.id);
      const found = store.item(id);
      if (!('found' in found)) return { refusal: itemNotFound(id, found, body.store === false) };
      input.push(found.found);
      continue;
    }
    if (item.type === 'reasoning') {
      if (typeof item.encrypted_content === 'string') {
        if (!isSealedByFake(item.encrypted_content)) return { refusal: notVerified(item.encrypted_content) };
      } else if (typeof item.id === 'string') {
        // Sent back by value without its content, a reasoning item is looked up by id.
        const found = store.item(item.id);
        if (!('found' in found)) return { refusal: itemNotFound(item.id, found, body.store === false) };
      }
    }
    input.push(item);
  }
  let earlier: ResponseItem[] = [];
  if (body.previous_response_id !== undefined && body.previous_response_id !== null) {
    const id = String(body.previous_response_id);
    const found = store.response(id);
    if (!('found' in found)) return { refusal: previousNotFound(id, found) };
    earlier = [...found.found.conversation, ...found.found.output];
  }
  return { body: { ...body, input: [...earlier, ...input] }, input };
}

function previousNotFound(id: string, lookup: Exclude<Lookup<unknown>, { found: unknown }>): ProviderError {
  return {
    status: 400,
    type: 'invalid_request_error',
    message: `Previous response with id '${id}' not found.${droppedNote(lookup, 'response')}`,
    param: 'previous_response_id',
    code: 'previous_response_not_found',
  };
}

function itemNotFound(id: string, lookup: Exclude<Lookup<unknown>, { found: unknown }>, storeFalse: boolean): ProviderError {
  const notPersisted = storeFalse
    ? ' Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.'
    : '';
  return {
    status: 404,
    type: 'invalid_request_error',
    message: `Item with id '${id}' not found.${notPersisted}${droppedNote(lookup, 'item')}`,
    param: 'input',
    code: null,
  };
}

// OpenAI shows the content cut to its first and last four characters. A key sent as the content
// is masked before the cut: four characters of a key are four too many, and the masking of the
// whole message cannot find a key that the cut has already broken.
function notVerified(content: string): ProviderError {
  const masked = maskSecrets(content);
  const shown = masked.length > 12 ? `${masked.slice(0, 4)}...${masked.slice(-4)}` : masked;
  return {
    status: 400,
    type: 'invalid_request_error',
    message: `The encrypted content ${shown} could not be verified.`,
    param: null,
    code: 'invalid_encrypted_content',
  };
}

function droppedNote(lookup: Exclude<Lookup<unknown>, { found: unknown }>, what: 'response' | 'item'): string {
  if (!('dropped' in lookup)) return '';
  return (
    ` (modeltape FakeProvider: the ${what} was made by this fake and dropped: it keeps the latest ${lookup.limit} stored responses.` +
    ` Raise historyLimit, e.g. new FakeProvider({ historyLimit: Infinity }), to keep them all.)`
  );
}
