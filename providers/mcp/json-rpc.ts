import { isRecord } from '../../core/internal.js';
import type { ProviderError } from '../provider-error.js';

/**
 * The Model Context Protocol's messages: JSON-RPC 2.0, one message per POST over Streamable HTTP
 * (batching left the protocol in 2025-06-18) and one per line over stdio. A request has a
 * `method` and an `id`, a notification a `method` and no `id`, a response an `id` and a
 * `result` or an `error`.
 */
export type JsonRpcId = string | number;

/** A JSON-RPC 2.0 message: an object whose `jsonrpc` is `"2.0"`. */
export function isJsonRpcMessage(value: unknown): value is Record<string, unknown> {
  return isRecord(value) && value.jsonrpc === '2.0';
}

/** The `id` of a JSON-RPC request, or of a response, or undefined for a notification (or anything else). */
export function jsonRpcIdOf(value: unknown): JsonRpcId | undefined {
  if (!isJsonRpcMessage(value)) return undefined;
  const id = value.id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** Whether the message is a request: a `method` and an `id`, so a response must answer it. */
export function isJsonRpcRequest(value: unknown): boolean {
  return isJsonRpcMessage(value) && typeof value.method === 'string' && jsonRpcIdOf(value) !== undefined;
}

/** Whether the message is a response (a `result` or an `error` under an `id`). */
export function isJsonRpcResponse(value: unknown): boolean {
  return isJsonRpcMessage(value) && value.method === undefined && ('result' in value || 'error' in value);
}

/**
 * What a message is, for people: `tools/call get_weather`, `resources/read file:///a.md`,
 * `notifications/initialized`, `the response to request 3`.
 */
export function describeJsonRpc(value: unknown): string {
  if (!isJsonRpcMessage(value)) return 'a message that is not JSON-RPC 2.0';
  if (typeof value.method === 'string') {
    const params = isRecord(value.params) ? value.params : {};
    const what = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
    return what === undefined ? value.method : `${value.method} ${what}`;
  }
  const id = jsonRpcIdOf(value);
  return id === undefined ? 'a JSON-RPC response' : `the response to request ${JSON.stringify(id)}`;
}

/**
 * What a request calls, for people (`tools/call get_weather`, as {@link describeJsonRpc} names a
 * message), read off its body as a tape holds it (`{ json }`): what a replay miss and the drift
 * report name an MCP call by. Undefined when the body holds no JSON-RPC 2.0 message (none, not
 * JSON, or another API's JSON), but `onMcpRoute`, where every JSON body should be one, names
 * another as what it is (`a message that is not JSON-RPC 2.0`).
 */
export function describeMcpCall(request: { body?: object }, where: { onMcpRoute?: boolean } = {}): string | undefined {
  const body = request.body;
  if (body === undefined || !('json' in body)) return undefined;
  return where.onMcpRoute === true || isJsonRpcMessage(body.json) ? describeJsonRpc(body.json) : undefined;
}

/**
 * The JSON-RPC error code of a replay miss (and of modeltape's other errors on an MCP route):
 * one of the codes JSON-RPC leaves to servers (-32000 to -32099), none of which MCP or its SDKs
 * take. A client raises it as `McpError` with the message, which names the nearest recorded call.
 */
export const MODELTAPE_RPC_ERROR = -32090;

/**
 * modeltape's error on an MCP route as JSON-RPC error: `{"jsonrpc":"2.0","id":…,"error":{"code",
 * "message","data":{"type","status"}}}`. `id` is the request's, or null when the message was not
 * a request (a notification, or one JSON-RPC cannot read).
 */
export function mcpErrorBody(error: ProviderError, id: JsonRpcId | null = null): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: error.fromModeltape === true ? MODELTAPE_RPC_ERROR : rpcCodeOf(error.status),
      message: error.message,
      data: { type: error.type, status: error.status },
    },
  };
}

// A transient failure played on an MCP route keeps its HTTP status; its JSON-RPC code is
// JSON-RPC's internal error for a server error, and a server-defined one otherwise.
function rpcCodeOf(status: number): number {
  return status >= 500 && status !== 503 ? -32603 : -32000;
}

/**
 * A JSON text of one message (or a batch of them) with the response to `recorded` renumbered to
 * answer `sent` (and a progress notification whose token was `recorded`), or undefined when it
 * holds neither. A request the server sends its client (sampling, elicitation) keeps its own id.
 */
export function renumberResponse(text: string, recorded: JsonRpcId, sent: JsonRpcId): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  let changed = false;
  const renumber = (message: unknown): unknown => {
    if (isJsonRpcResponse(message) && jsonRpcIdOf(message) === recorded) {
      changed = true;
      return { ...(message as Record<string, unknown>), id: sent };
    }
    // The SDKs' progress token is the request's id: its notifications follow the renumbering.
    if (isJsonRpcMessage(message) && message.method === 'notifications/progress' && isRecord(message.params) && message.params.progressToken === recorded) {
      changed = true;
      return { ...message, params: { ...message.params, progressToken: sent } };
    }
    return message;
  };
  const renumbered = Array.isArray(parsed) ? parsed.map(renumber) : renumber(parsed);
  return changed ? JSON.stringify(renumbered) : undefined;
}

/**
 * An SSE event of an MCP stream with the response to `recorded` renumbered to answer `sent` (see
 * {@link renumberResponse}); every other line stays byte for byte. Returns the event as it was
 * when it holds no such response.
 */
export function renumberSseEvent(event: string, recorded: JsonRpcId, sent: JsonRpcId): string {
  if (!event.includes('data:')) return event;
  return event
    .split('\n')
    .map((line) => {
      if (!line.startsWith('data:')) return line;
      const space = line.startsWith('data: ') ? 6 : 5;
      const renumbered = renumberResponse(line.slice(space).replace(/\r$/, ''), recorded, sent);
      return renumbered === undefined ? line : `${line.slice(0, space)}${renumbered}${line.endsWith('\r') ? '\r' : ''}`;
    })
    .join('\n');
}

/** JSON-RPC 2.0's error for a message it cannot take: `-32700` (not JSON) or `-32600` (not a valid message). */
export interface JsonRpcRefusal {
  code: -32700 | -32600;
  /** The message's id where it can be read (a string or an integer), else null, as the spec asks. */
  id: JsonRpcId | null;
  /** `Parse error: …` or `Invalid Request: …`, saying what is wrong. */
  message: string;
}

/**
 * Reads one line of the stdio transport as one JSON-RPC 2.0 message MCP takes: a request (a
 * string `method`, an `id` that is a string or an integer, `params` an object or array if any),
 * a notification (no `id`), or a response (an `id` and exactly one of `result` and an `error`
 * with an integer `code` and a string `message`). Anything else is refused with the errors
 * JSON-RPC 2.0 answers it with: `-32700` for text that is not JSON, `-32600` for JSON that is
 * not a message (id null when none can be read). A batch (a JSON array, which MCP 2025-06-18 no
 * longer takes) gets one error per member that is not a notification, answered as an array;
 * an empty one, a single error.
 */
export function checkJsonRpcLine(text: string): { message: Record<string, unknown> } | { refusals: JsonRpcRefusal[]; batch: boolean } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { refusals: [{ code: -32700, id: null, message: `Parse error: the line is not JSON (${(error as Error).message})` }], batch: false };
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return { refusals: [{ code: -32600, id: null, message: 'Invalid Request: an empty batch' }], batch: false };
    const refusals = value.flatMap((member): JsonRpcRefusal[] => {
      const problem = messageProblem(member);
      if (problem === undefined && isRecord(member) && !('id' in member)) return [];
      return [
        {
          code: -32600,
          id: readableId(member),
          message: `Invalid Request: ${problem ?? 'a batch; MCP takes one JSON-RPC message a line (batches left the protocol in 2025-06-18)'}`,
        },
      ];
    });
    return { refusals, batch: true };
  }
  const problem = messageProblem(value);
  if (problem === undefined) return { message: value as Record<string, unknown> };
  return { refusals: [{ code: -32600, id: readableId(value), message: `Invalid Request: ${problem}` }], batch: false };
}

// What makes a parsed value no JSON-RPC 2.0 message MCP takes; undefined when it is one.
function messageProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return `${describeValue(value)} is not a JSON-RPC message (an object)`;
  if (value.jsonrpc !== '2.0') return `"jsonrpc" is ${value.jsonrpc === undefined ? 'missing' : JSON.stringify(value.jsonrpc)}, not "2.0"`;
  const hasId = 'id' in value;
  if (hasId && !isId(value.id) && !(value.id === null && 'error' in value && !('method' in value)))
    return `"id" is ${describeValue(value.id)}; an id is a string or an integer`;
  if ('method' in value) {
    if (typeof value.method !== 'string') return `"method" is ${describeValue(value.method)}, not a string`;
    if ('params' in value && !(isRecord(value.params) || Array.isArray(value.params))) return `"params" is ${describeValue(value.params)}, not an object`;
    if ('result' in value || 'error' in value) return 'it has a "method" and a "result" or an "error": neither a request nor a response';
    return undefined;
  }
  if (!hasId) return 'it has neither a "method" nor an "id": neither a request, a notification nor a response';
  if ('result' in value === 'error' in value) return 'a response has exactly one of "result" and "error"';
  if ('error' in value) {
    const error = value.error;
    if (!isRecord(error) || !Number.isInteger(error.code) || typeof error.message !== 'string')
      return '"error" is not an object with an integer "code" and a string "message"';
  }
  return undefined;
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

function readableId(value: unknown): JsonRpcId | null {
  return isRecord(value) && isId(value.id) ? value.id : null;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${JSON.stringify(value)}`.slice(0, 80);
}

/** A JSON-RPC 2.0 error response for a refusal: `{"jsonrpc":"2.0","id":…,"error":{"code","message"}}`. */
export function jsonRpcRefusalBody(refusal: JsonRpcRefusal): Record<string, unknown> {
  return { jsonrpc: '2.0', id: refusal.id, error: { code: refusal.code, message: refusal.message } };
}
