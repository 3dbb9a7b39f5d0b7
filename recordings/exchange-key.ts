import { hash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import { ModeltapeError, isRecord } from '../core/internal.js';
import { compileNormalizers, normalizeBody, normalizePath, type CompiledNormalizers } from './normalize-body.js';
import { isSecretHeader } from './redaction.js';
import { checkKeyRules } from './tape-schema.js';
import { DEFAULT_KEY_HEADERS, type KeyRules, type RecordedRequest } from './tape-format.js';

/** Key rules checked and compiled once. */
export interface CompiledKeyRules {
  /** The rules as written to a tape header. */
  readonly rules: KeyRules;
  readonly headers: ReadonlySet<string>;
  readonly normalizers: CompiledNormalizers;
}

/** The default rules: {@link DEFAULT_KEY_HEADERS} and no normalizers. */
export function defaultKeyRules(): KeyRules {
  return { headers: [...DEFAULT_KEY_HEADERS], normalizers: [] };
}

/**
 * Checks and compiles key rules. Header names are lowercased and sorted; a credential header
 * can never be part of a key (it would have to be stored to re-derive the key).
 */
export function compileKeyRules(rules: KeyRules = defaultKeyRules()): CompiledKeyRules {
  const headers = [...new Set(rules.headers.map((name) => name.toLowerCase()))].sort();
  const secret = headers.find((name) => isSecretHeader(name));
  if (secret !== undefined) {
    throw new ModeltapeError(
      'secret_key_header',
      `Header "${secret}" carries a credential and cannot be part of a request key: it would have to be written to the tape. Remove it from the key headers.`,
    );
  }
  // `g` is always applied; dropping it keeps one spelling of each rule in tape headers.
  // `in: "body"` is the default: dropping it too keeps one spelling.
  const normalizers = rules.normalizers.map((normalizer) => {
    if (!('pattern' in normalizer)) return { ...normalizer };
    const { in: target, ...rest } = normalizer;
    return { ...rest, ...(normalizer.flags === undefined ? {} : { flags: normalizer.flags.replace(/g/g, '') }), ...(target === 'path' ? { in: target } : {}) };
  });
  const normalized: KeyRules = { ...rules, headers, normalizers };
  // Rules go into a tape header; refuse here what the header schema would refuse there.
  const problems = checkKeyRules(normalized);
  if (problems.length > 0) {
    throw new ModeltapeError('invalid_key_rules', `Invalid key rules:\n${problems.map((problem) => `  ${problem.message}`).join('\n')}`);
  }
  return { rules: normalized, headers: new Set(headers), normalizers: compileNormalizers(normalizers) };
}

/**
 * What a key is computed from, in readable form: method, upstream, path (after the normalizers
 * `in: "path"`), sorted query, the key headers, and the body after normalizers. Everything here is stored in the tape line, so a key
 * can be re-derived when the rules change.
 */
export interface KeyInputs {
  method: string;
  upstream: string;
  path: string;
  query: Array<[string, string]>;
  headers: Record<string, string>;
  body: unknown;
}

export function keyInputs(upstream: string, request: RecordedRequest, rules: CompiledKeyRules): KeyInputs {
  const headers: Record<string, string> = {};
  for (const name of Object.keys(request.headers).sort()) {
    if (rules.headers.has(name)) headers[name] = request.headers[name]!;
  }
  let body: unknown = null;
  if (request.body !== undefined) {
    body =
      'json' in request.body
        ? {
            json: withCallIdsInOrder(
              request.path,
              normalizeBody(withoutVolatileEventParts(request.method, withoutJsonRpcId(request.body.json)), rules.normalizers),
            ),
          }
        : withoutBoundary(request.body, request.headers['content-type']);
  }
  return { method: request.method, upstream, path: normalizePath(request.path, rules.normalizers), query: request.query, headers, body };
}

/** sha256 (hex) of the canonical JSON of the {@link keyInputs}. */
export function exchangeKey(upstream: string, request: RecordedRequest, rules: CompiledKeyRules): string {
  return sha256Hex(canonicalJson(keyInputs(upstream, request, rules)));
}

/** sha256 (hex) of some bytes (a string: of its UTF-8). */
export function sha256Hex(bytes: Uint8Array | string): string {
  // The one-shot hash: no Hash object per call, which was a third of the cost for the small
  // bodies and keys a recording hashes three times per exchange.
  return hash('sha256', bytes, 'hex');
}

// Gemini's function calls usually come without an id, and clients that need one make it up
// (@ai-sdk/google draws a random one per call) and send it back in the conversation's
// `functionCall.id` and `functionResponse.id`: the same conversation would be a new request on
// every run. They key as their order of first appearance (`call-1`, `call-2`, …), so which
// response answers which call still counts, and an id the provider gave keys the same way.
const GEMINI_TURN = /:(generateContent|streamGenerateContent)$/;

/**
 * Whether {@link keyInputs} keys a JSON body sent to `path` as it is after normalizers: everywhere
 * but a Gemini turn, whose call ids it renumbers (and a JSON-RPC message, whose id it drops
 * wherever it is sent, and a WebSocket message, whose event id and audio it leaves out).
 */
export function keysJsonBodyAsIs(path: string): boolean {
  return !GEMINI_TURN.test(path);
}

function withCallIdsInOrder(path: string, json: unknown): unknown {
  if (!GEMINI_TURN.test(path) || !isRecord(json) || !Array.isArray(json.contents)) return json;
  const order = new Map<string, string>();
  const inOrder = (id: unknown): unknown => {
    if (typeof id !== 'string') return id;
    if (!order.has(id)) order.set(id, `call-${order.size + 1}`);
    return order.get(id);
  };
  const contents = json.contents.map((content) => {
    if (!isRecord(content) || !Array.isArray(content.parts)) return content;
    const parts = content.parts.map((part) => {
      if (!isRecord(part)) return part;
      for (const field of ['functionCall', 'functionResponse'] as const) {
        const call = part[field];
        if (isRecord(call) && Object.hasOwn(call, 'id')) return { ...part, [field]: { ...call, id: inOrder(call.id) } };
      }
      return part;
    });
    return { ...content, parts };
  });
  return order.size === 0 ? json : { ...json, contents };
}

// A JSON-RPC 2.0 message (an MCP server's) carries an `id` its client numbers per connection
// (the SDKs count from 0), and a request that asks for progress a `params._meta.progressToken`
// the SDKs set to that id: the same call under another id is the same call. The response (and
// the progress notifications) are renumbered to the request's id when they are served.
function withoutJsonRpcId(json: unknown): unknown {
  if (!isRecord(json) || json.jsonrpc !== '2.0') return json;
  const { id: _id, ...rest } = json;
  const meta = isRecord(rest.params) && isRecord(rest.params._meta) ? rest.params._meta : undefined;
  if (meta === undefined || !Object.hasOwn(meta, 'progressToken')) return rest;
  const { progressToken: _token, ...kept } = meta;
  return { ...rest, params: { ...(rest.params as Record<string, unknown>), _meta: kept } };
}

/** The method a tape gives a message a client sent on a WebSocket (a Realtime session's client event). */
export const WEBSOCKET_MESSAGE_METHOD = 'WS';

// A Realtime client event: its `event_id` is the client's own, made up per run (a uuid, a
// counter), and audio is keyed by its digest and length (the bytes stay on the tape as sent).
function withoutVolatileEventParts(method: string, json: unknown): unknown {
  if (method !== WEBSOCKET_MESSAGE_METHOD || !isRecord(json)) return json;
  const { event_id: _eventId, ...rest } = json;
  return withAudioDigests(rest);
}

function withAudioDigests(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withAudioDigests);
  if (!isRecord(value)) return value;
  const result: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    result[name] = name === 'audio' && typeof item === 'string' ? `<audio sha256:${sha256Hex(item)} ${item.length} chars>` : withAudioDigests(item);
  }
  return result;
}

// Multipart bodies (file, audio and image uploads) are framed by a random boundary the client
// picks per request: keyed with one fixed token, so the same upload keys the same.
const KEY_BOUNDARY = 'modeltape-boundary';

function withoutBoundary(body: { text: string } | { base64: string }, contentType: string | undefined): unknown {
  const boundary = /^multipart\/[^;]+;.*\bboundary="?([^";]+)"?/i.exec(contentType ?? '')?.[1];
  if (boundary === undefined) return body;
  if ('text' in body) return { text: body.text.split(boundary).join(KEY_BOUNDARY) };
  const bytes = Buffer.from(body.base64, 'base64');
  const marker = Buffer.from(boundary, 'latin1');
  const parts: Buffer[] = [];
  let start = 0;
  for (let found = bytes.indexOf(marker, start); found >= 0; found = bytes.indexOf(marker, start)) {
    parts.push(bytes.subarray(start, found), Buffer.from(KEY_BOUNDARY, 'latin1'));
    start = found + marker.length;
  }
  parts.push(bytes.subarray(start));
  return { base64: Buffer.concat(parts).toString('base64') };
}
