/**
 * The hashing behind the nearest-recording index's tokens (see NearestIndex): one definition for
 * the walk over parsed values and the one over a tape line's bytes, which must agree bit for bit.
 */

// FNV-1a over 32-bit words (tags, lengths, indexes, four bytes of UTF-8 text), finished with
// murmur3's mixer so that the low bits (the dictionary slot) depend on every input.
export const FNV_OFFSET = 0x811c9dc5;
export const FNV_PRIME = 0x01000193;

// Tags fed into a hash: path steps, then what the token is. Text is fed with its length first
// (mixText), so no two paths or values feed the same sequence.
export const STEP_PROPERTY = 1;
export const STEP_INDEX = 2;
export const MEMBER = 3;
export const STRING = 4;
export const NUMBER = 5;
export const TRUE = 6;
export const FALSE = 7;
export const NULL = 8;
export const MISSING = 9;
export const OTHER = 10;
export const OBJECT = 11;
export const ARRAY = 12;
export const ROOT_BODY = 13;
export const ROOT_HEADERS = 14;
export const ROOT_QUERY = 15;

export function mix(hash: number, code: number): number {
  return Math.imul(hash ^ code, FNV_PRIME);
}

// Text is hashed as its UTF-8 bytes (so that a tape line's strings are hashed as they lie in the
// file, undecoded): the byte length, then four bytes a step (a quarter of the multiplications); the
// length keeps "a" and "a\u0000" apart, and a property name from running into what follows it.
export function mixText(hash: number, text: string): number {
  const length = text.length;
  // As many bytes as code units: all ASCII, each code unit its byte.
  if (Buffer.byteLength(text, 'utf8') !== length) {
    if (scratch.length < length * 3) scratch = Buffer.allocUnsafe(Math.max(length * 3, scratch.length * 2));
    return mixBytes(hash, scratch, 0, scratch.write(text, 0, 'utf8'));
  }
  hash = mix(hash, length);
  let index = 0;
  for (; index + 3 < length; index += 4)
    hash = Math.imul(
      hash ^ (text.charCodeAt(index) | (text.charCodeAt(index + 1) << 8) | (text.charCodeAt(index + 2) << 16) | (text.charCodeAt(index + 3) << 24)),
      FNV_PRIME,
    );
  if (index < length) {
    let rest = 0;
    for (let shift = 0; index < length; index++, shift += 8) rest |= text.charCodeAt(index) << shift;
    hash = Math.imul(hash ^ rest, FNV_PRIME);
  }
  return hash;
}

// Where mixText encodes text that is not all ASCII (at most three bytes per code unit).
let scratch = Buffer.allocUnsafe(1024);

/** mixText over the UTF-8 bytes `buffer[start, end)`, as they are. */
export function mixBytes(hash: number, buffer: Uint8Array, start: number, end: number): number {
  hash = mix(hash, end - start);
  let index = start;
  for (; index + 3 < end; index += 4)
    hash = Math.imul(hash ^ (buffer[index]! | (buffer[index + 1]! << 8) | (buffer[index + 2]! << 16) | (buffer[index + 3]! << 24)), FNV_PRIME);
  if (index < end) {
    let rest = 0;
    for (let shift = 0; index < end; index++, shift += 8) rest |= buffer[index]! << shift;
    hash = Math.imul(hash ^ rest, FNV_PRIME);
  }
  return hash;
}

export function finish(hash: number): number {
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}
