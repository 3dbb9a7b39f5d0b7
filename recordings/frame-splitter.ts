import { StringDecoder } from 'node:string_decoder';
import { EVENT_STREAM_MINIMUM_MESSAGE_BYTES, eventStreamFrame, eventStreamMessageLength } from './event-stream.js';
import type { Frame, StreamFormat } from './tape-format.js';

/**
 * The stream format of a response, from its headers, or undefined for a plain body.
 * `text/event-stream` is SSE, `application/x-ndjson` is NDJSON,
 * `application/vnd.amazon.eventstream` is AWS's event stream (whether chunked or not: it is
 * framed by its own lengths); a chunked response of another non-JSON, non-text type is kept as its
 * raw chunks.
 */
export function streamFormatOf(contentType: string | undefined, chunked: boolean): StreamFormat | undefined {
  const type = (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (type === 'text/event-stream') return 'sse';
  if (type === 'application/vnd.amazon.eventstream') return 'eventstream';
  if (type === 'application/x-ndjson' || type === 'application/jsonl' || type === 'application/jsonlines') return 'ndjson';
  if (chunked && (type === '' || type === 'application/octet-stream')) return 'chunks';
  return undefined;
}

/**
 * Cuts a streamed response into frames as its bytes arrive: one SSE event (up to and including
 * the blank line that ends it), one NDJSON line, one AWS event stream message (by the total length
 * its prelude gives), or one chunk. Each frame carries the time it completed. Concatenated, the
 * frames are exactly the bytes pushed in; when those bytes are not valid UTF-8 the frames are the
 * raw chunks in base64. An event stream message is kept readable only where its readable form
 * gives back its exact bytes (see `EventStreamEvent`), else as base64; so is whatever is left at
 * the end, or after a prelude no message can have.
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
    if (this.format === 'eventstream') {
      this.#pushMessageBytes(chunk, atMs);
      return;
    }
    this.#chunks.push({ atMs, bytes: chunk });
    this.#byteLength += chunk.length;
    if (this.format === 'chunks') return;
    this.#buffer += this.#decoder.write(chunk);
    for (;;) {
      const end = this.format === 'sse' ? this.#sseFrameEnd() : ndjsonFrameEnd(this.#buffer);
      if (end < 0) break;
      this.#frames.push({ atMs, text: this.#buffer.slice(0, end) });
      this.#buffer = this.#buffer.slice(end);
      this.#scanned = 0;
      this.#afterLineEnd = false;
    }
  }

  // Where the scan of the buffer stopped, and whether it stopped just after a line ending.
  #scanned = 0;
  #afterLineEnd = false;

  /**
   * The end (exclusive) of the first complete SSE event: a line ending right after another one.
   * Line endings are "\r\n", "\n" or "\r" (the SSE spec allows all three); a "\r" at the end of
   * the buffer waits for the next chunk, which may start with its "\n". -1 when no event is
   * complete yet. Resumes where the last call stopped, so long events cost one pass.
   */
  #sseFrameEnd(): number {
    const text = this.#buffer;
    let index = this.#scanned;
    while (index < text.length) {
      const character = text.charCodeAt(index);
      if (character !== 0x0a && character !== 0x0d) {
        this.#afterLineEnd = false;
        index++;
        continue;
      }
      let end = index + 1;
      if (character === 0x0d) {
        if (end === text.length) break;
        if (text.charCodeAt(end) === 0x0a) end++;
      }
      if (this.#afterLineEnd) return end;
      this.#afterLineEnd = true;
      index = end;
    }
    this.#scanned = index;
    return -1;
  }

  // Event stream: the bytes of the message not yet complete, and the length it says it has
  // (undefined until its first 4 bytes are in; Infinity after a length no message can have, when
  // the rest of the stream is kept as it comes, unread).
  #pending: Buffer[] = [];
  #pendingLength = 0;
  #messageLength: number | undefined;
  #messages: Frame[] = [];

  // Holds only the message being received: each one is turned into its frame as soon as it is whole.
  #pushMessageBytes(chunk: Buffer, atMs: number): void {
    if (chunk.length === 0) return;
    this.#pending.push(chunk);
    this.#pendingLength += chunk.length;
    for (;;) {
      if (this.#messageLength === undefined) {
        if (this.#pendingLength < 4) return;
        const length = eventStreamMessageLength(this.#joinPending());
        this.#messageLength = length < EVENT_STREAM_MINIMUM_MESSAGE_BYTES ? Infinity : length;
      }
      if (this.#pendingLength < this.#messageLength) return;
      const bytes = this.#joinPending();
      this.#messages.push(eventStreamFrame(bytes.subarray(0, this.#messageLength), atMs));
      const rest = bytes.subarray(this.#messageLength);
      // A copy, so the frame's buffer (and the whole chunk under it) is not held by the next message.
      this.#pending = rest.length === 0 ? [] : [Buffer.from(rest)];
      this.#pendingLength = rest.length;
      this.#messageLength = undefined;
    }
  }

  #joinPending(): Buffer {
    if (this.#pending.length > 1) this.#pending = [Buffer.concat(this.#pending, this.#pendingLength)];
    return this.#pending[0]!;
  }

  /** The frames of the whole stream; call once, after the last chunk. */
  finish(atMs: number): Frame[] {
    if (this.format === 'eventstream') {
      // A message cut off at the end (or bytes after a prelude no message can have): as received.
      if (this.#pendingLength > 0) this.#messages.push({ atMs, base64: this.#joinPending().toString('base64') });
      this.#pending = [];
      this.#pendingLength = 0;
      return this.#messages;
    }
    if (this.format !== 'chunks') {
      this.#buffer += this.#decoder.end();
      if (this.#buffer.length > 0) this.#frames.push({ atMs, text: this.#buffer });
      this.#buffer = '';
      // The decoder turns invalid UTF-8 into U+FFFD; without one the text is exact. Only a
      // stream that holds U+FFFD pays for the byte-by-byte comparison.
      if (!this.#frames.some((frame) => frame.text.includes('\uFFFD'))) return this.#frames;
      const bytes = Buffer.concat(
        this.#chunks.map((chunk) => chunk.bytes),
        this.#byteLength,
      );
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

function ndjsonFrameEnd(text: string): number {
  const index = text.indexOf('\n');
  return index < 0 ? -1 : index + 1;
}
