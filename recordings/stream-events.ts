// A recorded stream read as events: an SSE event's `event:` line and data, or an NDJSON line, one
// per frame as the recorder split them. Read by tape mutation (which writes events back) and by
// the tape report (which reads what an answer did).
import { parseJson } from '../core/internal.js';
import type { EventStreamEvent, Frame, RecordedResponse } from './tape-format.js';

/** One event of a recorded stream. */
export interface StreamEvent {
  frame: Frame & { text: string };
  /** The SSE `event:` line's value; undefined for a data-only event and for NDJSON. */
  event: string | undefined;
  /** The data (SSE `data:` lines joined) or the NDJSON line, without its line ending. */
  data: string;
  /** The data parsed; undefined when it is not JSON (`[DONE]`, a comment). */
  json: unknown;
}

/** An SSE event's lines read: its `event:` line's value and its `data:` lines joined. */
export function sseFields(lines: readonly string[]): { event: string | undefined; data: string } {
  const event = lines
    .find((line) => line.startsWith('event:'))
    ?.slice(6)
    .trim();
  const data = lines
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).replace(/^ /, ''))
    .join('\n');
  return { event, data };
}

/** The events of a streamed response; undefined when it is not SSE or NDJSON text. */
export function streamEventsOf(response: RecordedResponse): StreamEvent[] | undefined {
  const stream = response.stream;
  if (stream === undefined || (stream.format !== 'sse' && stream.format !== 'ndjson')) return undefined;
  const events: StreamEvent[] = [];
  for (const frame of stream.frames) {
    if (!('text' in frame)) return undefined;
    const text = frame as Frame & { text: string };
    if (stream.format === 'ndjson') {
      const data = text.text.replace(/\r?\n$/, '');
      events.push({ frame: text, event: undefined, data, json: parseJson(data) });
      continue;
    }
    const { event, data } = sseFields(splitSse(text.text).lines);
    events.push({ frame: text, event, data, json: parseJson(data) });
  }
  return events;
}

// An SSE event's lines, the line ending they use and the blank-line terminator after them.
export function splitSse(text: string): { lines: string[]; eol: string; terminator: string } {
  const eol = text.includes('\r\n') ? '\r\n' : text.includes('\r') && !text.includes('\n') ? '\r' : '\n';
  let end = text.length;
  while (end > 0 && (text[end - 1] === '\n' || text[end - 1] === '\r')) end--;
  const terminator = text.slice(end) || eol + eol;
  return { lines: text.slice(0, end).split(eol), eol, terminator };
}

/**
 * One message of a recorded AWS event stream (format `eventstream`), read: what kind of message it
 * is and its payload's JSON — for an InvokeModelWithResponseStream `chunk`, the model's own event
 * its `bytes` carry (Anthropic's `content_block_delta`, Nova's `{"contentBlockDelta":…}`).
 */
export interface EventStreamMessage {
  frame: Frame & { event: EventStreamEvent };
  /** The `:event-type` header (`messageStart`, `contentBlockDelta`, `chunk`…), or for an exception its `:exception-type`. */
  event: string | undefined;
  /** `:message-type` is `exception` (or `error`): the stream breaks off with the service's error. */
  exception: boolean;
  /** The payload as text: for a `chunk`, the decoded `bytes`. */
  data: string;
  /** The payload (for a `chunk`, the decoded `bytes`) parsed; undefined when it is not JSON. */
  json: unknown;
}

/**
 * The messages of a recorded AWS event stream; undefined when the stream is not `eventstream`, or
 * holds a message kept as raw `base64` (not readable, so not editable either).
 */
export function eventStreamMessagesOf(response: RecordedResponse): EventStreamMessage[] | undefined {
  const stream = response.stream;
  if (stream === undefined || stream.format !== 'eventstream') return undefined;
  const messages: EventStreamMessage[] = [];
  for (const frame of stream.frames) {
    if (!('event' in frame)) return undefined;
    const { event } = frame;
    const messageType = event.headers[':message-type'];
    const exception = messageType === 'exception' || messageType === 'error';
    const name = exception ? (event.headers[':exception-type'] ?? event.headers[':error-code']) : event.headers[':event-type'];
    let data: string;
    let json: unknown;
    if ('text' in event) {
      data = event.text;
      json = parseJson(data);
    } else if (event.bytes !== undefined) {
      data = 'text' in event.bytes ? event.bytes.text : JSON.stringify(event.bytes.json);
      json = 'text' in event.bytes ? parseJson(data) : event.bytes.json;
    } else {
      data = JSON.stringify(event.json);
      json = event.json;
    }
    messages.push({ frame: frame as Frame & { event: EventStreamEvent }, event: name, exception, data, json });
  }
  return messages;
}

/**
 * The JSON payloads of a recorded response, in order: its JSON body, or the JSON of each event of
 * its stream (an SSE event's data, an NDJSON line, an AWS event stream message's payload, the
 * inner payload of a `bytes` member decoded). What is not JSON is left out.
 */
export function* responsePayloads(response: RecordedResponse): Generator<unknown, void, undefined> {
  const stream = response.stream;
  if (stream === undefined) {
    const body = response.body;
    const json = body === undefined ? undefined : 'json' in body ? body.json : 'text' in body ? parseJson(body.text) : undefined;
    if (json !== undefined) yield json;
    return;
  }
  if (stream.format === 'sse' || stream.format === 'ndjson') {
    // As streamEventsOf reads them, one event at a time: a reader that stops at the payload it
    // wants (the recorder, at the first naming a model) parses no more of the stream.
    if (stream.frames.some((frame) => !('text' in frame))) return;
    for (const frame of stream.frames as ReadonlyArray<Frame & { text: string }>) {
      const data = stream.format === 'ndjson' ? frame.text.replace(/\r?\n$/, '') : sseFields(splitSse(frame.text).lines).data;
      const json = parseJson(data);
      if (json !== undefined) yield json;
    }
    return;
  }
  for (const message of eventStreamMessagesOf(response) ?? []) if (message.json !== undefined) yield message.json;
}
