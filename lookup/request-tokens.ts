import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  keysJsonBodyAsIs,
  WEBSOCKET_MESSAGE_METHOD,
  type CompiledKeyRules,
} from '../recordings/internal.js';
import type { ContainerSink, LeafSink, TokenReader } from './nearest-index.js';
import {
  ARRAY,
  FALSE,
  FNV_OFFSET,
  MEMBER,
  NULL,
  NUMBER,
  OBJECT,
  ROOT_BODY,
  ROOT_HEADERS,
  ROOT_QUERY,
  STEP_INDEX,
  STEP_PROPERTY,
  STRING,
  TRUE,
  finish,
  mix,
  mixBytes,
  mixText,
} from './token-hash.js';

const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

// As deep as a line may nest (MAX_JSON_DEPTH), less the two levels above a body.
const MAX_BODY_DEPTH = 509;
// Past this many members an object's names are checked for repeats with a set.
const FEW_MEMBERS = 24;
const TRUE_BYTES = Buffer.from('true');
const FALSE_BYTES = Buffer.from('false');
const NULL_BYTES = Buffer.from('null');
const JSONRPC_NAME = Buffer.from('"jsonrpc"');
const WEBSOCKET_METHOD = Buffer.from(`"method":"${WEBSOCKET_MESSAGE_METHOD}"`);

// A sink outside read(): nothing.
const NO_SINK: LeafSink & ContainerSink = { leaf: () => undefined, container: () => undefined };

// The request's own fields, told apart by their bytes (no string is made of a name).
const FIELD_OTHER = 0;
const FIELD_BODY = 1;
const FIELD_HEADERS = 2;
const FIELD_QUERY = 4;
const FIELD_PATH = 8;
const FIELD_JSON = 16;

/**
 * Reads the index tokens of a recorded request straight from the bytes of its JSON in a tape line
 * (as the writer puts it: no whitespace), the same tokens `NearestIndex.add` computes from
 * `comparedValues(keyInputs(…))`, without parsing the line into objects: indexing a
 * 100,000-exchange tape at load then costs a scan of its requests. `read` gives up (false) on
 * what it does not read — normalizers, a body not JSON, a Gemini turn, a repeated member, anything
 * unexpected — and the caller then reads that request parsed. One reader serves every line in turn
 * ({@link RequestTokenReader.at}); it allocates nothing per line.
 */
export class RequestTokenReader implements TokenReader {
  readonly #rules: CompiledKeyRules;
  #buffer: Buffer = Buffer.alloc(0);
  #at = 0;
  #end = 0;
  #plain = false;
  #jsonRpc = false;
  #leaves: LeafSink = NO_SINK;
  #containers: ContainerSink = NO_SINK;
  // The member hashes of the objects being read, innermost last (#top of them), to find a repeated name.
  #members = new Int32Array(64);
  #top = 0;
  // The key headers kept from the line being read (#kept of them), to find a repeated one.
  readonly #keptHeaders: string[] = [];
  // The key headers' names, as bytes to compare a line's names with.
  readonly #headerNames: Array<[string, Buffer]>;

  constructor(rules: CompiledKeyRules) {
    this.#rules = rules;
    this.#headerNames = [...rules.headers].map((name) => [name, Buffer.from(name, 'utf8')]);
  }

  /** Points the reader at the request `buffer[start, end)`; returns it, for `index.addRead(reader.at(…))`. */
  at(buffer: Buffer, start: number, end: number): this {
    this.#buffer = buffer;
    this.#at = start;
    this.#end = end;
    const request = buffer.subarray(start, end);
    // Most requests hold no escape: their strings are then read without looking for one.
    this.#plain = request.indexOf(BACKSLASH) < 0;
    // A JSON-RPC message keys without its id, a WebSocket message without its event id (see keyInputs): read parsed.
    this.#jsonRpc = request.indexOf(JSONRPC_NAME) >= 0 || request.indexOf(WEBSOCKET_METHOD) >= 0;
    return this;
  }

  read(leaves: LeafSink, containers: ContainerSink): boolean {
    if (this.#rules.normalizers.length > 0 || this.#jsonRpc) return false;
    this.#leaves = leaves;
    this.#containers = containers;
    this.#top = 0;
    try {
      return this.#request();
    } finally {
      this.#leaves = NO_SINK;
      this.#containers = NO_SINK;
    }
  }

  #request(): boolean {
    const buffer = this.#buffer;
    if (buffer[this.#at] !== OPEN_BRACE || buffer[this.#at + 1] === CLOSE_BRACE) return false;
    this.#at++;
    let seen = 0;
    let asIs = false;
    for (;;) {
      const field = this.#field();
      if (field < 0 || (seen & field) !== 0 || buffer[this.#at] !== COLON) return false;
      seen |= field;
      this.#at++;
      if (field === FIELD_BODY) {
        if (!this.#body()) return false;
      } else if (field === FIELD_HEADERS) {
        if (!this.#headers()) return false;
      } else if (field === FIELD_QUERY) {
        if (!this.#query()) return false;
      } else if (field === FIELD_PATH) {
        const start = this.#at;
        if (buffer[start] !== QUOTE || !this.#skipString()) return false;
        asIs = this.#keysBodyAsIs(start, this.#at);
      } else if (!this.#skip()) return false;
      const next = buffer[this.#at++];
      if (next === CLOSE_BRACE) break;
      if (next !== COMMA) return false;
    }
    if (this.#at !== this.#end || (seen & FIELD_HEADERS) === 0 || (seen & FIELD_QUERY) === 0 || (seen & FIELD_PATH) === 0 || !asIs) return false;
    // No body keys as null.
    if ((seen & FIELD_BODY) === 0) this.#leaves.leaf(finish(mix(mix(FNV_OFFSET, ROOT_BODY), NULL)));
    return true;
  }

  // Which of the fields read here the name at #at is (FIELD_OTHER for the rest), moving past it; -1 when it is no plain name.
  #field(): number {
    const buffer = this.#buffer;
    const start = this.#at + 1;
    if (buffer[this.#at] !== QUOTE) return -1;
    let at = start;
    while (at < this.#end && buffer[at] !== QUOTE && buffer[at] !== BACKSLASH) at++;
    if (buffer[at] !== QUOTE) return -1;
    this.#at = at + 1;
    const length = at - start;
    const first = buffer[start];
    if (length === 4 && first === 0x62 && buffer[start + 1] === 0x6f && buffer[start + 2] === 0x64 && buffer[start + 3] === 0x79) return FIELD_BODY;
    if (length === 4 && first === 0x70 && buffer[start + 1] === 0x61 && buffer[start + 2] === 0x74 && buffer[start + 3] === 0x68) return FIELD_PATH;
    if (length === 4 && first === 0x6a && buffer[start + 1] === 0x73 && buffer[start + 2] === 0x6f && buffer[start + 3] === 0x6e) return FIELD_JSON;
    if (length === 5 && first === 0x71 && buffer.toString('latin1', start, at) === 'query') return FIELD_QUERY;
    if (length === 7 && first === 0x68 && buffer.toString('latin1', start, at) === 'headers') return FIELD_HEADERS;
    return FIELD_OTHER;
  }

  // `{"json":…}`: the JSON walked at the body's root (other forms are read parsed).
  #body(): boolean {
    const buffer = this.#buffer;
    if (buffer[this.#at] !== OPEN_BRACE) return false;
    this.#at++;
    let json = false;
    for (;;) {
      const field = this.#field();
      if (field < 0 || buffer[this.#at] !== COLON) return false;
      this.#at++;
      if (field === FIELD_JSON && !json) {
        json = true;
        if (!this.#value(mix(FNV_OFFSET, ROOT_BODY), 0)) return false;
      } else if (field === FIELD_JSON || !this.#skip()) return false;
      const next = buffer[this.#at++];
      if (next === CLOSE_BRACE) return json;
      if (next !== COMMA) return false;
    }
  }

  // The key headers, as an object of strings.
  #headers(): boolean {
    const buffer = this.#buffer;
    const root = mix(FNV_OFFSET, ROOT_HEADERS);
    if (buffer[this.#at] !== OPEN_BRACE) return false;
    this.#at++;
    const kept = this.#keptHeaders;
    kept.length = 0;
    if (buffer[this.#at] === CLOSE_BRACE) this.#at++;
    else {
      for (;;) {
        if (buffer[this.#at] !== QUOTE) return false;
        const name = this.#keyHeader();
        if (name === undefined || buffer[this.#at] !== COLON || buffer[this.#at + 1] !== QUOTE) return false;
        this.#at++;
        // A repeated header keeps its last value when parsed: such a line is read parsed.
        if (name !== null) {
          if (kept.includes(name)) return false;
          kept.push(name);
          const member = mixText(mix(root, STEP_PROPERTY), name);
          this.#leaves.leaf(finish(mix(member, MEMBER)));
          const value = this.#text(mix(member, STRING));
          if (value === undefined) return false;
          this.#leaves.leaf(finish(value));
        } else if (!this.#skip()) return false;
        const next = buffer[this.#at++];
        if (next === CLOSE_BRACE) break;
        if (next !== COMMA) return false;
      }
    }
    this.#containers.container(finish(mix(root, OBJECT)), false, kept.length);
    return true;
  }

  // `[[name, value], …]`, keyed `name#position` as comparedValues does.
  #query(): boolean {
    const buffer = this.#buffer;
    const root = mix(FNV_OFFSET, ROOT_QUERY);
    if (buffer[this.#at] !== OPEN_BRACKET) return false;
    this.#at++;
    let count = 0;
    if (buffer[this.#at] === CLOSE_BRACKET) this.#at++;
    else {
      for (;;) {
        if (buffer[this.#at] !== OPEN_BRACKET) return false;
        this.#at++;
        const name = this.#string();
        if (name === undefined || buffer[this.#at] !== COMMA || buffer[this.#at + 1] !== QUOTE) return false;
        this.#at++;
        const member = mixText(mix(root, STEP_PROPERTY), `${name}#${count}`);
        this.#leaves.leaf(finish(mix(member, MEMBER)));
        const value = this.#text(mix(member, STRING));
        if (value === undefined || buffer[this.#at] !== CLOSE_BRACKET) return false;
        this.#leaves.leaf(finish(value));
        this.#at++;
        count++;
        const next = buffer[this.#at++];
        if (next === CLOSE_BRACKET) break;
        if (next !== COMMA) return false;
      }
    }
    this.#containers.container(finish(mix(root, OBJECT)), false, count);
    return true;
  }

  // One JSON value at `path`, as walk() in nearest-index.ts tokenizes it parsed.
  #value(path: number, depth: number): boolean {
    const buffer = this.#buffer;
    const byte = buffer[this.#at];
    if (byte === QUOTE) {
      const hash = this.#text(mix(path, STRING));
      if (hash === undefined) return false;
      this.#leaves.leaf(finish(hash));
      return true;
    }
    if (byte === OPEN_BRACE) return depth < MAX_BODY_DEPTH && this.#object(path, depth);
    if (byte === OPEN_BRACKET) return depth < MAX_BODY_DEPTH && this.#array(path, depth);
    if (byte === MINUS || (byte !== undefined && byte >= ZERO && byte <= NINE)) return this.#number(path);
    if (this.#literal(TRUE_BYTES)) this.#leaves.leaf(finish(mix(path, TRUE)));
    else if (this.#literal(FALSE_BYTES)) this.#leaves.leaf(finish(mix(path, FALSE)));
    else if (this.#literal(NULL_BYTES)) this.#leaves.leaf(finish(mix(path, NULL)));
    else return false;
    return true;
  }

  #object(path: number, depth: number): boolean {
    const buffer = this.#buffer;
    this.#at++;
    let count = 0;
    const first = this.#top;
    let many: Set<number> | undefined;
    if (buffer[this.#at] === CLOSE_BRACE) this.#at++;
    else {
      for (;;) {
        if (buffer[this.#at] !== QUOTE) return false;
        const member = this.#text(mix(path, STEP_PROPERTY));
        if (member === undefined || buffer[this.#at] !== COLON) return false;
        // A repeated name keeps only its last value when parsed: such an object is read parsed.
        if (many !== undefined) {
          if (many.has(member)) return false;
          many.add(member);
        } else {
          const members = this.#members;
          for (let at = first; at < this.#top; at++) if (members[at] === member) return false;
          if (this.#top - first === FEW_MEMBERS) many = new Set([...members.subarray(first, this.#top), member]);
          else this.#push(member);
        }
        this.#at++;
        this.#leaves.leaf(finish(mix(member, MEMBER)));
        if (!this.#value(member, depth + 1)) return false;
        count++;
        const next = buffer[this.#at++];
        if (next === CLOSE_BRACE) break;
        if (next !== COMMA) return false;
      }
    }
    this.#top = first;
    this.#containers.container(finish(mix(path, OBJECT)), false, count);
    return true;
  }

  #array(path: number, depth: number): boolean {
    const buffer = this.#buffer;
    this.#at++;
    let count = 0;
    if (buffer[this.#at] === CLOSE_BRACKET) this.#at++;
    else {
      const step = mix(path, STEP_INDEX);
      for (;;) {
        if (!this.#value(mix(step, count), depth + 1)) return false;
        count++;
        const next = buffer[this.#at++];
        if (next === CLOSE_BRACKET) break;
        if (next !== COMMA) return false;
      }
    }
    this.#containers.container(finish(mix(path, ARRAY)), true, count);
    return true;
  }

  // A number is hashed as String() spells it: an integer of up to 15 digits is spelled as written.
  #number(path: number): boolean {
    const buffer = this.#buffer;
    const start = this.#at;
    let at = start;
    if (buffer[at] === MINUS) at++;
    const digits = at;
    while (at < this.#end && buffer[at]! >= ZERO && buffer[at]! <= NINE) at++;
    const integerEnd = at;
    while (at < this.#end && isNumberByte(buffer[at]!)) at++;
    this.#at = at;
    const length = integerEnd - digits;
    if (at === integerEnd && length > 0 && length <= 15 && (buffer[digits] !== ZERO || (length === 1 && digits === start))) {
      this.#leaves.leaf(finish(mixBytes(mix(path, NUMBER), buffer, start, at)));
      return true;
    }
    const value = Number(buffer.toString('latin1', start, at));
    if (Number.isNaN(value) || at === start) return false;
    this.#leaves.leaf(finish(mixText(mix(path, NUMBER), String(value))));
    return true;
  }

  #literal(bytes: Buffer): boolean {
    const buffer = this.#buffer;
    for (let index = 0; index < bytes.length; index++) if (buffer[this.#at + index] !== bytes[index]) return false;
    this.#at += bytes.length;
    return true;
  }

  #push(member: number): void {
    if (this.#top === this.#members.length) {
      const grown = new Int32Array(this.#members.length * 2);
      grown.set(this.#members);
      this.#members = grown;
    }
    this.#members[this.#top++] = member;
  }

  // mixText(seed, the string at #at), moving past it; undefined when it is no string.
  #text(seed: number): number | undefined {
    const buffer = this.#buffer;
    if (buffer[this.#at] !== QUOTE) return undefined;
    const start = this.#at + 1;
    if (this.#plain) {
      // No backslash in the request: the string ends at the next quote, and its bytes are its UTF-8.
      const close = buffer.indexOf(QUOTE, start);
      if (close < 0 || close >= this.#end) return undefined;
      this.#at = close + 1;
      return mixBytes(seed, buffer, start, close);
    }
    if (!this.#skipString()) return undefined;
    const close = this.#at - 1;
    for (let at = start; at < close; at++) {
      if (buffer[at] === BACKSLASH) {
        const text = decode(buffer, start - 1, close + 1);
        return text === undefined ? undefined : mixText(seed, text);
      }
    }
    return mixBytes(seed, buffer, start, close);
  }

  // The string at #at, decoded, moving past it.
  #string(): string | undefined {
    const buffer = this.#buffer;
    if (buffer[this.#at] !== QUOTE) return undefined;
    const start = this.#at + 1;
    let at = start;
    let plain = true;
    for (;;) {
      if (at >= this.#end) return undefined;
      const byte = buffer[at]!;
      if (byte === QUOTE) break;
      if (byte === BACKSLASH) {
        plain = false;
        at += 2;
        continue;
      }
      if (byte >= 0x80 || byte < 0x20) plain = false;
      at++;
    }
    this.#at = at + 1;
    return plain ? buffer.toString('latin1', start, at) : decode(buffer, start - 1, at + 1);
  }

  // Past the string at #at, undecoded: its closing quote is the first not escaped by a backslash.
  #skipString(): boolean {
    const buffer = this.#buffer;
    const quote = this.#at;
    for (let from = quote + 1; ; ) {
      const close = buffer.indexOf(QUOTE, from);
      if (close < 0 || close >= this.#end) return false;
      let backslashes = 0;
      for (let back = close - 1; back > quote && buffer[back] === BACKSLASH; back--) backslashes++;
      if ((backslashes & 1) === 0) {
        this.#at = close + 1;
        return true;
      }
      from = close + 1;
    }
  }

  // Whether keyInputs keys the body sent to the path `buffer[start, end)` (quotes included) as it is.
  #keysBodyAsIs(start: number, end: number): boolean {
    const buffer = this.#buffer;
    let special = false;
    // Only a path with a colon (or an escape) can be a Gemini turn.
    for (let at = start + 1; at < end - 1 && !special; at++) special = buffer[at] === COLON || buffer[at] === BACKSLASH;
    if (!special) return true;
    const path = decode(buffer, start, end);
    return path !== undefined && keysJsonBodyAsIs(path);
  }

  // The key header named at #at (a name of the rules), moving past it; null for another header, undefined when it is no string.
  #keyHeader(): string | null | undefined {
    const buffer = this.#buffer;
    const start = this.#at;
    if (!this.#skipString()) return undefined;
    const end = this.#at;
    for (const [name, bytes] of this.#headerNames) {
      if (bytes.length !== end - start - 2) continue;
      let at = 0;
      while (at < bytes.length && buffer[start + 1 + at] === bytes[at]) at++;
      if (at === bytes.length) return name;
    }
    // A name with escapes may still spell a key header.
    for (let at = start + 1; at < end - 1; at++) {
      if (buffer[at] === BACKSLASH) {
        const name = decode(buffer, start, end);
        return name === undefined ? undefined : this.#rules.headers.has(name) ? name : null;
      }
    }
    return null;
  }

  // Past any value, unread.
  #skip(): boolean {
    const buffer = this.#buffer;
    const byte = buffer[this.#at];
    if (byte === QUOTE) return this.#skipString();
    if (byte !== OPEN_BRACE && byte !== OPEN_BRACKET) {
      while (this.#at < this.#end && buffer[this.#at] !== COMMA && buffer[this.#at] !== CLOSE_BRACE && buffer[this.#at] !== CLOSE_BRACKET) this.#at++;
      return this.#at < this.#end;
    }
    let depth = 0;
    while (this.#at < this.#end) {
      const next = buffer[this.#at]!;
      if (next === QUOTE) {
        if (!this.#skipString()) return false;
        continue;
      }
      this.#at++;
      if (next === OPEN_BRACE || next === OPEN_BRACKET) depth++;
      else if ((next === CLOSE_BRACE || next === CLOSE_BRACKET) && --depth === 0) return true;
    }
    return false;
  }
}

// The characters a JSON number is written with, past its integer digits.
function isNumberByte(byte: number): boolean {
  return (byte >= ZERO && byte <= NINE) || byte === 0x2e || byte === 0x65 || byte === 0x45 || byte === 0x2b || byte === MINUS;
}

// A JSON string with escapes or non-ASCII characters, quotes included, decoded.
function decode(buffer: Buffer, start: number, end: number): string | undefined {
  try {
    const text: unknown = JSON.parse(buffer.toString('utf8', start, end));
    return typeof text === 'string' ? text : undefined;
  } catch {
    return undefined;
  }
}
