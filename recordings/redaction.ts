/**
 * What reaches disk. Redaction is separate from matching (exchange-key.ts decides identity):
 * these functions only decide which headers and query parameters may be stored.
 */

/** Headers that carry credentials or account identifiers. Never stored, in either direction. */
export const SECRET_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
  'cookie',
  'set-cookie',
  'openai-organization',
  'openai-project',
  'anthropic-organization-id',
  'x-amz-security-token',
]);

/** Connection-level headers that describe one hop, not the exchange (RFC 9110 §7.6.1). */
export const HOP_BY_HOP_HEADERS: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

// Replay serves decoded bytes and computes its own length.
const PAYLOAD_FRAMING_HEADERS: ReadonlySet<string> = new Set(['content-length', 'content-encoding']);

/** True for a header that must never be written: a credential, or an AWS signature header. */
export function isSecretHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return SECRET_HEADERS.has(lower) || lower.startsWith('x-amz-');
}

/**
 * True for a query parameter that carries a credential: `key` (Gemini), `api_key`, `apikey`,
 * `token`, `access_token`, `refresh_token`, `id_token`, `session_token`, `secret`, `signature`,
 * `sig`, `password`, and names ending in `_key`, `-key`, `_secret` or `-secret`. Pagination
 * cursors such as `page_token` are not credentials and stay part of the key.
 */
export function isSecretQueryParameter(name: string): boolean {
  const lower = name.toLowerCase();
  return (
    /^(key|apikey|api[-_]key|token|auth|secret|signature|sig|password|passwd|x-amz-[a-z-]+)$/.test(lower) ||
    /^(access|refresh|id|auth|session|bearer|api)[-_]?token$/.test(lower) ||
    /[-_](key|secret)$/.test(lower)
  );
}

/** A path with its query's credential parameters replaced by `REDACTED`, for messages and logs. */
export function redactPathQuery(pathAndQuery: string): string {
  const questionMark = pathAndQuery.indexOf('?');
  if (questionMark < 0) return pathAndQuery;
  const params = new URLSearchParams(pathAndQuery.slice(questionMark + 1));
  let changed = false;
  for (const name of [...params.keys()]) {
    if (isSecretQueryParameter(name)) {
      params.set(name, 'REDACTED');
      changed = true;
    }
  }
  return changed ? `${pathAndQuery.slice(0, questionMark)}?${params.toString()}` : pathAndQuery;
}

/** Query pairs without credentials, sorted by name then value. */
export function redactQuery(pairs: Iterable<[string, string]>): Array<[string, string]> {
  const kept: Array<[string, string]> = [];
  for (const [name, value] of pairs) if (!isSecretQueryParameter(name)) kept.push([name, value]);
  return kept.sort(([nameA, valueA], [nameB, valueB]) => (nameA < nameB ? -1 : nameA > nameB ? 1 : valueA < valueB ? -1 : valueA > valueB ? 1 : 0));
}

/**
 * Response headers fit to store: lowercase names, sorted, without hop-by-hop, payload framing
 * (replay serves decoded bytes) or secret headers. Repeated headers stay arrays.
 */
export function redactResponseHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  const names = Object.keys(headers).map((name) => [name.toLowerCase(), name] as const);
  names.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [lower, name] of names) {
    const value = headers[name];
    if (value === undefined || HOP_BY_HOP_HEADERS.has(lower) || PAYLOAD_FRAMING_HEADERS.has(lower) || isSecretHeader(lower)) continue;
    kept[lower] = Array.isArray(value) ? [...value] : value;
  }
  return kept;
}
