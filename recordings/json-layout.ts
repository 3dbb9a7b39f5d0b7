import { indexPath, propertyPath } from '../core/internal.js';
import { quoteJson, renderJson } from './render-json.js';
import type { JsonLayout } from './tape-format.js';

/**
 * The layout that writes `value` (what `JSON.parse(text)` gave) back as exactly `text`: `{}` for
 * compact JSON, else the spacing, escaping, trailing whitespace, key orders and literals `text`
 * uses. Undefined when no layout does (irregular spacing, a duplicate name, a name escaped
 * unusually, nesting too deep to walk); keep such a body as text.
 */
export function jsonLayout(text: string, value: unknown): JsonLayout | undefined {
  try {
    return findLayout(text, value);
  } catch (error) {
    // Nesting deeper than the stack: JSON.parse reads it, but nothing recursive writes it.
    if (error instanceof RangeError || error === MISFIT) return undefined;
    throw error;
  }
}

function findLayout(text: string, value: unknown): JsonLayout | undefined {
  // A loop, not /[ \t\r\n]*$/: the expression tries every position of the text.
  let end = text.length;
  for (let code = text.charCodeAt(end - 1); code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d; code = text.charCodeAt(end - 1)) end--;
  const trailing = text.slice(end);
  const json = text.slice(0, end);
  const layout: JsonLayout = {};
  const newline = json.indexOf('\n');
  if (newline >= 0) {
    const indent = /^[ \t]*/.exec(json.slice(newline + 1))![0];
    if (indent === '') return undefined;
    layout.indent = indent;
  }
  // Escaped, not raw: Python's json.dumps (ensure_ascii) and OpenAI write "caf\u00e9". Text
  // without a `\u` (most answers) is not read by the two expressions.
  if (
    (json.includes('\\u') || json.includes('\\U')) &&
    !/[\u007f-\uffff]/.test(json) &&
    /\\u(?:007f|00[89a-f][0-9a-f]|0[1-9a-f][0-9a-f]{2}|[1-9a-f][0-9a-f]{3})/i.test(json)
  )
    layout.ascii = true;
  if (trailing !== '') layout.trailing = trailing;
  if (renderJson(value, layout) === text) return layout;
  if (layout.indent === undefined && /^\s*[[{]/.test(json)) {
    const spaced: JsonLayout = { ...layout, spaced: true };
    if (renderJson(value, spaced) === text) return spaced;
  }

  // Not the whole text: walk it beside the value for what differs member by member.
  const found = scan(json, value, layout);
  if (found.spaced) layout.spaced = true;
  if (Object.keys(found.keyOrder).length > 0) layout.keyOrder = found.keyOrder;
  if (Object.keys(found.literals).length > 0) layout.literals = found.literals;
  return renderJson(value, layout) === text ? layout : undefined;
}

interface Found {
  spaced: boolean;
  keyOrder: Record<string, string[]>;
  literals: Record<string, string>;
}

// Thrown inside the walk when the text has something no layout can say (a duplicate name, a name
// escaped otherwise than the layout escapes names).
const MISFIT = Symbol('misfit');

// A number, true, false or null: everything up to the next separator or space.
const SCALAR = /[^\s,\]}]+/y;

function scan(text: string, value: unknown, layout: JsonLayout): Found {
  const ascii = layout.ascii === true;
  const found: Found = { spaced: false, keyOrder: {}, literals: {} };
  let position = 0;
  let sawSeparator = false;

  const skipSpace = (): void => {
    while (position < text.length) {
      const code = text.charCodeAt(position);
      if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) return;
      position++;
    }
  };
  // The first `:` or `,` of a one-line text says whether separators are followed by a space.
  const separator = (): void => {
    position++;
    if (!sawSeparator && layout.indent === undefined) {
      sawSeparator = true;
      found.spaced = text.charCodeAt(position) === 0x20;
    }
    skipSpace();
  };
  const stringEnd = (start: number): number => {
    let at = start + 1;
    for (;;) {
      const quote = text.indexOf('"', at);
      let backslashes = 0;
      while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
      if (backslashes % 2 === 0) return quote + 1;
      at = quote + 1;
    }
  };

  const walk = (current: unknown, path: string): void => {
    skipSpace();
    const start = position;
    const first = text.charCodeAt(position);
    if (first === 0x7b) {
      position++;
      skipSpace();
      const object = current as Record<string, unknown>;
      const names: string[] = [];
      const seen = new Set<string>();
      while (text.charCodeAt(position) !== 0x7d) {
        if (names.length > 0) separator(); // ','
        const nameStart = position;
        position = stringEnd(position);
        const token = text.slice(nameStart, position);
        const name = JSON.parse(token) as string;
        if (seen.has(name) || quoteJson(name, ascii) !== token) throw MISFIT;
        seen.add(name);
        names.push(name);
        skipSpace();
        separator(); // ':'
        walk(object[name], propertyPath(path, name));
        skipSpace();
      }
      position++;
      const parsedOrder = Object.keys(object);
      if (parsedOrder.some((name, index) => name !== names[index])) found.keyOrder[path] = names;
      return;
    }
    if (first === 0x5b) {
      position++;
      skipSpace();
      let index = 0;
      while (text.charCodeAt(position) !== 0x5d) {
        if (index > 0) separator(); // ','
        walk((current as unknown[])[index], indexPath(path, index));
        index++;
        skipSpace();
      }
      position++;
      return;
    }
    if (first === 0x22) position = stringEnd(position);
    else {
      SCALAR.lastIndex = position;
      SCALAR.test(text);
      position = SCALAR.lastIndex;
    }
    const token = text.slice(start, position);
    const written = typeof current === 'string' ? quoteJson(current, ascii) : JSON.stringify(current);
    if (written !== token) found.literals[path] = token;
  };

  walk(value, '');
  return found;
}
