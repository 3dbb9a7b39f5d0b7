// What the transports that carry a message a line share: a stdio MCP server's answers and a
// Realtime session's events are recorded as NDJSON, a frame a message, and replayed a line at a time.
import type { PreparedResponse } from '../../lookup/internal.js';

/** The headers an answer is recorded under when its messages are NDJSON lines: a stdio MCP server's, a Realtime session's events. */
export const NDJSON_HEADERS = { 'content-type': 'application/x-ndjson', 'transfer-encoding': 'chunked' };

/**
 * The messages of a recorded answer, a line each, without their line breaks: its NDJSON frames, the
 * `data:` of its SSE events (an MCP answer recorded over HTTP, replayed over stdio), or its body as
 * one message, without trailing white space.
 */
export function answerLines(prepared: Pick<PreparedResponse, 'body' | 'frames' | 'format'>): string[] {
  if (prepared.frames === undefined) return prepared.body.length === 0 ? [] : [prepared.body.toString('utf8').trimEnd()];
  if (prepared.format === 'sse') {
    return prepared.frames.flatMap(({ bytes }) =>
      bytes
        .toString('utf8')
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5)),
    );
  }
  return prepared.frames.map(({ bytes }) => bytes.toString('utf8').replace(/\r?\n$/, ''));
}
