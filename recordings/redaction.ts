import { secretSpans } from '../core/internal.js';

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
  // Azure API Management's key (an Azure OpenAI resource behind a gateway, Azure AI services).
  'ocp-apim-subscription-key',
  'cookie',
  'set-cookie',
  'openai-organization',
  'openai-project',
  'anthropic-organization-id',
  'x-amz-security-token',
  'www-authenticate',
  'set-cookie2',
  'x-amzn-remapped-authorization',
  'x-csrf-token',
  'x-xsrf-token',
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

/**
 * True for a header that frames one connection's bytes (hop-by-hop, or `content-length`): never
 * recorded, and never served from a tape, where it would contradict the bytes replay sends.
 */
export function isFramingHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return HOP_BY_HOP_HEADERS.has(lower) || lower === 'content-length';
}

// Response headers that hold a URL: a token in their query is redacted, the header kept.
const URL_HEADERS: ReadonlySet<string> = new Set(['location', 'content-location', 'link', 'refresh']);

// Replay serves decoded bytes and computes its own length.
const PAYLOAD_FRAMING_HEADERS: ReadonlySet<string> = new Set(['content-length', 'content-encoding']);

/**
 * True for a header that must never be written: a credential, an AWS signature header, or any
 * `x-…-token`, `x-…-key`, `x-…-secret`, `x-…-auth…` header (`x-goog-api-key`, `x-vault-token`).
 */
export function isSecretHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return (
    SECRET_HEADERS.has(lower) || lower.startsWith('x-amz-') || /^x-(?:.+-)?(?:token|key|secret|password|credentials?|auth|authorization|session)$/.test(lower)
  );
}

/**
 * True for a query parameter that carries a credential: `key` (Gemini), `api_key`, `apikey`,
 * `token`, `access_token`, `refresh_token`, `id_token`, `session_token`, `private_token`, `jwt`,
 * `code` (an OAuth grant), `secret`, `signature`, `sig`, `password`, `pass`, `credential`, and
 * names ending in `_key`, `-key`, `_secret`, `-secret`; a PHP-style `key[]` or `auth[token]` as
 * its base name. Pagination cursors such as `page_token` are not credentials and stay part of the
 * key.
 */
export function isSecretQueryParameter(name: string): boolean {
  const lower = name.toLowerCase().replace(/\[[^\]]*\]$/, (inner) => (inner === '[]' ? '' : `_${inner.slice(1, -1)}`));
  return (
    /^(key|apikey|api[-_]key|token|auth|secret|signature|sig|password|passwd|pass|pwd|jwt|code|credentials?|x-amz-[a-z-]+)$/.test(lower) ||
    /^(access|refresh|id|auth|session|bearer|api|private|client|oauth)[-_]?token$/.test(lower) ||
    /[-_](key|secret|password|credentials?)$/.test(lower)
  );
}

/**
 * True for a query pair that must not be stored: a credential's name (see
 * {@link isSecretQueryParameter}), a key-shaped name or value, or a bare `?<token>` (a name with
 * no value that looks random: 16 or more characters, letters and digits mixed).
 */
export function isSecretQueryPair(name: string, value: string): boolean {
  if (isSecretQueryParameter(name)) return true;
  if (value === '' && /^[A-Za-z0-9._~+/=-]{16,}$/.test(name) && /\d/.test(name) && /[A-Za-z]/.test(name)) return true;
  return secretSpans(name).length > 0 || secretSpans(value, name).length > 0;
}

/**
 * A path without its credential path parameters: `/v1/models;token=abc` → `/v1/models`. Like a
 * credential query parameter, it is not part of what is stored or keyed.
 */
export function redactPathParameters(path: string): string {
  if (!path.includes(';')) return path;
  return path.replace(/;([^;/=?#]*)(?:=([^;/?#]*))?/g, (whole, name: string, value: string | undefined) => (isSecretQueryPair(name, value ?? '') ? '' : whole));
}

/** A path with its query's credential parameters replaced by `REDACTED`, for messages and logs. */
export function redactPathQuery(pathAndQuery: string): string {
  const questionMark = pathAndQuery.indexOf('?');
  if (questionMark < 0) return pathAndQuery;
  const params = new URLSearchParams(pathAndQuery.slice(questionMark + 1));
  let changed = false;
  for (const [name, value] of [...params]) {
    if (isSecretQueryPair(name, value)) {
      params.delete(name);
      params.append(isSecretQueryParameter(name) ? name : 'REDACTED', 'REDACTED');
      changed = true;
    }
  }
  return changed ? `${pathAndQuery.slice(0, questionMark)}?${params.toString()}` : pathAndQuery;
}

/**
 * A URL as a message shows it, given as written (it may not parse): its user and password, and the
 * credential parameters of its query and of its fragment (`#access_token=…`), replaced by
 * `REDACTED`.
 */
export function redactUrl(url: string): string {
  const hash = url.indexOf('#');
  const beforeHash = hash < 0 ? url : url.slice(0, hash);
  // The user too: `user:password@` is one credential, and a token is often given as the user.
  let shown = redactPathQuery(beforeHash).replace(/^([^/?#]*\/\/)[^/?#]*@/, '$1REDACTED@');
  if (hash >= 0) {
    const fragment = url.slice(hash + 1);
    shown += `#${fragment.includes('=') ? redactPathQuery(`?${fragment}`).slice(1) : fragment}`;
  }
  return shown;
}

/** Query pairs without credentials, sorted by name then value. */
export function redactQuery(pairs: Iterable<[string, string]>): Array<[string, string]> {
  const kept: Array<[string, string]> = [];
  for (const [name, value] of pairs) if (!isSecretQueryPair(name, value)) kept.push([name, value]);
  return kept.sort(([nameA, valueA], [nameB, valueB]) => (nameA < nameB ? -1 : nameA > nameB ? 1 : valueA < valueB ? -1 : valueA > valueB ? 1 : 0));
}

/**
 * Response headers fit to store: lowercase names, sorted, without hop-by-hop, payload framing
 * (replay serves decoded bytes) or secret headers, and without any header whose value holds a
 * credential (a `location` with a token). A URL header's credential query parameters are
 * replaced by `REDACTED` first, so a redirect keeps its place. Repeated headers stay arrays.
 */
export function redactResponseHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const kept: Record<string, string | string[]> = {};
  const names = Object.keys(headers).map((name) => [name.toLowerCase(), name] as const);
  names.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [lower, name] of names) {
    const value = headers[name];
    if (value === undefined || HOP_BY_HOP_HEADERS.has(lower) || PAYLOAD_FRAMING_HEADERS.has(lower) || isSecretHeader(lower)) continue;
    const values = (Array.isArray(value) ? value : [value]).map((item) => (URL_HEADERS.has(lower) ? redactPathQuery(item) : item));
    if (values.some((item) => secretSpans(item, lower).length > 0)) continue;
    kept[lower] = Array.isArray(value) ? values : values[0]!;
  }
  return kept;
}
