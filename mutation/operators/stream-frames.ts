// A recorded stream read as events (an SSE event's `event:` line and data, or an NDJSON line), and
// each event written back as a frame of the same shape: its `event:` line, its line endings and
// blank-line terminator, `atMs` kept, only the JSON of its data changed.
import type { Frame, RecordedResponse, RecordedStream } from '../../recordings/internal.js';
import { keptHeaders, parseJson, renderLike } from './json-text.js';

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

/**
 * The frame of `event` with `json` as its data, written in the layout its data had; `name`
 * replaces the `event:` line's value (a Responses event whose type changes).
 */
export function rewriteEvent(event: StreamEvent, json: unknown, name?: string): Frame {
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
  if (format === 'ndjson') return { atMs, text: `${data}${/\r?\n$/.exec(like.frame.text)?.[0] ?? '\n'}` };
  const { eol, terminator } = splitSse(like.frame.text);
  const lines = like.event !== undefined && name !== undefined ? [`event: ${name}`, `data: ${data}`] : [`data: ${data}`];
  return { atMs, text: lines.join(eol) + terminator };
}

/** A response like `response` streaming `frames` instead. */
export function withFrames(response: RecordedResponse, frames: Frame[]): RecordedResponse {
  const { stream, body: _body, ...rest } = response;
  return { ...rest, headers: keptHeaders(response.headers), stream: { ...stream!, frames } };
}

// An SSE event's lines, the line ending they use and the blank-line terminator after them.
function splitSse(text: string): { lines: string[]; eol: string; terminator: string } {
  const eol = text.includes('\r\n') ? '\r\n' : text.includes('\r') && !text.includes('\n') ? '\r' : '\n';
  let end = text.length;
  while (end > 0 && (text[end - 1] === '\n' || text[end - 1] === '\r')) end--;
  const terminator = text.slice(end) || eol + eol;
  return { lines: text.slice(0, end).split(eol), eol, terminator };
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
