// A recorded stream read as events (an SSE event's `event:` line and data, an NDJSON line, an AWS
// event stream message), and each event written back as a frame of the same shape: its `event:`
// line, its line endings and blank-line terminator, an event message's headers, `atMs` kept, only
// the JSON of its data changed.
import {
  splitSse,
  type EventStreamMessage,
  type Frame,
  type RecordedResponse,
  type RecordedStream,
  type StreamEvent as TextStreamEvent,
} from '../../recordings/internal.js';
export { sseFields, streamEventsOf, eventStreamMessagesOf } from '../../recordings/internal.js';
import { keptHeaders, renderLike } from './json-text.js';

/**
 * One event of a stream being changed: an SSE event or NDJSON line (a `text` frame), or an AWS
 * event stream message (an `event` frame: its `json` is the payload, or for a `chunk` the model's
 * own event its `bytes` carry).
 */
export type StreamEvent = TextStreamEvent | EventStreamMessage;

/**
 * The frame of `event` with `json` as its data, written in the layout its data had; `name`
 * replaces the `event:` line's value (a Responses event whose type changes).
 */
export function rewriteEvent(event: StreamEvent, json: unknown, name?: string): Frame {
  if ('event' in event.frame) {
    // An event stream message: the payload (or a chunk's decoded bytes) replaced, the headers kept;
    // replay encodes it again, its CRCs computed for the new bytes.
    const { event: message, ...rest } = event.frame;
    if ('text' in message) return { ...rest, event: { ...message, text: JSON.stringify(json) } };
    if (message.bytes !== undefined) return { ...rest, event: { ...message, bytes: { json } } };
    return { ...rest, event: { ...message, json } };
  }
  const data = renderLike(event.data, json);
  const { text, ...rest } = event.frame;
  const { lines, eol, terminator } = splitSse(text);
  if (!lines.some((line) => line.startsWith('data:'))) {
    // An NDJSON line: the JSON and its newline.
    return { ...rest, text: data + (/\r?\n$/.exec(text)?.[0] ?? '\n') };
  }
  const written: string[] = [];
  let dataWritten = false;
  for (const line of lines) {
    if (line.startsWith('data:')) {
      if (!dataWritten) written.push(`data:${line.startsWith('data: ') ? ' ' : ''}${data}`);
      dataWritten = true;
    } else if (line.startsWith('event:') && name !== undefined) written.push(`event:${line.startsWith('event: ') ? ' ' : ''}${name}`);
    else written.push(line);
  }
  return { ...rest, text: written.join(eol) + terminator };
}

/**
 * A new frame written as `like` is (its `event:` line when it has one, its line endings), carrying
 * `json` compactly under `name`, arriving at `atMs`.
 */
export function frameLike(like: StreamEvent, format: RecordedStream['format'], json: unknown, name: string | undefined, atMs: number): Frame {
  const data = JSON.stringify(json);
  const text = 'text' in like.frame ? like.frame.text : '\n\n';
  if (format === 'ndjson') return { atMs, text: `${data}${/\r?\n$/.exec(text)?.[0] ?? '\n'}` };
  const { eol, terminator } = splitSse(text);
  const lines = like.event !== undefined && name !== undefined ? [`event: ${name}`, `data: ${data}`] : [`data: ${data}`];
  return { atMs, text: lines.join(eol) + terminator };
}

/** A response like `response` streaming `frames` instead. */
export function withFrames(response: RecordedResponse, frames: Frame[]): RecordedResponse {
  const { stream, body: _body, ...rest } = response;
  return { ...rest, headers: keptHeaders(response.headers), stream: { ...stream!, frames } };
}

/**
 * The events of a stream being changed: an event's JSON is copied the first time it is asked for
 * and rewritten into its frame at the end; the events never asked for keep their recorded bytes.
 */
export class StreamDraft {
  readonly events: readonly StreamEvent[];
  #changed = new Map<number, unknown>();
  #names = new Map<number, string>();
  #dropped = new Set<number>();

  constructor(events: readonly StreamEvent[]) {
    this.events = events;
  }

  /** The JSON of event `index`, to change in place. */
  json(index: number): Record<string, unknown> {
    if (!this.#changed.has(index)) this.#changed.set(index, structuredClone(this.events[index]!.json));
    return this.#changed.get(index) as Record<string, unknown>;
  }

  /** Gives event `index` another `event:` name (its JSON `type` is the caller's to set). */
  rename(index: number, name: string): void {
    this.#names.set(index, name);
    this.json(index);
  }

  drop(index: number): void {
    this.#dropped.add(index);
  }

  dropped(index: number): boolean {
    return this.#dropped.has(index);
  }

  /** The indexes of the events still in the stream. */
  kept(): number[] {
    return this.events.map((_, index) => index).filter((index) => !this.#dropped.has(index));
  }

  frames(): Frame[] {
    const frames: Frame[] = [];
    this.events.forEach((event, index) => {
      if (this.#dropped.has(index)) return;
      frames.push(this.#changed.has(index) ? rewriteEvent(event, this.#changed.get(index), this.#names.get(index)) : event.frame);
    });
    return frames;
  }
}
