// The changes made to JSON values: one field of a structured answer removed or retyped, the first
// argument of a tool call changed.
import { indexPath, isRecord, propertyPath } from '../../core/internal.js';

/** At most this many top-level fields of a structured answer are removed, and as many retyped. */
export const MAX_FIELDS = 3;

/** One change to a JSON value, with the path it was made at and the value there before and after. */
export interface ValueEdit {
  value: unknown;
  /** JSON access syntax into the value (`.city`, `.items[0]`). */
  path: string;
  before: unknown;
  after: unknown;
}

/** The answer without each of its first {@link MAX_FIELDS} top-level fields, one edit each. */
export function fieldsRemoved(answer: Record<string, unknown>): ValueEdit[] {
  return Object.keys(answer)
    .slice(0, MAX_FIELDS)
    .map((name) => {
      const { [name]: removed, ...rest } = answer;
      return { value: rest, path: propertyPath('', name), before: removed, after: undefined };
    });
}

/**
 * The answer with each of its first {@link MAX_FIELDS} top-level fields of another JSON type: a
 * string as a number (its number when it reads as one, else its length), a number or boolean as
 * its string, null as `"null"`, an object or array as its JSON text.
 */
export function fieldsRetyped(answer: Record<string, unknown>): ValueEdit[] {
  return Object.keys(answer)
    .slice(0, MAX_FIELDS)
    .map((name) => {
      const before = answer[name];
      const after = retyped(before);
      return { value: { ...answer, [name]: after }, path: propertyPath('', name), before, after };
    });
}

/**
 * The arguments with their first argument changed (descending into a first argument that is an
 * object or array): a string with `x` appended, a number plus one, a boolean flipped, null as
 * `"x"`. Undefined when there is no argument to change (`{}`).
 */
export function firstArgumentChanged(args: unknown, path = ''): ValueEdit | undefined {
  if (isRecord(args)) {
    const name = Object.keys(args)[0];
    if (name === undefined) return undefined;
    const inner = changedValue(args[name], propertyPath(path, name));
    return inner === undefined ? undefined : { ...inner, value: { ...args, [name]: inner.value } };
  }
  if (Array.isArray(args)) {
    if (args.length === 0) return undefined;
    const inner = changedValue(args[0], indexPath(path, 0));
    return inner === undefined ? undefined : { ...inner, value: [inner.value, ...args.slice(1)] };
  }
  return undefined;
}

function changedValue(value: unknown, path: string): ValueEdit | undefined {
  if (isRecord(value) || Array.isArray(value)) return firstArgumentChanged(value, path);
  let after: unknown;
  if (typeof value === 'string') after = `${value}x`;
  else if (typeof value === 'number') after = value + 1;
  else if (typeof value === 'boolean') after = !value;
  else if (value === null) after = 'x';
  else return undefined;
  return { value: after, path, before: value, after };
}

function retyped(value: unknown): unknown {
  if (typeof value === 'string') {
    const number = Number(value);
    return value.trim() !== '' && Number.isFinite(number) ? number : value.length;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return 'null';
  return JSON.stringify(value);
}
