// A recorded stream read as events: an SSE event's `event:` line and data, or an NDJSON line, one
// per frame as the recorder split them. Read by tape mutation (which writes events back) and by
// the tape report (which reads what an answer did).
import { parseJson } from '../core/internal.js';
import type { Frame, RecordedResponse } from './tape-format.js';

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
