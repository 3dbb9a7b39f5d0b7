/**
 * The events a client sends on an OpenAI Realtime session (the GA API), read as the server reads
 * them: one JSON object a message, a `type` it knows, and the fields that type requires. What it
 * refuses is an `error` event ({@link realtimeErrorEvent}) and the session stays open.
 */
import { isRecord } from '../../../core/internal.js';
import type { RealtimeError } from './error-event.js';

/** Every client event type of the GA Realtime API, in the order its refusal of another lists them. */
export const REALTIME_CLIENT_EVENTS = [
  'session.update',
  'input_audio_buffer.append',
  'input_audio_buffer.commit',
  'input_audio_buffer.clear',
  'output_audio_buffer.clear',
  'conversation.item.create',
  'conversation.item.retrieve',
  'conversation.item.truncate',
  'conversation.item.delete',
  'response.create',
  'response.cancel',
] as const;
export type RealtimeClientEventType = (typeof REALTIME_CLIENT_EVENTS)[number];

/** The conversation item types a client may add (MCP approval responses aside). */
export const REALTIME_ITEM_TYPES = ['message', 'function_call', 'function_call_output'] as const;

/**
 * A client event as read: the event, or why the server refuses it (with the JSON value, when the
 * text was JSON); with the client's `event_id` either way, when it sent one.
 */
export type ReadClientEvent =
  | { event: Record<string, unknown> & { type: RealtimeClientEventType }; eventId: string | undefined }
  | { refusal: RealtimeError; eventId: string | undefined; value: unknown };

/** Reads one text message of a Realtime session as a client event. */
export function readClientEvent(text: string): ReadClientEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // The parser's own words quote the message, which may hold anything: they are left out.
    return {
      refusal: invalid('invalid_json', 'The client event is not valid JSON: send each event as one JSON object.'),
      eventId: undefined,
      value: undefined,
    };
  }
  if (!isRecord(parsed)) return { refusal: invalid('invalid_event', 'The client event must be a JSON object.'), eventId: undefined, value: parsed };
  const eventId = typeof parsed.event_id === 'string' ? parsed.event_id : undefined;
  const refusal = refusalOf(parsed);
  if (refusal !== undefined) return { refusal, eventId, value: parsed };
  return { event: parsed as Record<string, unknown> & { type: RealtimeClientEventType }, eventId };
}

function refusalOf(event: Record<string, unknown>): RealtimeError | undefined {
  if (event.type === undefined) return invalid('invalid_event', "The 'type' field is missing.");
  if (typeof event.type !== 'string') return invalidType('type', 'a string', event.type);
  if (!(REALTIME_CLIENT_EVENTS as readonly string[]).includes(event.type))
    return invalid('invalid_value', `Invalid value: '${event.type}'. Supported values are: ${listed(REALTIME_CLIENT_EVENTS)}.`, 'type');
  switch (event.type as RealtimeClientEventType) {
    case 'session.update': {
      if (event.session === undefined) return missing('session');
      if (!isRecord(event.session)) return invalidType('session', 'an object', event.session);
      if (event.session.type === undefined) return missing('session.type');
      if (event.session.type !== 'realtime' && event.session.type !== 'transcription')
        return invalid(
          'invalid_value',
          `Invalid value: '${String(event.session.type)}'. Supported values are: 'realtime' and 'transcription'.`,
          'session.type',
        );
      return undefined;
    }
    case 'input_audio_buffer.append':
      if (event.audio === undefined) return missing('audio');
      return typeof event.audio === 'string' ? undefined : invalidType('audio', 'a string', event.audio);
    case 'conversation.item.create':
      return itemRefusal(event.item);
    case 'conversation.item.retrieve':
    case 'conversation.item.delete':
      return requiredString(event, 'item_id');
    case 'conversation.item.truncate':
      return (
        requiredString(event, 'item_id') ??
        (typeof event.content_index === 'number'
          ? undefined
          : event.content_index === undefined
            ? missing('content_index')
            : invalidType('content_index', 'an integer', event.content_index)) ??
        (typeof event.audio_end_ms === 'number'
          ? undefined
          : event.audio_end_ms === undefined
            ? missing('audio_end_ms')
            : invalidType('audio_end_ms', 'an integer', event.audio_end_ms))
      );
    case 'response.create':
      return event.response === undefined || isRecord(event.response) ? undefined : invalidType('response', 'an object', event.response);
    default:
      return undefined;
  }
}

function itemRefusal(item: unknown): RealtimeError | undefined {
  if (item === undefined) return missing('item');
  if (!isRecord(item)) return invalidType('item', 'an object', item);
  if (item.type === undefined) return missing('item.type');
  if (!(REALTIME_ITEM_TYPES as readonly unknown[]).includes(item.type))
    return invalid('invalid_value', `Invalid value: '${String(item.type)}'. Supported values are: ${listed(REALTIME_ITEM_TYPES)}.`, 'item.type');
  if (item.type === 'message') {
    if (item.role === undefined) return missing('item.role');
    if (item.role !== 'user' && item.role !== 'assistant' && item.role !== 'system')
      return invalid('invalid_value', `Invalid value: '${String(item.role)}'. Supported values are: 'user', 'assistant', and 'system'.`, 'item.role');
    if (item.content === undefined) return missing('item.content');
    return Array.isArray(item.content) ? undefined : invalidType('item.content', 'an array', item.content);
  }
  if (item.type === 'function_call') return requiredString(item, 'name', 'item.') ?? requiredString(item, 'arguments', 'item.');
  return requiredString(item, 'call_id', 'item.') ?? requiredString(item, 'output', 'item.');
}

function requiredString(record: Record<string, unknown>, name: string, prefix = ''): RealtimeError | undefined {
  const value = record[name];
  if (value === undefined) return missing(`${prefix}${name}`);
  return typeof value === 'string' ? undefined : invalidType(`${prefix}${name}`, 'a string', value);
}

function invalid(code: string, message: string, param: string | null = null): RealtimeError {
  return { type: 'invalid_request_error', code, message, param };
}

function missing(param: string): RealtimeError {
  return invalid('missing_required_parameter', `Missing required parameter: '${param}'.`, param);
}

function invalidType(param: string, expected: string, value: unknown): RealtimeError {
  const got = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
  return invalid('invalid_type', `Invalid type for '${param}': expected ${expected}, but got ${got} instead.`, param);
}

/** `'a', 'b', and 'c'`, as OpenAI lists supported values. */
function listed(values: readonly string[]): string {
  const quoted = values.map((value) => `'${value}'`);
  return quoted.length <= 2 ? quoted.join(' and ') : `${quoted.slice(0, -1).join(', ')}, and ${quoted.at(-1)}`;
}
