import type { Frame } from '../../recordings/internal.js';

// The events that end a provider's stream: OpenAI chat's `data: [DONE]`, Anthropic's
// `message_stop` (or an `error` event), the Responses API's terminal `response.*` events, and
// NDJSON's `"done": true` (Ollama).
const TERMINAL_EVENT =
  /data: *\[DONE\]|\bmessage_stop\b|\bresponse\.(?:completed|failed|incomplete|cancelled)\b|^event: *error\b|"type" *: *"error"|"done" *: *true/m;

// An AWS event stream's: Bedrock ConverseStream's `messageStop` and `metadata` events, an
// `exception` message, or InvokeModelWithResponseStream's `chunk` holding the model's own last
// event (Anthropic's `message_stop`).
const TERMINAL_MESSAGE = /^(?:messageStop|metadata)$/;

/** Names of the terminating events {@link endsWithTerminalEvent} looks for, for messages. */
export const TERMINAL_EVENTS =
  'data: [DONE], message_stop, response.completed / failed / incomplete, an error event, "done": true, or an event stream\'s messageStop, metadata or exception';

/**
 * True when one of the last frames of a stream is a terminating event. Only a close-delimited
 * stream needs it: without a length or chunked framing, the connection closing is all that says
 * it ended, and a stream cut short closes the same way.
 */
export function endsWithTerminalEvent(frames: readonly Frame[]): boolean {
  for (const frame of frames.slice(-3)) {
    if ('event' in frame) {
      const { headers } = frame.event;
      if (headers[':message-type'] === 'exception' || TERMINAL_MESSAGE.test(headers[':event-type'] ?? '')) return true;
      if ('bytes' in frame.event && TERMINAL_EVENT.test(JSON.stringify(frame.event.bytes))) return true;
      continue;
    }
    const text = 'text' in frame ? frame.text : Buffer.from(frame.base64, 'base64').toString('utf8');
    if (TERMINAL_EVENT.test(text)) return true;
  }
  return false;
}
