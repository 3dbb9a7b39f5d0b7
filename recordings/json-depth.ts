import { indexPath, ModeltapeError, propertyPath } from '../core/internal.js';
import type { Exchange } from './tape-format.js';

/**
 * How deeply JSON may nest in a tape: arrays and objects inside one another, counted from the
 * body (or stream frame) itself. Everything that walks a body (the key, the diff, the layout of
 * an exact answer) is recursive, and nothing deeper than this reaches it: the writer refuses such
 * an exchange and the reader reports such a line. Far below the stack on Node 20–24 (about
 * 10,000 levels for JSON.stringify), far above what any provider sends.
 */
export const MAX_JSON_DEPTH = 512;

/** An exchange (or a tape line) holding JSON nested deeper than {@link MAX_JSON_DEPTH}. */
export class JsonTooDeepError extends ModeltapeError {
  /** Where the limit was passed, in JSON access syntax from the exchange (`.response.body.json[0][0]…`). */
  readonly path: string;

  constructor(description: string, path: string) {
    super(
      'too_deep',
      `Refused to write ${description}: its JSON nests deeper than ${MAX_JSON_DEPTH} levels (at ${abbreviatePath(path)}). ` +
        'modeltape keeps no exchange it could not key, compare or replay; the request was forwarded but not recorded. Flatten the payload, or keep such calls out of recorded tests.',
    );
    this.path = path;
  }
}

/**
 * The path of the first array or object nested deeper than `limit` in `value`, or undefined when
 * none is. Iterative, so it holds for any depth JSON.parse can read.
 */
export function deeperThan(value: unknown, limit = MAX_JSON_DEPTH, root = ''): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (limit < 1) return root;
  // The containers open above the current one; each `next` is one past the child being visited.
  const stack: Array<{ value: object; next: number; names: string[] | undefined }> = [];
  stack.push({ value, next: 0, names: Array.isArray(value) ? undefined : Object.keys(value) });
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const length = top.names === undefined ? (top.value as unknown[]).length : top.names.length;
    if (top.next >= length) {
      stack.pop();
      continue;
    }
    const at = top.next++;
    const child = top.names === undefined ? (top.value as unknown[])[at] : (top.value as Record<string, unknown>)[top.names[at]!];
    if (child === null || typeof child !== 'object') continue;
    if (stack.length >= limit)
      return stack.reduce(
        (path, entry) => (entry.names === undefined ? indexPath(path, entry.next - 1) : propertyPath(path, entry.names[entry.next - 1]!)),
        root,
      );
    stack.push({ value: child, next: 0, names: Array.isArray(child) ? undefined : Object.keys(child) });
  }
  return undefined;
}

/**
 * The offset in `text` where JSON text (or text holding JSON, like an SSE frame) opens its
 * (`limit` + 1)th nested bracket, or undefined. Brackets inside strings do not count.
 */
export function textDeeperThan(text: string, limit = MAX_JSON_DEPTH): number | undefined {
  // Nesting past `limit` takes more than 2 × limit characters.
  if (text.length <= limit * 2) return undefined;
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c) index++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x5b || code === 0x7b) {
      if (++depth > limit) return index;
    } else if (code === 0x5d || code === 0x7d) depth = Math.max(0, depth - 1);
  }
  return undefined;
}

/**
 * Where an exchange nests deeper than {@link MAX_JSON_DEPTH}: in a request or response body, in
 * a stream frame's text, or in an event stream frame's payload. Undefined when it does not.
 */
export function exchangeTooDeepAt(exchange: Pick<Exchange, 'request' | 'response'>): string | undefined {
  for (const [side, body] of [
    ['request', exchange.request?.body],
    ['response', exchange.response?.body],
  ] as const) {
    if (body && 'json' in body) {
      const path = deeperThan(body.json, MAX_JSON_DEPTH, `.${side}.body.json`);
      if (path !== undefined) return path;
    }
    // JSON too deep for the parser (`JSON.parse` overflows its stack past some 10,000 levels) is
    // kept as text, and is as impossible to compare or replay as JSON.
    if (body && 'text' in body && typeof body.text === 'string') {
      const offset = textDeeperThan(body.text);
      if (offset !== undefined) return `.${side}.body.text (character ${offset})`;
    }
  }
  const frames = exchange.response?.stream?.frames;
  if (Array.isArray(frames)) {
    for (const [index, frame] of frames.entries()) {
      // An event stream frame's payload, and the payload its `bytes` carries.
      const event = (frame as { event?: { json?: unknown; bytes?: { json?: unknown } } } | undefined)?.event;
      if (typeof event === 'object' && event !== null) {
        const path =
          deeperThan(event.json, MAX_JSON_DEPTH, `.response.stream.frames[${index}].event.json`) ??
          deeperThan(event.bytes?.json, MAX_JSON_DEPTH, `.response.stream.frames[${index}].event.bytes.json`);
        if (path !== undefined) return path;
        continue;
      }
      const text = (frame as { text?: unknown } | undefined)?.text;
      if (typeof text !== 'string') continue;
      const offset = textDeeperThan(text);
      if (offset !== undefined) return `.response.stream.frames[${index}].text (character ${offset})`;
    }
  }
  return undefined;
}

/** A path 512 levels deep is 1,500+ characters: the start and the end say where. */
export function abbreviatePath(path: string): string {
  if (path.length <= 120) return path;
  return `${path.slice(0, 60)}…${path.slice(-40)} (${path.length} characters)`;
}
