import { isRecord, maskSecrets } from '../../core/internal.js';
import type { ProviderError } from '../../providers/internal.js';
import { isSealedByFake } from './reasoning.js';
import type { ConversationStore } from './conversation-store.js';
import type { Lookup, ResponseItem, ResponseStore } from './response-store.js';

/** A request with its server-held state resolved: the whole conversation in `input`, and its own input items. */
export interface ResolvedRequest {
  /** The body with `input` = the previous response's conversation and output, then this input, every `item_reference` replaced by its item. */
  body: Record<string, unknown>;
  /** This request's own input, references resolved (what the store keeps as its input). */
  input: ResponseItem[];
}

/** What a resolved body stood on: its own input items, and the conversation it belongs to. */
export interface ResolvedState {
  input: ResponseItem[];
  conversation?: string;
}

// Keyed by the resolved body, which the turn carries as its `body`: the answer appends to the
// conversation and keeps its own input without reading them back out of the whole input.
const resolvedStates = new WeakMap<Record<string, unknown>, ResolvedState>();

/** The state a body returned by {@link resolveConversation} stood on, or undefined for a body it did not resolve. */
export function resolvedState(body: Record<string, unknown>): ResolvedState | undefined {
  return resolvedStates.get(body);
}

/** The conversation id a `conversation` parameter names (`"conv_…"` or `{ id }`), or undefined. */
export function conversationIdOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  return isRecord(value) && typeof value.id === 'string' ? value.id : undefined;
}

/**
 * Resolves `previous_response_id`, `conversation` and `item_reference` items against the fake's
 * stores, and checks reasoning items sent back, the way OpenAI does before any model runs: an
 * unknown previous response is a 400 `previous_response_not_found`, an unknown conversation or
 * item a 404, both `conversation` and `previous_response_id` a 400, and `encrypted_content` the
 * fake did not make a 400 `invalid_encrypted_content`.
 */
export function resolveConversation(
  body: Record<string, unknown>,
  store: ResponseStore,
  conversations?: ConversationStore,
): ResolvedRequest | { refusal: ProviderError } {
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
  const chained = body.previous_response_id !== undefined && body.previous_response_id !== null;
  const conversation = body.conversation === undefined || body.conversation === null ? undefined : conversationIdOf(body.conversation);
  if (chained && body.conversation !== undefined && body.conversation !== null) return { refusal: bothStates() };
  if (chained) {
    const id = String(body.previous_response_id);
    const found = store.response(id);
    if (!('found' in found)) return { refusal: previousNotFound(id, found) };
    earlier = [...found.found.conversation, ...found.found.output];
  } else if (conversation !== undefined && conversations !== undefined) {
    const found = conversations.conversation(conversation);
    if (!('found' in found)) return { refusal: conversationNotFound(conversation, found) };
    earlier = found.found.items;
  }
  const resolved = { ...body, input: [...earlier, ...input] };
  resolvedStates.set(resolved, conversation === undefined ? { input } : { input, conversation });
  return { body: resolved, input };
}

// Approximation: the API refuses the pair (the Agents SDK sends only one for that reason); the
// wording and code here are the fake's, not captured from OpenAI.
function bothStates(): ProviderError {
  return {
    status: 400,
    type: 'invalid_request_error',
    message: "Mutually exclusive parameters: Ensure you are only providing one of: 'previous_response_id' or 'conversation'.",
    param: null,
    code: 'mutually_exclusive_parameters',
  };
}

/** The 404 OpenAI answers for a conversation it does not have (wording approximated from its other not-found errors). */
export function conversationNotFound(id: string, lookup: Exclude<Lookup<unknown>, { found: unknown }>): ProviderError {
  return {
    status: 404,
    type: 'invalid_request_error',
    message: `Conversation with id '${id}' not found.${droppedNote(lookup, 'conversation')}`,
    param: null,
    code: null,
  };
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

/** Says, after a not-found message, that the fake made the thing and dropped it past its limit. */
export function droppedNote(lookup: Exclude<Lookup<unknown>, { found: unknown }>, what: 'response' | 'item' | 'conversation'): string {
  if (!('dropped' in lookup)) return '';
  return (
    ` (modeltape FakeProvider: the ${what} was made by this fake and dropped: it keeps the latest ${lookup.limit} ${what === 'conversation' ? 'conversations' : 'stored responses'}.` +
    ` Raise historyLimit, e.g. new FakeProvider({ historyLimit: Infinity }), to keep them all.)`
  );
}
