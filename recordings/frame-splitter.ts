import { StringDecoder } from 'node:string_decoder';
import type { Frame, StreamFormat } from './tape-format.js';

/**
 * The stream format of a response, from its headers, or undefined for a plain body.
 * `text/event-stream` is SSE, `application/x-ndjson` is NDJSON; a chunked response of another
 * non-JSON, non-text type is kept as its raw chunks.
 */
export function streamFormatOf(contentType: string | undefined, chunked: boolean): StreamFormat | undefined {
  const type = (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (type === 'text/event-stream') return 'sse';
  if (type === 'application/x-ndjson' || type === 'application/jsonl' || type === 'application/jsonlines') return 'ndjson';
  if (chunked && (type === '' || type === 'application/octet-stream')) return 'chunks';
  return undefined;
}

/**
 * Cuts a streamed response into frames as its bytes arrive: one SSE event (up to and including
 * the blank line that ends it), one NDJSON line, or one chunk. Each frame carries the time it
 * completed. Concatenated, the frames are exactly the bytes pushed in; when those bytes are not
 * valid UTF-8 the frames are the raw chunks in base64.
 */
export class FrameSplitter {
  readonly format: StreamFormat;
  #decoder = new StringDecoder('utf8');
  #buffer = '';
  #frames: Array<{ atMs: number; text: string }> = [];
  #chunks: Array<{ atMs: number; bytes: Buffer }> = [];
  #byteLength = 0;

  constructor(format: StreamFormat) {
    this.format = format;
  }

  /** Adds a chunk received `atMs` milliseconds after the response headers. */
  push(chunk: Buffer, atMs: number): void {
    this.#chunks.push({ atMs, bytes: chunk });
    this.#byteLength += chunk.length;
    if (this.format === 'chunks') return;
    this.#buffer += this.#decoder.write(chunk);
    for (;;) {
      const end = this.format === 'sse' ? sseFrameEnd(this.#buffer) : ndjsonFrameEnd(this.#buffer);
      if (end < 0) break;
      this.#frames.push({ atMs, text: this.#buffer.slice(0, end) });
      this.#buffer = this.#buffer.slice(end);
    }
  }

  /** The frames of the whole stream; call once, after the last chunk. */
  finish(atMs: number): Frame[] {
    if (this.format !== 'chunks') {
      this.#buffer += this.#decoder.end();
      if (this.#buffer.length > 0) this.#frames.push({ atMs, text: this.#buffer });
      this.#buffer = '';
      const bytes = Buffer.concat(this.#chunks.map((chunk) => chunk.bytes), this.#byteLength);
      if (Buffer.from(this.#frames.map((frame) => frame.text).join(''), 'utf8').equals(bytes)) return this.#frames;
    }
    const frames: Frame[] = [];
    for (const chunk of this.#chunks) {
      const text = chunk.bytes.toString('utf8');
      frames.push(Buffer.from(text, 'utf8').equals(chunk.bytes) ? { atMs: chunk.atMs, text } : { atMs: chunk.atMs, base64: chunk.bytes.toString('base64') });
    }
    return frames;
  }
}

// The end (exclusive) of the first complete SSE event: a blank line, in any of the three line
// endings the SSE spec allows. -1 when no event is complete yet.
function sseFrameEnd(text: string): number {
  let best = -1;
  for (const separator of ['\n\n', '\r\n\r\n', '\r\r']) {
    const index = text.indexOf(separator);
    if (index >= 0 && (best < 0 || index + separator.length < best)) best = index + separator.length;
  }
  // "\r\n\r\n" contains no "\n\n" but a lone trailing "\r" may still become "\r\n": wait for it.
  if (best === text.length && text.endsWith('\r')) return -1;
  return best;
}

function ndjsonFrameEnd(text: string): number {
  const index = text.indexOf('\n');
  return index < 0 ? -1 : index + 1;
}
