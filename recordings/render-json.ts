import { indexPath, propertyPath } from '../core/internal.js';
import type { JsonLayout } from './tape-format.js';

/**
 * Writes a parsed JSON value as text laid out by `layout` (see {@link JsonLayout}). Without a
 * layout, or with an empty one, this is `JSON.stringify(value)`.
 *
 * A literal or a key order is used only while it still fits the value (the literal reads as the
 * value at its path; the order names exactly the object's members), so a value edited by hand is
 * written as edited.
 */
export function renderJson(value: unknown, layout: JsonLayout | undefined): string {
  if (layout === undefined) return JSON.stringify(value);
  const { indent, spaced, ascii, trailing = '', keyOrder, literals } = layout;
  const tracked = keyOrder !== undefined || literals !== undefined;
  // JSON.stringify writes the common layouts natively; it takes an indent of at most 10 characters.
  if (!tracked && !ascii && !spaced && (indent === undefined || indent.length <= 10)) return JSON.stringify(value, null, indent) + trailing;
  const writer: Writer = {
    indent,
    colon: indent !== undefined || spaced ? ': ' : ':',
    comma: spaced && indent === undefined ? ', ' : ',',
    ascii: ascii === true,
    keyOrder: keyOrder ?? {},
    literals: literals ?? {},
    tracked,
  };
  return write(value, '', 0, writer) + trailing;
}

/** One string as JSON text, escaped as `ascii` says (see {@link JsonLayout.ascii}). */
export function quoteJson(text: string, ascii: boolean): string {
  const quoted = JSON.stringify(text);
  return ascii ? quoted.replace(NOT_ASCII, escapeCharacter) : quoted;
}

/** True when `literal` is JSON text that reads as `value` (a number or string as JSON.parse gives it). */
export function literalFits(literal: string, value: unknown): boolean {
  if (value === null || typeof value === 'object') return false;
  try {
    return JSON.parse(literal) === value;
  } catch {
    return false;
  }
}

/** True when `order` names each of the object's own members exactly once. */
export function keyOrderFits(order: readonly string[], object: object): boolean {
  const names = Object.keys(object);
  if (order.length !== names.length) return false;
  const seen = new Set<string>();
  for (const name of order) {
    if (seen.has(name) || !Object.hasOwn(object, name)) return false;
    seen.add(name);
  }
  return true;
}

interface Writer {
  indent: string | undefined;
  colon: string;
  comma: string;
  ascii: boolean;
  keyOrder: Record<string, string[]>;
  literals: Record<string, string>;
  tracked: boolean;
}

const NOT_ASCII = /[\u007f-\uffff]/g;

function escapeCharacter(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

function write(value: unknown, path: string, depth: number, writer: Writer): string {
  if (writer.tracked) {
    const literal = writer.literals[path];
    if (literal !== undefined && literalFits(literal, value)) return literal;
  }
  if (typeof value === 'string') return quoteJson(value, writer.ascii);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const inner = writer.indent === undefined ? '' : `\n${writer.indent.repeat(depth + 1)}`;
  const outer = writer.indent === undefined ? '' : `\n${writer.indent.repeat(depth)}`;
  const separator = writer.comma + inner;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    let text = `[${inner}`;
    for (let index = 0; index < value.length; index++) {
      if (index > 0) text += separator;
      text += write(value[index], writer.tracked ? indexPath(path, index) : '', depth + 1, writer);
    }
    return `${text}${outer}]`;
  }
  let names = Object.keys(value);
  if (writer.tracked) {
    const order = writer.keyOrder[path];
    if (order !== undefined && keyOrderFits(order, value)) names = order;
  }
  if (names.length === 0) return '{}';
  let text = `{${inner}`;
  for (let index = 0; index < names.length; index++) {
    const name = names[index]!;
    if (index > 0) text += separator;
    text += quoteJson(name, writer.ascii) + writer.colon;
    text += write((value as Record<string, unknown>)[name], writer.tracked ? propertyPath(path, name) : '', depth + 1, writer);
  }
  return `${text}${outer}}`;
}
