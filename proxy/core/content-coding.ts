import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';

/**
 * The bytes under a `content-encoding`, undoing each coding from the last applied to the first
 * (`deflate, gzip` was deflated, then gzipped). Undefined when a coding is not one this Node
 * decodes (`zstd`, `compress`, a private one): the caller keeps the raw bytes and the header,
 * never a guess. Throws when the bytes do not decode as their header says.
 */
export function decodeContent(bytes: Buffer, encoding: string | undefined, maxOutputLength?: number): Buffer | undefined {
  // A small compressed body can inflate to gigabytes: no step may give more than the limit
  // (zlib throws ERR_BUFFER_TOO_LARGE past it).
  const options = maxOutputLength === undefined ? {} : { maxOutputLength: Math.max(1, maxOutputLength) };
  let decoded = bytes;
  for (const coding of contentCodings(encoding).reverse()) {
    switch (coding) {
      case 'gzip':
      case 'x-gzip':
        decoded = gunzipSync(decoded, options);
        break;
      case 'deflate':
        decoded = inflateSync(decoded, options);
        break;
      case 'br':
        decoded = brotliDecompressSync(decoded, options);
        break;
      default:
        return undefined;
    }
  }
  return decoded;
}

/** The codings of a `content-encoding` header in the order they were applied, `identity` left out. */
export function contentCodings(encoding: string | undefined): string[] {
  if (encoding === undefined) return [];
  return encoding
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
}
