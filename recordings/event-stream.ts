// The one file that imports @smithy/core's event stream codec: AWS's binary event stream
// (application/vnd.amazon.eventstream), as Bedrock's ConverseStream and
// InvokeModelWithResponseStream answer.
import { crc32 } from 'node:zlib';
import { EventStreamCodec, type MessageHeaders } from '@smithy/core/event-streams';
import type { EventStreamBytes, EventStreamEvent, Frame } from './tape-format.js';

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'),
  (text) => Buffer.from(text, 'utf8'),
);

/**
 * The smallest message there is: the prelude (total length, headers length, prelude CRC32) and the
 * message CRC32, with no headers and no payload.
 */
export const EVENT_STREAM_MINIMUM_MESSAGE_BYTES = 16;

/** How many bytes a message says it has, from the first 4 bytes of its prelude (big-endian). */
export function eventStreamMessageLength(prelude: Buffer): number {
  return prelude.readUInt32BE(0);
}

/**
 * The frame one received message is stored as: its readable {@link EventStreamEvent} when
 * encoding that again gives exactly `message`, else `base64` of its raw bytes.
 */
export function eventStreamFrame(message: Buffer, atMs: number): Frame {
  const event = readEventStreamMessage(message);
  return event === undefined ? { atMs, base64: message.toString('base64') } : { atMs, event };
}

/**
 * The readable form of one whole message, or undefined when no readable form gives back its exact
 * bytes: a CRC that fails (the codec checks both), a header that is not a string, a payload that is
 * not UTF-8, a repeated header name.
 */
export function readEventStreamMessage(message: Buffer): EventStreamEvent | undefined {
  let decoded: { headers: MessageHeaders; body: Uint8Array };
  try {
    decoded = codec.decode(message);
  } catch {
    return undefined;
  }
  const headers: Array<[string, string]> = [];
  for (const [name, header] of Object.entries(decoded.headers)) {
    if (header.type !== 'string') return undefined;
    headers.push([name, header.value]);
  }
  const payload = utf8(decoded.body);
  if (payload === undefined) return undefined;
  // Object.fromEntries defines each name as its own property, `__proto__` too.
  const headerObject = Object.fromEntries(headers);
  const json = compactJson(payload);
  const candidates: EventStreamEvent[] = [];
  if (isObject(json) && typeof json.bytes === 'string') {
    const { bytes, ...rest } = json;
    const inner = readBytes(bytes);
    if (inner !== undefined) candidates.push({ headers: headerObject, json: rest, bytes: inner });
  }
  candidates.push(json === NOT_JSON ? { headers: headerObject, text: payload } : { headers: headerObject, json });
  // Only a form that gives back the bytes received is kept: a name JavaScript reorders (an
  // integer-like one), a repeated header, `bytes` not first, base64 written another way all fail here.
  return candidates.find((candidate) => encodeEventStreamEvent(candidate).equals(message));
}

/**
 * The bytes of a message from its readable form: prelude (total length, headers length, CRC32),
 * headers, payload, message CRC32, laid out as @smithy/core's codec lays them out (the tests hold
 * the two byte for byte). Written here rather than by the codec, whose per-header encoding was
 * most of a replayed or faked stream's time; a header block is made once per set of headers.
 */
export function encodeEventStreamEvent(event: EventStreamEvent): Buffer {
  const headers = headerBlock(event.headers);
  if (headers === undefined) return codecEncode(event);
  if (!('text' in event) && event.bytes !== undefined && isEmptyObject(event.json)) {
    const inner = 'text' in event.bytes ? event.bytes.text : JSON.stringify(event.bytes.json);
    if (typeof inner === 'string') return bytesOnlyMessage(headers, inner);
  }
  const payload = payloadOf(event);
  const total = 12 + headers.length + Buffer.byteLength(payload, 'utf8') + 4;
  const message = Buffer.allocUnsafe(total);
  message.writeUInt32BE(total, 0);
  message.writeUInt32BE(headers.length, 4);
  message.writeUInt32BE(crc32(message.subarray(0, 8)), 8);
  headers.copy(message, 12);
  message.write(payload, 12 + headers.length, 'utf8');
  message.writeUInt32BE(crc32(message.subarray(0, total - 4)), total - 4);
  return message;
}

// A chunk that is `{"bytes":"…"}` alone (every InvokeModelWithResponseStream chunk the fake sends)
// is written straight into its message: the inner payload's UTF-8 into a scratch buffer, its
// base64 into the message, and the CRC32s from what is kept of the part before the base64, the
// same for every message of a length with these headers (prelude, headers, `{"bytes":"`). This was
// most of the fake's InvokeModelWithResponseStream time: building the payload string, base64 of a
// Buffer, writing it as UTF-8, two CRC32 calls on subarrays (node:zlib's costs a few hundred ns a call).
const BYTES_OPEN = Buffer.from('{"bytes":"', 'latin1');
const BASE64_DIGITS = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', 'latin1');
const QUOTE = 0x22;
const CLOSE_BRACE = 0x7d;
const EQUALS = 0x3d;
const scratch = Buffer.allocUnsafe(16 * 1024);

interface KeptPrefix {
  bytes: Buffer;
  crc: number;
}
// By header block, then by message length; cleared whole when full.
const KEPT_PREFIXES = 1024;
const prefixesByBlock = new WeakMap<Buffer, Map<number, KeptPrefix>>();

function bytesOnlyMessage(headers: Buffer, inner: string): Buffer {
  // A JavaScript string of n UTF-16 units is at most 3n bytes of UTF-8.
  const utf8 = inner.length * 3 <= scratch.length ? scratch : Buffer.from(inner, 'utf8');
  const length = utf8 === scratch ? scratch.write(inner, 0, 'utf8') : utf8.length;
  const total = 12 + headers.length + BYTES_OPEN.length + Math.ceil(length / 3) * 4 + 2 + 4;
  const prefix = prefixOf(headers, total);
  const message = Buffer.allocUnsafe(total);
  prefix.bytes.copy(message, 0);
  let at = prefix.bytes.length;
  let index = 0;
  for (; index + 2 < length; index += 3) {
    const triple = (utf8[index]! << 16) | (utf8[index + 1]! << 8) | utf8[index + 2]!;
    message[at++] = BASE64_DIGITS[triple >>> 18]!;
    message[at++] = BASE64_DIGITS[(triple >>> 12) & 63]!;
    message[at++] = BASE64_DIGITS[(triple >>> 6) & 63]!;
    message[at++] = BASE64_DIGITS[triple & 63]!;
  }
  if (index < length) {
    const two = index + 1 < length;
    const triple = (utf8[index]! << 16) | (two ? utf8[index + 1]! << 8 : 0);
    message[at++] = BASE64_DIGITS[triple >>> 18]!;
    message[at++] = BASE64_DIGITS[(triple >>> 12) & 63]!;
    message[at++] = two ? BASE64_DIGITS[(triple >>> 6) & 63]! : EQUALS;
    message[at++] = EQUALS;
  }
  message[at++] = QUOTE;
  message[at++] = CLOSE_BRACE;
  message.writeUInt32BE(crc32Of(message, prefix.bytes.length, at, prefix.crc), at);
  return message;
}

/** The prelude, the headers and `{"bytes":"` of a message of `total` bytes, and their CRC32. */
function prefixOf(headers: Buffer, total: number): KeptPrefix {
  let byLength = prefixesByBlock.get(headers);
  if (byLength === undefined) prefixesByBlock.set(headers, (byLength = new Map()));
  let prefix = byLength.get(total);
  if (prefix === undefined) {
    const bytes = Buffer.allocUnsafe(12 + headers.length + BYTES_OPEN.length);
    bytes.writeUInt32BE(total, 0);
    bytes.writeUInt32BE(headers.length, 4);
    bytes.writeUInt32BE(crc32(bytes.subarray(0, 8)), 8);
    headers.copy(bytes, 12);
    BYTES_OPEN.copy(bytes, 12 + headers.length);
    prefix = { bytes, crc: crc32(bytes) };
    if (byLength.size >= KEPT_PREFIXES) byLength.clear();
    byLength.set(total, prefix);
  }
  return prefix;
}

// CRC-32 (the zlib one), four bytes a step: node:zlib's crc32 would need a subarray and costs more
// in the call than in the sum for the hundred or so bytes of a chunk's base64.
const CRC_TABLES = crcTables();

function crcTables(): Uint32Array[] {
  const tables = [new Uint32Array(256), new Uint32Array(256), new Uint32Array(256), new Uint32Array(256)];
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
    tables[0]![byte] = crc;
  }
  for (let byte = 0; byte < 256; byte++)
    for (let step = 1; step < 4; step++) tables[step]![byte] = (tables[step - 1]![byte]! >>> 8) ^ tables[0]![tables[step - 1]![byte]! & 0xff]!;
  return tables;
}

/** The CRC32 of `bytes[start, end)` continued from `crc` (that of the bytes before): what crc32(bytes.subarray(start, end), crc) gives. */
export function crc32Of(bytes: Uint8Array, start: number, end: number, crc = 0): number {
  const [one, two, three, four] = CRC_TABLES as [Uint32Array, Uint32Array, Uint32Array, Uint32Array];
  let value = ~crc;
  let at = start;
  for (; at + 4 <= end; at += 4) {
    value ^= bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24);
    value = four[value & 0xff]! ^ three[(value >>> 8) & 0xff]! ^ two[(value >>> 16) & 0xff]! ^ one[value >>> 24]!;
  }
  for (; at < end; at++) value = one[(value ^ bytes[at]!) & 0xff]! ^ (value >>> 8);
  return ~value >>> 0;
}

// A stream's messages share a few sets of headers (`:event-type: chunk`, …): each is encoded once.
const KEPT_HEADER_BLOCKS = 64;
const headerBlocks = new Map<string, Buffer>();
const blocksByObject = new WeakMap<object, Buffer>();

/**
 * String headers as the codec writes them: per header its name's length (1 byte) and name, type
 * 7 (string), its value's length (2 bytes) and value. Undefined for a name or value too long for
 * that (the codec then says what is wrong).
 */
function headerBlock(headers: Readonly<Record<string, string>>): Buffer | undefined {
  // The same headers object (a tape's frame replayed again, a fake's constant) is looked up by identity.
  const seen = blocksByObject.get(headers);
  if (seen !== undefined) return seen;
  const entries = Object.entries(headers);
  const key = entries.map(([name, value]) => `${name}\u0000${value}`).join('\u0000');
  const known = headerBlocks.get(key);
  if (known !== undefined) {
    blocksByObject.set(headers, known);
    return known;
  }
  const parts: Buffer[] = [];
  for (const [name, value] of entries) {
    const nameBytes = Buffer.from(name, 'utf8');
    const valueBytes = Buffer.from(value, 'utf8');
    if (nameBytes.length > 255 || valueBytes.length > 32767) return undefined;
    const part = Buffer.allocUnsafe(1 + nameBytes.length + 3 + valueBytes.length);
    part.writeUInt8(nameBytes.length, 0);
    nameBytes.copy(part, 1);
    part.writeUInt8(7, 1 + nameBytes.length);
    part.writeUInt16BE(valueBytes.length, 2 + nameBytes.length);
    valueBytes.copy(part, 4 + nameBytes.length);
    parts.push(part);
  }
  const block = Buffer.concat(parts);
  if (headerBlocks.size >= KEPT_HEADER_BLOCKS) headerBlocks.clear();
  headerBlocks.set(key, block);
  blocksByObject.set(headers, block);
  return block;
}

/** The codec's own encoding, for what {@link headerBlock} does not write. */
function codecEncode(event: EventStreamEvent): Buffer {
  const headers: MessageHeaders = {};
  for (const [name, value] of Object.entries(event.headers)) {
    Object.defineProperty(headers, name, { value: { type: 'string', value }, enumerable: true, writable: true, configurable: true });
  }
  const encoded = codec.encode({ headers, body: Buffer.from(payloadOf(event), 'utf8') });
  return Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength);
}

function payloadOf(event: EventStreamEvent): string {
  if ('text' in event) return event.text;
  if (event.bytes === undefined) return JSON.stringify(event.json);
  const inner = 'text' in event.bytes ? event.bytes.text : JSON.stringify(event.bytes.json);
  const bytes = Buffer.from(inner, 'utf8').toString('base64');
  // `bytes` first, as Bedrock writes it; the exactness check at record time refuses any other order.
  // Base64 needs no escaping, so the object is written around it: the same text JSON.stringify
  // gives `{bytes, ...json}` for a plain object without a `bytes` of its own.
  const rest = event.json;
  if (isObject(rest) && Object.getPrototypeOf(rest) === Object.prototype && !Object.hasOwn(rest, 'bytes')) {
    if (Object.keys(rest).length === 0) return `{"bytes":"${bytes}"}`;
    const members = JSON.stringify(rest);
    return members === '{}' ? `{"bytes":"${bytes}"}` : `{"bytes":"${bytes}",${members.slice(1)}`;
  }
  return JSON.stringify({ bytes, ...(rest as object) });
}

const NOT_JSON = Symbol('not compact JSON');

// The payload parsed, only when compact JSON.stringify writes it back the same.
function compactJson(text: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
  return JSON.stringify(parsed) === text ? parsed : NOT_JSON;
}

function readBytes(base64: string): EventStreamBytes | undefined {
  const bytes = Buffer.from(base64, 'base64');
  if (bytes.toString('base64') !== base64) return undefined;
  const text = utf8(bytes);
  if (text === undefined) return undefined;
  const json = compactJson(text);
  return json === NOT_JSON ? { text } : { json };
}

function utf8(bytes: Uint8Array): string | undefined {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = buffer.toString('utf8');
  // Invalid UTF-8 decodes to U+FFFD; only then is the slower comparison needed.
  if (!text.includes('\uFFFD')) return text;
  return Buffer.from(text, 'utf8').equals(buffer) ? text : undefined;
}

function isEmptyObject(value: unknown): boolean {
  return isObject(value) && Object.getPrototypeOf(value) === Object.prototype && Object.keys(value).length === 0;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
