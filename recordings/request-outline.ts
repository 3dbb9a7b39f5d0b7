/**
 * Where a tape line's request lies, and its method and path, read from the line's bytes without
 * parsing it: what filing a 100,000-exchange tape's requests by route needs, at a fraction of
 * what parsing its lines costs. Nothing here checks the JSON; whoever uses the request's bytes
 * parses them (JSON.parse refuses what is not JSON).
 */
export interface RequestOutline {
  /** One past the request object's closing brace. */
  end: number;
  method: string;
  path: string;
}

import { MAX_JSON_DEPTH } from './json-depth.js';
import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-bytes.js';

/**
 * The outline of the request object whose `{` is at `start` (the writer's form: no whitespace,
 * members `"name":value`), scanning no further than `limit`. Undefined when it is not in that
 * form, has no string `method` and `path`, or nests deeper than a line may.
 */
export function requestOutline(buffer: Buffer, start: number, limit: number): RequestOutline | undefined {
  if (buffer[start] !== OPEN_BRACE) return undefined;
  let method: string | undefined;
  let path: string | undefined;
  let at = start + 1;
  if (buffer[at] === CLOSE_BRACE) return undefined;
  for (;;) {
    if (buffer[at] !== QUOTE) return undefined;
    const nameEnd = stringEnd(buffer, at, limit);
    if (nameEnd < 0 || buffer[nameEnd] !== COLON) return undefined;
    const valueStart = nameEnd + 1;
    const valueEnd = valueEndAt(buffer, valueStart, limit);
    if (valueEnd < 0) return undefined;
    // The names of the format's own fields are plain ASCII: compared as bytes.
    const nameLength = nameEnd - at - 2;
    if (nameLength === 6 && bytesAre(buffer, at + 1, METHOD)) method = stringAt(buffer, valueStart, valueEnd);
    else if (nameLength === 4 && bytesAre(buffer, at + 1, PATH)) path = stringAt(buffer, valueStart, valueEnd);
    at = valueEnd;
    if (buffer[at] === COMMA) {
      at++;
      continue;
    }
    if (buffer[at] !== CLOSE_BRACE || method === undefined || path === undefined) return undefined;
    return { end: at + 1, method, path };
  }
}

const METHOD = Buffer.from('method', 'latin1');
const PATH = Buffer.from('path', 'latin1');

function bytesAre(buffer: Buffer, at: number, bytes: Buffer): boolean {
  for (let index = 0; index < bytes.length; index++) if (buffer[at + index] !== bytes[index]) return false;
  return true;
}

// One past the string whose opening quote is at `quote`, or -1. The closing quote is found with
// indexOf (a native scan); one preceded by an odd run of backslashes is escaped.
function stringEnd(buffer: Buffer, quote: number, limit: number): number {
  let from = quote + 1;
  for (;;) {
    const close = buffer.indexOf(QUOTE, from);
    if (close < 0 || close >= limit) return -1;
    let backslashes = 0;
    for (let back = close - 1; back > quote && buffer[back] === BACKSLASH; back--) backslashes++;
    if ((backslashes & 1) === 0) return close + 1;
    from = close + 1;
  }
}

// One past the JSON value that starts at `at` (a member's value: a number or literal ends at the
// next `,` or `}`), or -1.
function valueEndAt(buffer: Buffer, at: number, limit: number): number {
  const first = buffer[at];
  if (first === QUOTE) return stringEnd(buffer, at, limit);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    let end = at;
    while (end < limit && buffer[end] !== COMMA && buffer[end] !== CLOSE_BRACE) end++;
    return end > at && end < limit ? end : -1;
  }
  let depth = 0;
  for (let position = at; position < limit; ) {
    const byte = buffer[position]!;
    if (byte === QUOTE) {
      position = stringEnd(buffer, position, limit);
      if (position < 0) return -1;
      continue;
    }
    if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      // The request sits one level down in its line: deeper than the line may nest is refused.
      if (++depth >= MAX_JSON_DEPTH) return -1;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      if (--depth === 0) return position + 1;
    }
    position++;
  }
  return -1;
}

// The string value in `[start, end)`, decoded; undefined when it is not a string.
function stringAt(buffer: Buffer, start: number, end: number): string | undefined {
  if (buffer[start] !== QUOTE || end - start < 2) return undefined;
  let escaped = false;
  for (let at = start + 1; at < end - 1 && !escaped; at++) escaped = buffer[at] === BACKSLASH;
  if (!escaped) return buffer.toString('utf8', start + 1, end - 1);
  try {
    return JSON.parse(buffer.toString('utf8', start, end)) as string;
  } catch {
    return undefined;
  }
}
