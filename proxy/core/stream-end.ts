import type { Frame } from '../../recordings/internal.js';

// The events that end a provider's stream: OpenAI chat's `data: [DONE]`, Anthropic's
// `message_stop` (or an `error` event), the Responses API's terminal `response.*` events, and
// NDJSON's `"done": true` (Ollama).
const TERMINAL_EVENT =
  /data: *\[DONE\]|\bmessage_stop\b|\bresponse\.(?:completed|failed|incomplete|cancelled)\b|^event: *error\b|"type" *: *"error"|"done" *: *true/m;

/** Names of the terminating events {@link endsWithTerminalEvent} looks for, for messages. */
export const TERMINAL_EVENTS = 'data: [DONE], message_stop, response.completed / failed / incomplete, an error event, or "done": true';

/**
 * True when one of the last frames of a stream is a terminating event. Only a close-delimited
 * stream needs it: without a length or chunked framing, the connection closing is all that says
 * it ended, and a stream cut short closes the same way.
 */
export function endsWithTerminalEvent(frames: readonly Frame[]): boolean {
  for (const frame of frames.slice(-3)) {
    const text = 'text' in frame ? frame.text : Buffer.from(frame.base64, 'base64').toString('utf8');
    if (TERMINAL_EVENT.test(text)) return true;
  }
  return false;
}
