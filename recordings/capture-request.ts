import { encodeBody } from './body-encoding.js';
import { JsonTooDeepError, MAX_JSON_DEPTH, deeperThan } from './json-depth.js';
import { sha256Hex, type CompiledKeyRules } from './exchange-key.js';
import { redactPathParameters, redactQuery } from './redaction.js';
import type { RecordedRequest } from './tape-format.js';

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
  const body = encodeBody(raw.body, headers['content-type']);
  if (body !== undefined) request.body = body;
  // Keyed by recursive walks: deeper JSON is refused here, before anything keys it.
  if (body !== undefined && 'json' in body) {
    const path = deeperThan(body.json, MAX_JSON_DEPTH, '.request.body.json');
    if (path !== undefined) throw new JsonTooDeepError(`${request.method} ${raw.path}`, path);
  }
  return request;
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
