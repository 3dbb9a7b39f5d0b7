import type { Json } from '../core/internal.js';

/** How deep tool arguments may nest (objects and arrays) before they are refused. */
export const ARGUMENT_DEPTH_CAP = 256;

export type ParsedArguments = { ok: true; value: Json } | { ok: false; reason: string };

/**
 * Parses a tool call's arguments as a model sent them (text, or bytes that must be UTF-8),
 * strictly: exactly one JSON value, no duplicate key, no unpaired surrogate, no control character
 * in a string, nesting no deeper than {@link ARGUMENT_DEPTH_CAP}. `JSON.parse` would accept a
 * duplicate key (the last wins) and an unpaired `\ud800`; a tool must not see either.
 */
export function parseToolArguments(raw: string | Uint8Array, options: { maxDepth?: number } = {}): ParsedArguments {
  let text: string;
  if (typeof raw === 'string') text = raw;
  else {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
    } catch {
      return { ok: false, reason: 'the arguments are not valid UTF-8' };
    }
  }
  try {
    const parser = new StrictParser(text, options.maxDepth ?? ARGUMENT_DEPTH_CAP);
    return { ok: true, value: parser.document() };
  } catch (error) {
    if (error instanceof ArgumentsError) return { ok: false, reason: error.message };
    throw error;
  }
}

/** Checks a value already parsed (e.g. an Anthropic `tool_use.input`) against the same depth cap and surrogate rule. */
export function checkArgumentsValue(value: Json, options: { maxDepth?: number } = {}): string | undefined {
  const cap = options.maxDepth ?? ARGUMENT_DEPTH_CAP;
  const visit = (node: Json, depth: number, path: string): string | undefined => {
    if (typeof node === 'string') return hasUnpairedSurrogate(node) ? `an unpaired surrogate in the string at ${path || '(arguments)'}` : undefined;
    if (node === null || typeof node !== 'object') return undefined;
    if (depth + 1 > cap) return `the arguments nest deeper than ${cap} levels (at ${path || '(arguments)'})`;
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        const problem = visit(node[index]!, depth + 1, `${path}[${index}]`);
        if (problem) return problem;
      }
      return undefined;
    }
    for (const [key, child] of Object.entries(node)) {
      if (hasUnpairedSurrogate(key)) return `an unpaired surrogate in a key at ${path || '(arguments)'}`;
      const problem = visit(child, depth + 1, `${path}.${key}`);
      if (problem) return problem;
    }
    return undefined;
  };
  return visit(value, 0, '');
}

class ArgumentsError extends Error {}

function hasUnpairedSurrogate(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index++;
      else return true;
    } else if (code >= 0xdc00 && code <= 0xdfff) return true;
  }
  return false;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

class StrictParser {
  #text: string;
  #at = 0;
  #cap: number;

  constructor(text: string, cap: number) {
    this.#text = text;
    this.#cap = cap;
  }

  document(): Json {
    this.#space();
    if (this.#at >= this.#text.length) throw new ArgumentsError('the arguments are empty');
    const value = this.#value(0, '');
    this.#space();
    if (this.#at < this.#text.length) {
      const rest = this.#text[this.#at]!;
      throw new ArgumentsError(
        /[[{"\-0-9tfn]/.test(rest)
          ? `the arguments hold more than one JSON value (a second one starts at character ${this.#at})`
          : `unexpected ${JSON.stringify(rest)} at character ${this.#at} after the arguments`,
      );
    }
    return value;
  }

  #space(): void {
    while (this.#at < this.#text.length && ' \t\n\r'.includes(this.#text[this.#at]!)) this.#at++;
  }

  #fail(what: string): never {
    if (this.#at >= this.#text.length) throw new ArgumentsError(`the arguments end early (truncated JSON): ${what}`);
    throw new ArgumentsError(`${what} at character ${this.#at} (found ${JSON.stringify(this.#text[this.#at])})`);
  }

  #value(depth: number, path: string): Json {
    const char = this.#text[this.#at];
    if (char === '{' || char === '[') {
      if (depth + 1 > this.#cap) throw new ArgumentsError(`the arguments nest deeper than ${this.#cap} levels (at ${path || '(arguments)'})`);
      return char === '{' ? this.#object(depth + 1, path) : this.#array(depth + 1, path);
    }
    if (char === '"') return this.#string(path);
    if (char === 't' || char === 'f' || char === 'n') {
      for (const [word, value] of [
        ['true', true],
        ['false', false],
        ['null', null],
      ] as const) {
        if (this.#text.startsWith(word, this.#at)) {
          this.#at += word.length;
          return value;
        }
      }
      this.#fail('expected a JSON value');
    }
    NUMBER.lastIndex = this.#at;
    const match = NUMBER.exec(this.#text);
    if (match === null || match[0] === '' || match[0] === '-') this.#fail('expected a JSON value');
    this.#at += match[0].length;
    return Number(match[0]);
  }

  #object(depth: number, path: string): Json {
    this.#at++;
    const result: Record<string, Json> = {};
    const keys = new Set<string>();
    this.#space();
    if (this.#text[this.#at] === '}') {
      this.#at++;
      return result;
    }
    for (;;) {
      this.#space();
      if (this.#text[this.#at] !== '"') this.#fail('expected a property name');
      const key = this.#string(path);
      if (keys.has(key)) throw new ArgumentsError(`duplicate key ${JSON.stringify(key)} in the object at ${path || '(arguments)'}`);
      keys.add(key);
      this.#space();
      if (this.#text[this.#at] !== ':') this.#fail('expected ":"');
      this.#at++;
      this.#space();
      const child = `${path}.${key}`;
      Object.defineProperty(result, key, { value: this.#value(depth, child), enumerable: true, writable: true, configurable: true });
      this.#space();
      const next = this.#text[this.#at];
      if (next === ',') {
        this.#at++;
        continue;
      }
      if (next === '}') {
        this.#at++;
        return result;
      }
      this.#fail('expected "," or "}"');
    }
  }

  #array(depth: number, path: string): Json {
    this.#at++;
    const result: Json[] = [];
    this.#space();
    if (this.#text[this.#at] === ']') {
      this.#at++;
      return result;
    }
    for (;;) {
      this.#space();
      result.push(this.#value(depth, `${path}[${result.length}]`));
      this.#space();
      const next = this.#text[this.#at];
      if (next === ',') {
        this.#at++;
        continue;
      }
      if (next === ']') {
        this.#at++;
        return result;
      }
      this.#fail('expected "," or "]"');
    }
  }

  #string(path: string): string {
    this.#at++;
    let out = '';
    for (;;) {
      if (this.#at >= this.#text.length) this.#fail('a string is not closed');
      const code = this.#text.charCodeAt(this.#at);
      if (code === 0x22) {
        this.#at++;
        break;
      }
      if (code < 0x20) this.#fail('a control character in a string');
      if (code !== 0x5c) {
        out += this.#text[this.#at++];
        continue;
      }
      const escape = this.#text[this.#at + 1];
      if (escape === undefined) this.#fail('a string is not closed');
      const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
      if (escape in simple) {
        out += simple[escape];
        this.#at += 2;
        continue;
      }
      if (escape !== 'u') this.#fail('an invalid escape in a string');
      const hex = this.#text.slice(this.#at + 2, this.#at + 6);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.#fail('an invalid \\u escape in a string');
      out += String.fromCharCode(parseInt(hex, 16));
      this.#at += 6;
    }
    if (hasUnpairedSurrogate(out)) throw new ArgumentsError(`an unpaired surrogate in the string at ${path || '(arguments)'}`);
    return out;
  }
}
