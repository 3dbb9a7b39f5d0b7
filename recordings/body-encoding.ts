import type { Body } from './tape-format.js';

/** True for `application/json`, `application/problem+json` and similar. */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
}

/**
 * Chooses the most readable faithful form for a payload: parsed JSON when the content type
 * says JSON (or says nothing) and the bytes parse, text when the bytes are valid UTF-8,
 * otherwise base64. Returns undefined for an empty payload.
 */
export function encodeBody(bytes: Uint8Array, contentType: string | undefined): Body | undefined {
  if (bytes.length === 0) return undefined;
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = utf8OrUndefined(buffer);
  if (text === undefined) return { base64: buffer.toString('base64') };
  if (contentType === undefined || isJsonContentType(contentType)) {
    const first = text.trimStart()[0];
    if (contentType !== undefined || first === '{' || first === '[') {
      try {
        return { json: JSON.parse(text) as unknown };
      } catch {
        // Declared JSON that does not parse is kept as text, exactly.
      }
    }
  }
  return { text };
}

/** The bytes a recorded body stands for. JSON bodies come back as compact JSON. */
export function decodeBody(body: Body | undefined): Buffer {
  if (body === undefined) return Buffer.alloc(0);
  if ('json' in body) return Buffer.from(JSON.stringify(body.json));
  if ('text' in body) return Buffer.from(body.text, 'utf8');
  return Buffer.from(body.base64, 'base64');
}

/** The UTF-8 text of the bytes, or undefined when they are not valid UTF-8. */
export function utf8OrUndefined(bytes: Buffer): string | undefined {
  const text = bytes.toString('utf8');
  // Invalid sequences decode to U+FFFD; a genuine U+FFFD re-encodes to the same bytes.
  if (text.includes('\uFFFD') && !Buffer.from(text, 'utf8').equals(bytes)) return undefined;
  return text;
}
