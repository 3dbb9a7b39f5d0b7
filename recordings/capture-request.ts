import { encodeBody } from './body-encoding.js';
import { JsonTooDeepError, MAX_JSON_DEPTH, deeperThan } from './json-depth.js';
import { sha256Hex, type CompiledKeyRules } from './exchange-key.js';
import { redactPathParameters, redactQuery } from './redaction.js';
import { secretSpans } from '../core/internal.js';
import { CLIENT_HEADERS, type RecordedRequest } from './tape-format.js';

/** A request as it arrived, before anything was dropped. */
export interface RawRequest {
  method: string;
  /** The upstream path without the query. */
  path: string;
  /** The raw query string without `?`, or URLSearchParams. */
  query: string | URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: Uint8Array;
}

/**
 * Turns a raw request into what a tape stores: the key headers and `content-type` (never a
 * credential: see compileKeyRules), the path without credential path parameters (`;token=…`),
 * the query without key-like parameters, the body in its most readable faithful form, and the
 * sha256 of the exact body bytes. Throws {@link JsonTooDeepError} (code `too_deep`) for a JSON
 * body nested deeper than {@link MAX_JSON_DEPTH}.
 */
export function captureRequest(raw: RawRequest, rules: CompiledKeyRules): RecordedRequest {
  const headers: Record<string, string> = {};
  for (const name of Object.keys(raw.headers)) {
    const lower = name.toLowerCase();
    if (rules.headers.has(lower) || lower === 'content-type') {
      const value = headerValue(raw.headers, name);
      if (value !== undefined) headers[lower] = value;
    }
  }
  const params = typeof raw.query === 'string' ? new URLSearchParams(raw.query) : raw.query;
  const request: RecordedRequest = {
    method: raw.method.toUpperCase(),
    path: redactPathParameters(raw.path),
    query: redactQuery(params),
    headers: sortKeys(headers),
    bodySha256: sha256Hex(raw.body),
  };
  const client = clientOf(raw.headers);
  if (client !== undefined) request.client = client;
  const body = encodeBody(raw.body, headers['content-type']);
  if (body !== undefined) request.body = body;
  // Keyed by recursive walks: deeper JSON is refused here, before anything keys it.
  if (body !== undefined && 'json' in body) {
    const path = deeperThan(body.json, MAX_JSON_DEPTH, '.request.body.json');
    if (path !== undefined) throw new JsonTooDeepError(`${request.method} ${raw.path}`, path);
  }
  return request;
}

// The longest client header kept: a user agent names a client, it does not carry a document.
const CLIENT_HEADER_CHARS = 512;

/**
 * The headers by which the request's client announced itself ({@link CLIENT_HEADERS}), each
 * passed through the secret scan a tape line gets: a value holding anything shaped like a
 * credential (a user agent can hold anything) is left out, not masked, as a response header is.
 */
export function clientOf(headers: Record<string, string | string[] | undefined>): Record<string, string> | undefined {
  const client: Record<string, string> = {};
  const byName = new Map(Object.keys(headers).map((name) => [name.toLowerCase(), name]));
  for (const name of CLIENT_HEADERS) {
    const given = byName.get(name);
    const value = given === undefined ? undefined : headerValue(headers, given);
    if (value === undefined || value === '' || secretSpans(value, name).length > 0) continue;
    client[name] = value.length > CLIENT_HEADER_CHARS ? value.slice(0, CLIENT_HEADER_CHARS) : value;
  }
  return Object.keys(client).length === 0 ? undefined : client;
}

/** One header's value; repeated headers are joined with ", " as HTTP allows. */
export function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name] ?? headers[name.toLowerCase()];
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(', ') : value;
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  const sorted: Record<string, T> = {};
  for (const name of Object.keys(record).sort()) sorted[name] = record[name]!;
  return sorted;
}
