import { bedrockStreamException } from '../providers/internal.js';
import { encodeEventStreamEvent } from '../recordings/internal.js';
import type { StreamFailure } from './surface.js';
import type { WireResponse } from './wire-response.js';

/** The content type of an AWS event stream, as ConverseStream and InvokeModelWithResponseStream answer. */
export const EVENT_STREAM_CONTENT_TYPE = 'application/vnd.amazon.eventstream';

// Each event type's headers, in the order Bedrock sends them: one object per type, which the
// encoder recognizes by identity and encodes once.
const EVENT_HEADERS = new Map<string, Readonly<Record<string, string>>>();

function headersOf(eventType: string): Readonly<Record<string, string>> {
  let headers = EVENT_HEADERS.get(eventType);
  if (headers === undefined) {
    headers = Object.freeze({ ':event-type': eventType, ':content-type': 'application/json', ':message-type': 'event' });
    EVENT_HEADERS.set(eventType, headers);
  }
  return headers;
}

const NO_MEMBERS = Object.freeze({});

/** One event message of a Bedrock stream (a ConverseStream event's type: `messageStart`, `contentBlockDelta`, …). */
export function eventMessage(eventType: string, payload: Record<string, unknown>): Uint8Array {
  return encodeEventStreamEvent({ headers: headersOf(eventType), json: payload });
}

const CHUNK_HEADERS = headersOf('chunk');

/** An InvokeModelWithResponseStream `chunk`: the model's own event as JSON, then base64, in `bytes`. */
export function chunkMessage(modelEvent: Record<string, unknown>): Uint8Array {
  return chunkMessageOfJson(JSON.stringify(modelEvent));
}

// A sticky rule answers the same text on every call, so most chunks (a piece of text, a block's
// stop) are the same event again: short ones are kept, bounded and cleared whole when full, and
// each call gets its own copy (a client may write into what it reads). What a call renders never
// depends on what is kept.
const LONGEST_KEPT_EVENT = 512;
const KEPT_CHUNKS = 4096;
const keptChunks = new Map<string, Buffer>();

/** {@link chunkMessage} for a model event already written as compact JSON text. */
export function chunkMessageOfJson(modelEventJson: string): Uint8Array {
  const kept = keptChunks.get(modelEventJson);
  if (kept !== undefined) return Buffer.from(kept);
  const message = encodeEventStreamEvent({ headers: CHUNK_HEADERS, json: NO_MEMBERS, bytes: { text: modelEventJson } });
  if (modelEventJson.length <= LONGEST_KEPT_EVENT) {
    if (keptChunks.size >= KEPT_CHUNKS) keptChunks.clear();
    keptChunks.set(modelEventJson, Buffer.from(message));
  }
  return message;
}

/**
 * A Bedrock event stream of `frames`, broken as `failure` says: Bedrock ends a broken stream with
 * an exception message (as in vercel/ai's captured model-stream-error-exception.eventstream),
 * which the AWS SDK raises as ModelStreamErrorException; a dropped connection stops after
 * `afterChunks` messages.
 */
export function eventStreamResponse(frames: Uint8Array[], headers: Record<string, string>, failure: StreamFailure | undefined): WireResponse {
  const all = { 'content-type': EVENT_STREAM_CONTENT_TYPE, ...headers };
  if (failure?.kind === 'stream-error') {
    const kept = frames.slice(0, Math.min(failure.afterChunks, frames.length));
    const message = failure.message ?? 'Model Stream Error (modeltape FakeProvider)';
    kept.push(
      encodeEventStreamEvent(
        bedrockStreamException('modelStreamErrorException', message, { status: 500, message: 'The model stream failed. (modeltape FakeProvider)' }),
      ),
    );
    return { status: 200, headers: all, frames: kept };
  }
  if (failure?.kind === 'drop-connection')
    return { status: 200, headers: all, frames, cut: { kind: 'drop', afterFrames: Math.min(failure.afterChunks, frames.length - 1) } };
  return { status: 200, headers: all, frames };
}
