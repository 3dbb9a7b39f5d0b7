import { sha256Hex } from './exchange-key.js';
import { excerpt, parseJsonPath } from '../core/internal.js';
import { jsonLayout } from './json-layout.js';
import { hasLossyNumber } from './lossy-numbers.js';
import { keyOrderFits, literalFits, renderJson } from './render-json.js';
import type { Body, JsonBody, JsonLayout } from './tape-format.js';

/** True for `application/json`, `application/problem+json` and similar. */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json');
}

export interface EncodeBodyOptions {
  /**
   * Keep what gives back the exact bytes of a JSON body: its `sha256` and, when the bytes are not
   * compact JSON, the {@link JsonLayout} that writes them; bytes no layout reproduces are kept as
   * `text`. Response bodies are encoded so, for replay. Request bodies are not: they are keyed from
   * `json` alone, and `request.bodySha256` fingerprints their bytes.
   * @default false
   */
  exact?: boolean;
}

/**
 * Chooses the most readable faithful form for a payload: parsed JSON when the content type
 * says JSON (or says nothing) and the bytes parse to the values they spell (no `1e400`, `-0` or
 * over-long number), text when the bytes are valid UTF-8,
 * otherwise base64. Returns undefined for an empty payload. With `exact`, a JSON body also
 * carries what gives back its exact bytes, or is kept as text when nothing would.
 */
export function encodeBody(bytes: Uint8Array, contentType: string | undefined, options: EncodeBodyOptions = {}): Body | undefined {
  if (bytes.length === 0) return undefined;
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = utf8OrUndefined(buffer);
  if (text === undefined) return { base64: buffer.toString('base64') };
  if (contentType === undefined || isJsonContentType(contentType)) {
    const first = text.trimStart()[0];
    if (contentType !== undefined || first === '{' || first === '[') {
      let json: unknown;
      try {
        json = JSON.parse(text) as unknown;
      } catch {
        // Declared JSON that does not parse is kept as text, exactly.
        return { text };
      }
      // A number JSON.parse changes (1e400, -0, more digits than a double holds) would be keyed
      // and stored as another: such a body is kept, and keyed, as the text it was.
      if (options.exact !== true) return hasLossyNumber(text) ? { text } : { json };
      return exactJsonBody(buffer, text, json) ?? { text };
    }
  }
  return { text };
}

/** What {@link decodeBody} reports about a body that no longer gives the bytes it was recorded from. */
export interface BodyMismatch {
  /** Where, in JSON access syntax from the body: `.json` itself, or the member found edited (`.json.id`). */
  path: string;
  /** What was found there, e.g. `json holds 9007199254740994; layout.literals[".id"] was recorded as 9007199254740993`. */
  detail: string;
  /** The `sha256` the body records. */
  recordedSha256: string;
  /** sha256 of the bytes the body gives now (what replay serves). */
  actualSha256: string;
  /** Length of the bytes the body gives now. */
  actualLength: number;
}

export interface DecodeBodyOptions {
  /** Called when a JSON body has a `sha256` its bytes do not match (the body was edited by hand). */
  onMismatch?: (mismatch: BodyMismatch) => void;
}

/**
 * The bytes a recorded body stands for. A JSON body is written with its layout: the exact bytes
 * recorded when it has one (or a `sha256` and no layout), compact JSON when it has neither
 * (request bodies, and version 1 tapes).
 */
export function decodeBody(body: Body | undefined, options: DecodeBodyOptions = {}): Buffer {
  if (body === undefined) return Buffer.alloc(0);
  if ('json' in body) {
    const bytes = Buffer.from(renderJson(body.json, body.layout), 'utf8');
    if (options.onMismatch !== undefined && body.sha256 !== undefined) {
      const actual = sha256Hex(bytes);
      if (actual !== body.sha256) options.onMismatch({ ...whereEdited(body), recordedSha256: body.sha256, actualSha256: actual, actualLength: bytes.length });
    }
    return bytes;
  }
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

// Characters of literals and key orders a body may carry beyond half its own length.
const MEMBERWISE_ALLOWANCE = 256;

// The parsed body with its layout, if rendering what a tape will hold gives back these exact bytes.
function exactJsonBody(bytes: Buffer, text: string, json: unknown): JsonBody | undefined {
  const layout = jsonLayout(text, json);
  if (layout === undefined) return undefined;
  const body: JsonBody = { json, sha256: sha256Hex(bytes) };
  if (Object.keys(layout).length > 0) {
    // Literals and key orders are for the odd member; a body that needs them everywhere (a server
    // writing every number as 0.50) reads better, and is smaller, as its text.
    const memberwise = JSON.stringify([layout.keyOrder, layout.literals]).length;
    if (memberwise > MEMBERWISE_ALLOWANCE + text.length / 2) return undefined;
    body.layout = layout;
  }
  // Checked from what the tape will hold (the line's JSON read back), not from the live value.
  // Without literals the two are the same: JSON writes back every value JSON.parse gives but
  // -0 and ±Infinity (as 0 and null), and the layout writing this value as the text (all numbers
  // by JSON.stringify) proves it holds neither; the text's bytes are the body's.
  if (layout.literals === undefined) return body;
  const stored = JSON.parse(JSON.stringify(body)) as JsonBody;
  return sha256Hex(Buffer.from(renderJson(stored.json, stored.layout), 'utf8')) === body.sha256 ? body : undefined;
}

// The first literal or key order that no longer fits its member points at the edit; otherwise
// the edit could be anywhere in the body.
function whereEdited(body: JsonBody): { path: string; detail: string } {
  const layout: JsonLayout = body.layout ?? {};
  for (const [path, literal] of Object.entries(layout.literals ?? {})) {
    const value = valueAt(body.json, path);
    if (value.found && literalFits(literal, value.value)) continue;
    return {
      path: `.json${path}`,
      detail: value.found
        ? `json holds ${brief(value.value)}; layout.literals[${JSON.stringify(path)}] was recorded as ${literal}`
        : `json holds nothing there; layout.literals[${JSON.stringify(path)}] was recorded as ${literal}`,
    };
  }
  for (const [path, order] of Object.entries(layout.keyOrder ?? {})) {
    const value = valueAt(body.json, path);
    if (value.found && typeof value.value === 'object' && value.value !== null && !Array.isArray(value.value) && keyOrderFits(order, value.value)) continue;
    const names = value.found && typeof value.value === 'object' && value.value !== null ? JSON.stringify(Object.keys(value.value)) : 'no object';
    return { path: `.json${path}`, detail: `json holds ${names}; layout.keyOrder[${JSON.stringify(path)}] was recorded as ${JSON.stringify(order)}` };
  }
  return { path: '.json', detail: 'edited by hand (json or its layout)' };
}

function valueAt(root: unknown, path: string): { found: boolean; value?: unknown } {
  let segments;
  try {
    segments = parseJsonPath(path);
  } catch {
    return { found: false };
  }
  let current = root;
  for (const segment of segments) {
    if ('index' in segment && Array.isArray(current) && segment.index < current.length) current = current[segment.index];
    else if ('property' in segment && typeof current === 'object' && current !== null && !Array.isArray(current) && Object.hasOwn(current, segment.property))
      current = (current as Record<string, unknown>)[segment.property];
    else return { found: false };
  }
  return { found: true, value: current };
}

function brief(value: unknown): string {
  return excerpt(JSON.stringify(value) ?? String(value), 60);
}
