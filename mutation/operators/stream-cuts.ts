// A stream cut short: without its finishing events, or breaking off with an error event after its
// first frames. Each API says where its finish begins and what its error event is.
import { isRecord } from '../../core/internal.js';
import type { Frame, RecordedResponse } from '../../recordings/internal.js';
import type { Change } from './answer-editor.js';
import { withFrames, type StreamEvent } from './stream-frames.js';

/** The stream without the events from `finish` on (its finish, usage, terminator); undefined when nothing would be left before them. */
export function truncatedBefore(response: RecordedResponse, events: readonly StreamEvent[], finish: number): Change | undefined {
  if (finish < 1 || finish >= events.length) return undefined;
  const kept = events.slice(0, finish);
  return {
    response: withFrames(
      response,
      kept.map((event) => event.frame),
    ),
    before: `${events.length} events, ending ${eventNames(events.slice(finish))}`,
    after: `${kept.length} events, ending with ${eventName(kept[kept.length - 1]!)}`,
  };
}

/**
 * The stream's first frames (half of those before `finish`, at least one), then the error frames
 * `errorFrames` writes (arriving when the next recorded frame did), then nothing.
 */
export function erroredAfter(
  response: RecordedResponse,
  events: readonly StreamEvent[],
  finish: number,
  errorFrames: (kept: number, atMs: number) => Frame[],
): Change | undefined {
  if (events.length === 0) return undefined;
  const kept = Math.min(events.length, Math.max(1, Math.floor(finish / 2)));
  const atMs = events[kept]?.frame.atMs ?? events[kept - 1]!.frame.atMs;
  const errors = errorFrames(kept, atMs);
  return {
    response: withFrames(response, [...events.slice(0, kept).map((event) => event.frame), ...errors]),
    before: `${events.length} events`,
    after: `${kept} events, then ${errors.map(frameText).join(' ')}`,
  };
}

// A frame as the report shows it: its text, or an event message's type and payload.
function frameText(frame: Frame): string {
  if ('text' in frame) return frame.text.trim();
  if ('event' in frame) {
    const { headers } = frame.event;
    const payload = 'text' in frame.event ? frame.event.text : JSON.stringify(frame.event.json);
    return `${headers[':message-type'] ?? 'event'} ${headers[':exception-type'] ?? headers[':event-type'] ?? ''} ${payload}`;
  }
  return `${frame.base64.length} base64 characters`;
}

/** How an event is named in a report: its `event:` line, its JSON `type`, or its data. */
export function eventName(event: StreamEvent): string {
  if (event.event !== undefined) return event.event;
  if (isRecord(event.json) && typeof event.json.type === 'string') return event.json.type;
  return event.data.length <= 40 ? event.data : `${event.data.slice(0, 40)}…`;
}

function eventNames(events: readonly StreamEvent[]): string {
  const names = events.map(eventName);
  return names.length <= 3 ? names.join(', ') : `${names.slice(0, 2).join(', ')} … ${names[names.length - 1]}`;
}
