import { decodeBody, frameBytes, isFramingHeader, type RecordedResponse, type StreamFormat } from '../recordings/internal.js';

/**
 * A recorded response made ready to serve, once per exchange: headers, the whole body (a plain
 * body, or every frame joined for instant pace) and the frames with their times. The proxy and
 * the in-process tape fake serve from it, so both give back the exact bytes the client received
 * while recording: frames as received, and a JSON body written with its recorded layout (compact
 * JSON for a body from a version 1 tape, which has none).
 */
export interface PreparedResponse {
  status: number;
  headers: Record<string, string | string[]>;
  hasDate: boolean;
  /** The whole body (plain responses, or every frame joined for instant pace). */
  body: Buffer;
  /** Stream frames with their times, for recorded pace. */
  frames: Array<{ atMs: number; bytes: Buffer }> | undefined;
  format: StreamFormat | undefined;
}

export function prepareResponse(recorded: RecordedResponse): PreparedResponse {
  // Framing is this connection's: a hand-edited `transfer-encoding` or `content-length` would
  // contradict the bytes served (`verify` names such a line).
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(recorded.headers)) if (!isFramingHeader(name)) headers[name] = value;
  if (recorded.stream) {
    const frames = recorded.stream.frames.map((frame) => ({ atMs: frame.atMs, bytes: frameBytes(frame) }));
    return {
      status: recorded.status,
      headers,
      hasDate: 'date' in headers,
      body: Buffer.concat(frames.map((frame) => frame.bytes)),
      frames,
      format: recorded.stream.format,
    };
  }
  const body = decodeBody(recorded.body);
  headers['content-length'] = String(body.length);
  return { status: recorded.status, headers, hasDate: 'date' in headers, body, frames: undefined, format: undefined };
}
