import { isRecord } from '../../core/internal.js';
import type { ProviderError } from '../../providers/internal.js';
import { errorResponse } from '../provider-errors.js';
import { fakeError, type RenderContext } from '../surface.js';
import { jsonResponse, type WireResponse } from '../wire-response.js';
import type { StoredConversation } from './conversation-store.js';
import { conversationNotFound, droppedNote } from './conversation-state.js';
import { asItemResource } from './item-resource.js';
import { includesEncryptedContent, sealReasoning } from './reasoning.js';
import type { ResponseItem, StoredResponse } from './response-store.js';

/** One request to a stored-state route: method, path (no provider prefix, no query), query, and the JSON body of a POST. */
export interface StateRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: Record<string, unknown> | undefined;
}

/**
 * The Responses API's stored responses: `GET` and `DELETE /v1/responses/{id}`, `GET
 * /v1/responses/{id}/input_items`, `POST /v1/responses/{id}/cancel`, answered from the fake's
 * response store as OpenAI answers them (an id it does not hold is a 404 in OpenAI's shape).
 */
export function answerStoredResponse(request: StateRequest, context: RenderContext): WireResponse {
  const [, id, action] = /^(?:\/v1)?\/responses\/([^/]+)(?:\/([^/]+))?$/.exec(request.path)!;
  const responseId = decodeURIComponent(id!);
  const store = context.responses;
  const lookup = store === undefined ? ({ unknown: true } as const) : store.response(responseId);
  if (!('found' in lookup)) return refuse(notFound('Response', responseId, `${droppedNote(lookup, 'response')}`), context);
  const stored = lookup.found;
  if (action === 'input_items') return listResponse(stored.input, request.query, context);
  if (action === 'cancel') {
    // A response the fake answered is finished; a finished background response is given back
    // as it is, and any other is refused. Approximation: the wording is not captured from OpenAI.
    if (!stored.background)
      return refuse({ status: 400, type: 'invalid_request_error', message: 'Cannot cancel a synchronous response.', param: null, code: null }, context);
    return jsonResponse(200, stored.response, context.headers);
  }
  if (request.method === 'DELETE') {
    store!.delete(responseId);
    return jsonResponse(200, { id: responseId, object: 'response.deleted', deleted: true }, context.headers);
  }
  if (request.query.get('stream') === 'true')
    return fakeError(
      'openai',
      422,
      'fake_unsupported',
      `GET /v1/responses/${responseId}?stream=true: the modeltape FakeProvider does not replay a stored response as a stream. Retrieve it without stream.`,
      context,
    );
  return jsonResponse(200, retrieved(stored, includes(request.query)), context.headers);
}

/**
 * The Conversations API: `POST /v1/conversations`, `GET`, `POST` (metadata) and `DELETE
 * /v1/conversations/{id}`, `GET` and `POST /v1/conversations/{id}/items`, `GET` and `DELETE
 * /v1/conversations/{id}/items/{item_id}`, answered from the fake's conversation store.
 */
export function answerConversation(request: StateRequest, context: RenderContext): WireResponse {
  const conversations = context.conversations;
  const body = request.body ?? {};
  const [, encoded, items, encodedItem] = /^(?:\/v1)?\/conversations(?:\/([^/]+)(?:\/(items)(?:\/([^/]+))?)?)?$/.exec(request.path)!;
  if (encoded === undefined) {
    const invalid = checkItems(body.items, false) ?? checkMetadata(body.metadata);
    if (invalid !== undefined) return refuse(invalid, context);
    const conversation: StoredConversation = {
      id: context.newId('conv'),
      created_at: context.created,
      metadata: isRecord(body.metadata) ? body.metadata : {},
      items: (Array.isArray(body.items) ? (body.items as ResponseItem[]) : []).map((item) => asItemResource(item, context.newId)),
    };
    conversations?.keep(conversation);
    return jsonResponse(200, resource(conversation), context.headers);
  }
  const id = decodeURIComponent(encoded);
  const lookup = conversations === undefined ? ({ unknown: true } as const) : conversations.conversation(id);
  if (!('found' in lookup)) return refuse(conversationNotFound(id, lookup), context);
  const conversation = lookup.found;
  if (items === undefined) {
    if (request.method === 'GET') return jsonResponse(200, resource(conversation), context.headers);
    if (request.method === 'DELETE') {
      conversations!.delete(id);
      return jsonResponse(200, { id, object: 'conversation.deleted', deleted: true }, context.headers);
    }
    const invalid = isRecord(body.metadata) ? checkMetadata(body.metadata) : missing('metadata');
    if (invalid !== undefined) return refuse(invalid, context);
    conversation.metadata = body.metadata as Record<string, unknown>;
    return jsonResponse(200, resource(conversation), context.headers);
  }
  if (encodedItem === undefined) {
    if (request.method === 'GET') return listResponse(conversation.items, request.query, context);
    const invalid = checkItems(body.items, true);
    if (invalid !== undefined) return refuse(invalid, context);
    const added = (body.items as ResponseItem[]).map((item) => asItemResource(item, context.newId));
    conversation.items.push(...added);
    return jsonResponse(200, list(added, false), context.headers);
  }
  const itemId = decodeURIComponent(encodedItem);
  const position = conversation.items.findIndex((item) => item.id === itemId);
  if (position < 0) return refuse(notFound('Item', itemId, ''), context);
  if (request.method === 'GET') return jsonResponse(200, conversation.items[position], context.headers);
  conversation.items.splice(position, 1);
  return jsonResponse(200, resource(conversation), context.headers);
}

function resource(conversation: StoredConversation): Record<string, unknown> {
  return { id: conversation.id, object: 'conversation', created_at: conversation.created_at, metadata: conversation.metadata };
}

/** The `include` a query names, as the SDKs send it (`include[]=…`) or repeated (`include=…`). */
function includes(query: URLSearchParams): string[] {
  return [...query.getAll('include[]'), ...query.getAll('include')];
}

// A retrieval shows reasoning's encrypted_content when its own `include` asks for it, as a
// create does: sealed the same way, so it can be sent back by value.
function retrieved(stored: StoredResponse, include: string[]): Record<string, unknown> {
  const response = stored.response;
  const output = response.output as ResponseItem[];
  if (!output.some((item) => item.type === 'reasoning')) return response;
  const sealed = includesEncryptedContent({ include });
  return {
    ...response,
    output: output.map((item) => {
      if (item.type !== 'reasoning') return item;
      const { encrypted_content: _content, ...opened } = item;
      return sealed && stored.reasoning !== undefined ? { ...opened, encrypted_content: sealReasoning(String(item.id), stored.reasoning) } : opened;
    }),
  };
}

/**
 * A page of items as the list routes answer it: `order` `desc` (the default) or `asc`, `after`
 * an item id (the page starts past it), `limit` 1 to 100 (default 20).
 */
function listResponse(items: readonly ResponseItem[], query: URLSearchParams, context: RenderContext): WireResponse {
  const order = query.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc')
    return refuse(invalidQuery('order', `Invalid value: '${order}'. Supported values are: 'asc' and 'desc'.`, 'invalid_value'), context);
  const limitText = query.get('limit');
  const limit = limitText === null ? 20 : Number(limitText);
  if (!Number.isInteger(limit))
    return refuse(invalidQuery('limit', `Invalid 'limit': expected an integer, but got '${limitText}' instead.`, 'invalid_type'), context);
  if (limit < 1)
    return refuse(
      invalidQuery('limit', `Invalid 'limit': integer below minimum value. Expected a value >= 1, but got ${limit} instead.`, 'integer_below_min_value'),
      context,
    );
  if (limit > 100)
    return refuse(
      invalidQuery('limit', `Invalid 'limit': integer above maximum value. Expected a value <= 100, but got ${limit} instead.`, 'integer_above_max_value'),
      context,
    );
  const ordered = order === 'asc' ? items : [...items].reverse();
  const after = query.get('after');
  let start = 0;
  if (after !== null) {
    const position = ordered.findIndex((item) => item.id === after);
    if (position < 0) return refuse(notFound('Item', after, ''), context);
    start = position + 1;
  }
  const page = ordered.slice(start, start + limit);
  return jsonResponse(200, list(page, start + limit < ordered.length), context.headers);
}

// An empty page has no first or last id: the API answers null (its spec types them string).
function list(data: readonly ResponseItem[], hasMore: boolean): Record<string, unknown> {
  return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: hasMore };
}

// Approximation: OpenAI's not-found wording for responses; conversations' items follow it.
function notFound(what: 'Response' | 'Item', id: string, note: string): ProviderError {
  return { status: 404, type: 'invalid_request_error', message: `${what} with id '${id}' not found.${note}`, param: null, code: null };
}

function invalidQuery(param: string, message: string, code: string): ProviderError {
  return { status: 400, type: 'invalid_request_error', message, param, code };
}

function missing(param: string): ProviderError {
  return { status: 400, type: 'invalid_request_error', message: `Missing required parameter: '${param}'.`, param, code: 'missing_required_parameter' };
}

/** `items` of a create (optional, up to 20) or of an append (required, 1 to 20), each an object. */
function checkItems(items: unknown, required: boolean): ProviderError | undefined {
  if (items === undefined || items === null) return required ? missing('items') : undefined;
  if (!Array.isArray(items))
    return invalidQuery('items', "Invalid type for 'items': expected an array, but got a value of another type instead.", 'invalid_type');
  if (items.length > 20)
    return invalidQuery(
      'items',
      `Invalid 'items': array too long. Expected an array with maximum length 20, but got an array with length ${items.length} instead.`,
      'array_above_max_length',
    );
  const position = items.findIndex((item) => !isRecord(item));
  if (position >= 0) return invalidQuery(`items[${position}]`, `Invalid type for 'items[${position}]': expected an object.`, 'invalid_type');
  return undefined;
}

/** `metadata`: up to 16 string values, keys up to 64 characters, values up to 512. */
function checkMetadata(metadata: unknown): ProviderError | undefined {
  if (metadata === undefined || metadata === null) return undefined;
  if (!isRecord(metadata))
    return invalidQuery('metadata', "Invalid type for 'metadata': expected an object, but got a value of another type instead.", 'invalid_type');
  const entries = Object.entries(metadata);
  if (entries.length > 16)
    return invalidQuery(
      'metadata',
      `Invalid 'metadata': too many properties. Expected an object with at most 16 properties, but got an object with ${entries.length} properties instead.`,
      'object_above_max_properties',
    );
  for (const [key, value] of entries) {
    if (typeof value !== 'string')
      return invalidQuery(`metadata.${key}`, `Invalid type for 'metadata.${key}': expected a string, but got a value of another type instead.`, 'invalid_type');
    if (key.length > 64) return invalidQuery('metadata', `Invalid 'metadata': key '${key.slice(0, 64)}…' is longer than 64 characters.`, 'invalid_value');
    if (value.length > 512)
      return invalidQuery(
        `metadata.${key}`,
        `Invalid 'metadata.${key}': string too long. Expected a string with maximum length 512, but got a string with length ${value.length} instead.`,
        'string_above_max_length',
      );
  }
  return undefined;
}

function refuse(error: ProviderError, context: RenderContext): WireResponse {
  return errorResponse('openai', error, context);
}
