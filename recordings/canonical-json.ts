// The one file that imports fast-json-stable-stringify.
import stableStringifyModule from 'fast-json-stable-stringify';

const stableStringify = stableStringifyModule as unknown as (value: unknown) => string;

/**
 * JSON with object keys sorted at every depth and no whitespace. Arrays keep their order.
 * The same value always gives the same string, whatever order its keys were built in.
 */
export function canonicalJson(value: unknown): string {
  // A copy with sorted keys, written by V8's native JSON.stringify, is 1.3–1.7× faster than a
  // serializer in JavaScript. V8 lists integer-like keys ("9", "10") first in numeric order,
  // which is not sorted order, so objects holding such keys take the slower serializer.
  const sorted = sortedCopy(value);
  return sorted === INTEGER_KEY ? stableStringify(value) : JSON.stringify(sorted);
}

/**
 * The objects of `value` copied with their keys sorted, except the subtrees `keep` says to copy
 * as they are (same order, same objects). Values JSON cannot hold (undefined, functions) are
 * dropped from objects, as JSON.stringify drops them.
 */
export function sortKeys(value: unknown, keep: (path: readonly string[]) => boolean = () => false): unknown {
  const sorted = sortedCopy(value, keep, []);
  if (sorted === INTEGER_KEY) throw new Error('unreachable: sortKeys never reports integer keys');
  return sorted;
}

/**
 * What `JSON.stringify(sortKeys(value, keep))` writes for a tape line, where `keep` holds
 * `request.body.json` and `response.body.json` (the recorded payloads) as they are, and in each
 * event stream frame (`response.stream.frames[i].event`) its `headers`, `json` and `bytes.json`,
 * whose order is part of the bytes the frame stands for. Objects whose
 * keys are already in sorted order are not copied (JSON.stringify writes them the same).
 */
export function sortLineKeys(value: unknown): unknown {
  return lineCopy(value, LINE_TOP);
}

const INTEGER_KEY = Symbol('integer-like key');

// Where lineCopy is in a line: at its top, under `request` or `response`, under their `body`,
// under `response.stream`, its `frames`, a frame's `event`, or anywhere else (where nothing is
// kept). Arrays do not change it, as they add no name to the
// path sortKeys gives `keep`.
const LINE_TOP = 0;
const LINE_SIDE = 1;
const LINE_BODY = 2;
const LINE_OTHER = 3;
const LINE_STREAM = 4;
const LINE_FRAMES = 5;
const LINE_EVENT = 6;

// sortedCopy with that `keep`, returning `value` itself (not a copy) wherever a copy would be
// written the same by JSON.stringify: its keys already sorted, no member JSON drops, no child
// copied. V8 enumerates integer-like keys first in either, so "already sorted" is checked on the
// enumeration order itself.
function lineCopy(value: unknown, where: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item = value[index] as unknown;
      const child = lineCopy(item, where);
      if (child !== item && copy === undefined) copy = value.slice(0, index);
      if (copy !== undefined) copy[index] = child;
    }
    // A hole reads as undefined in the copy; JSON writes both as null.
    return copy ?? value;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return value;
  const names = Object.keys(value);
  let changed = false;
  for (let index = 1; index < names.length && !changed; index++) changed = names[index - 1]! >= names[index]!;
  const children: unknown[] = new Array(names.length);
  for (let index = 0; index < names.length; index++) {
    const name = names[index]!;
    const item = (value as Record<string, unknown>)[name];
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') {
      children[index] = DROPPED;
      changed = true;
      continue;
    }
    const kept = where === LINE_BODY ? name === 'json' : where === LINE_EVENT && (name === 'json' || name === 'headers');
    const child = kept ? item : lineCopy(item, lineNext(where, name));
    if (child !== item) changed = true;
    children[index] = child;
  }
  if (!changed) return value;
  const order = names.map((_, index) => index).sort((a, b) => (names[a]! < names[b]! ? -1 : 1));
  const copy: Record<string, unknown> = {};
  for (const index of order) {
    const name = names[index]!;
    const child = children[index];
    if (child === DROPPED) continue;
    if (name === '__proto__') Object.defineProperty(copy, name, { value: child, enumerable: true, writable: true, configurable: true });
    else copy[name] = child;
  }
  return copy;
}

const DROPPED = Symbol('dropped');

function lineNext(where: number, name: string): number {
  if (where === LINE_TOP) return name === 'request' || name === 'response' ? LINE_SIDE : LINE_OTHER;
  if (where === LINE_SIDE) return name === 'body' ? LINE_BODY : name === 'stream' ? LINE_STREAM : LINE_OTHER;
  if (where === LINE_STREAM) return name === 'frames' ? LINE_FRAMES : LINE_OTHER;
  if (where === LINE_FRAMES) return name === 'event' ? LINE_EVENT : LINE_OTHER;
  // An event's `bytes` is a payload form like a body: its `json` is kept.
  if (where === LINE_EVENT) return name === 'bytes' ? LINE_BODY : LINE_OTHER;
  return LINE_OTHER;
}

function sortedCopy(value: unknown, keep?: (path: readonly string[]) => boolean, path?: string[]): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const copy: unknown[] = new Array(value.length);
    for (let index = 0; index < value.length; index++) {
      const item = sortedCopy(value[index], keep, path);
      if (item === INTEGER_KEY) return INTEGER_KEY;
      copy[index] = item;
    }
    return copy;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return value;
  const names = Object.keys(value).sort();
  const copy: Record<string, unknown> = {};
  // `copy.__proto__ = x` would set the copy's prototype, dropping the member: a JSON body's
  // "__proto__" is data, and part of the key like any other member.
  const set = (name: string, child: unknown): void => {
    if (name === '__proto__') Object.defineProperty(copy, name, { value: child, enumerable: true, writable: true, configurable: true });
    else copy[name] = child;
  };
  for (const name of names) {
    const item = (value as Record<string, unknown>)[name];
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    if (keep === undefined && isIntegerLike(name)) return INTEGER_KEY;
    if (keep !== undefined) {
      path!.push(name);
      const child = keep(path!) ? item : sortedCopy(item, keep, path);
      path!.pop();
      set(name, child);
    } else {
      const child = sortedCopy(item);
      if (child === INTEGER_KEY) return INTEGER_KEY;
      set(name, child);
    }
  }
  return copy;
}

// An array index as V8 orders it: "0", "1", … up to 2^32 - 2, without leading zeros.
function isIntegerLike(name: string): boolean {
  const first = name.charCodeAt(0);
  if (first < 0x30 || first > 0x39 || name.length > 10) return false;
  if (!/^(?:0|[1-9]\d*)$/.test(name)) return false;
  return Number(name) <= 4294967294;
}
