// The lines of a stream, each at most `limit` bytes held: what a stdio MCP bridge reads both of
// its ends with. Node's readline holds a line whole, however long, until its line break: a peer
// that writes half a gigabyte with none ends the process (`RangeError: Invalid string length`).
import type { Readable } from 'node:stream';

/** A line over the limit, of which only its two ends were kept (to find its JSON-RPC id). */
export interface LongLine {
  /** Its length, without its line break; while it is still being read, how much of it came so far. */
  bytes: number;
  /** Its first bytes (at most 4 KiB), as UTF-8. */
  head: string;
  /** Its last bytes (at most 4 KiB), as UTF-8; empty until it ended. */
  tail: string;
}

export interface BoundedLineEvents {
  /** A line of at most `limit` bytes, without its line break (nor a `\r` before it). */
  line(text: string): void;
  /** A line has gone over `limit`: from here on only its ends are kept. Told once per line, at once. */
  overLimit(line: LongLine): void;
  /** The line over the limit ended (its line break, or the end of the stream). */
  longLineEnded(line: LongLine): void;
  /** The stream ended (its last line, if it had no line break, was told first). */
  end(): void;
}

const END_BYTES = 4096;
const NEWLINE = 0x0a;

/**
 * Reads `input` a line at a time, holding no more than `limit` bytes of a line: a longer one is
 * told by its ends ({@link BoundedLineEvents.overLimit}, then `longLineEnded`) and its middle is
 * dropped as it arrives. `close()` stops the events.
 */
export function readBoundedLines(input: Readable, limit: number, events: BoundedLineEvents): { close(): void } {
  let parts: Buffer[] = [];
  let bytes = 0;
  // The line being read is over the limit: its first bytes, and its last ones so far.
  let long: { head: Buffer; tail: Buffer } | undefined;
  let closed = false;

  const keepTail = (tail: Buffer, more: Buffer): Buffer =>
    more.length >= END_BYTES ? Buffer.from(more.subarray(more.length - END_BYTES)) : Buffer.concat([tail, more]).subarray(-END_BYTES);

  const add = (piece: Buffer): void => {
    if (piece.length === 0) return;
    bytes += piece.length;
    if (long !== undefined) {
      long.tail = keepTail(long.tail, piece);
      return;
    }
    parts.push(piece);
    if (bytes <= limit) return;
    const held = Buffer.concat(parts);
    long = { head: Buffer.from(held.subarray(0, END_BYTES)), tail: Buffer.alloc(0) };
    parts = [];
    events.overLimit({ bytes, head: long.head.toString('utf8'), tail: '' });
    if (!closed && long !== undefined) long.tail = keepTail(long.tail, held);
  };

  const finishLine = (): void => {
    if (long !== undefined) {
      const ended: LongLine = { bytes, head: long.head.toString('utf8'), tail: long.tail.toString('utf8') };
      long = undefined;
      bytes = 0;
      events.longLineEnded(ended);
      return;
    }
    const whole = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    parts = [];
    bytes = 0;
    const end = whole.length > 0 && whole[whole.length - 1] === 0x0d ? whole.length - 1 : whole.length;
    events.line(whole.toString('utf8', 0, end));
  };

  const onData = (chunk: Buffer | string): void => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    for (let newline = data.indexOf(NEWLINE); newline >= 0 && !closed; newline = data.indexOf(NEWLINE, start)) {
      add(data.subarray(start, newline));
      finishLine();
      start = newline + 1;
    }
    if (!closed) add(data.subarray(start));
  };
  const onEnd = (): void => {
    if (closed) return;
    if (bytes > 0 || long !== undefined) finishLine();
    if (!closed) events.end();
    close();
  };
  const close = (): void => {
    if (closed) return;
    closed = true;
    input.off('data', onData);
    input.off('end', onEnd);
    input.off('close', onEnd);
  };
  input.on('data', onData);
  input.on('end', onEnd);
  // A stream destroyed without an end (the peer died) ends its lines too.
  input.on('close', onEnd);
  return { close };
}
