import { JsonTooDeepError, MAX_JSON_DEPTH, abbreviatePath, redactPathQuery, type Exchange } from '../../recordings/internal.js';
import { explainMiss, type ReplayEngine, type ReplayEntry, type ReplayMissError } from '../../lookup/internal.js';
import { carriesPlaceholderKey, keyVariableOf } from './placeholder-key.js';
import type { ResolvedProxyOptions } from './proxy-options.js';
import { describeBytes } from './response-recording.js';
import type { ProxyRequest, ProxyRequestHead } from './proxy-request.js';
import type { RequestKeys } from './request-keys.js';
import { routeRequest, type Route } from './router.js';
import { shownBaseUrl, type Provider } from './upstream-table.js';
import { describeMcpCall, errorProviderOf, isJsonRpcRequest, jsonRpcIdOf, type JsonRpcId } from '../../providers/internal.js';

/** What the decision reads: the run's options, its engine, and the keys of its requests. */
export interface DecisionContext {
  options: Pick<ResolvedProxyOptions, 'mode' | 'tape' | 'upstreams' | 'onMiss' | 'advice' | 'limits'>;
  /** The replay engine; undefined only in passthrough mode. */
  engine: ReplayEngine | undefined;
  keys: RequestKeys;
  /**
   * The `Mcp-Session-Id`s of MCP sessions answered from the tape: a live server never issued
   * them, so auto mode cannot send a miss of theirs upstream.
   */
  replayedMcpSessions?: ReadonlySet<string>;
}

/** A provider-shaped error response (see `providerErrorBody`), answered with the decision's `message`. */
export interface ErrorResponse {
  status: number;
  /** The error's type, also sent as `x-modeltape-error`: `modeltape_replay_miss`. */
  type: string;
  provider: Provider;
  /** On an MCP route, the id of the JSON-RPC request it answers: the error is then a JSON-RPC error under it. */
  rpcId?: JsonRpcId;
}

/** Answer with a recorded exchange. */
export interface HitDecision {
  kind: 'hit';
  route: Route;
  exchange: Exchange;
  /** The engine's entry the lookup took, and the request's key: to give it back when a chaos fault answers instead. */
  entry: ReplayEntry;
  key: string;
  /** On an MCP route, the id of the JSON-RPC request: the recorded response is renumbered to it. */
  rpcId?: JsonRpcId;
}

/** Send the request to its upstream. */
export interface ForwardDecision {
  kind: 'forward';
  route: Route;
  /** Append the exchange to the tape once its response has reached the client. */
  record: boolean;
  /** Why a request this mode would record is not recorded: a refusal, told in the summary. */
  unrecorded?: string;
}

/** Why the tape could not answer. */
export const MISS_REASONS = [
  /** No recording has the request's key. */
  'unrecorded',
  /** Every recording of the key was used. */
  'exhausted',
  /** It needs recording, but carries modeltape's placeholder key: a provider would refuse it. */
  'no_key',
  /** Its body nests too deep to key, so no tape can hold it. */
  'too_deep',
] as const;
export type MissReason = (typeof MISS_REASONS)[number];

/** The tape cannot answer, and nothing is sent upstream. */
export interface MissDecision {
  kind: 'miss';
  route: Route;
  reason: MissReason;
  /** What went wrong, with the evidence and the next step: for the log and the summary. */
  message: string;
  /**
   * An error with `message`, or (`onMiss: 'nearest'`, drift collection) the nearest recording to
   * answer as, so the run goes on to its next request.
   */
  response: ErrorResponse | { nearest: Exchange };
  /** The lookup miss explained (request, key, nearest recording, differences): `unrecorded` and `exhausted` only. */
  missError?: ReplayMissError;
  /** On an MCP route, the id of the JSON-RPC request. */
  rpcId?: JsonRpcId;
}

/** Why a request was not taken as a request to an upstream. */
export const REFUSE_REASONS = [
  /** Its path could leave its upstream's base (dot segments, backslashes, NUL). */
  'invalid_path',
  /** Its first path segment names no configured upstream (or it asked for an open forward proxy). */
  'unknown_upstream',
  /** Its body is over `limits.requestBodyBytes`. */
  'request_too_large',
  /** It must be forwarded, but its upstream has no URL yet (Azure OpenAI before an endpoint is given). */
  'upstream_unset',
  /**
   * A `GET` on an MCP route outside passthrough: the stream a server may push on does not end,
   * so it can be neither recorded nor replayed. Answered 405, as servers without one answer, and
   * not counted as a refusal (clients carry on without it).
   */
  'no_server_stream',
] as const;
export type RefuseReason = (typeof REFUSE_REASONS)[number];

/** Not answered from the tape nor sent upstream: answered with an error. */
export interface RefuseDecision {
  kind: 'refuse';
  reason: RefuseReason;
  message: string;
  response: ErrorResponse;
}

/**
 * What the proxy does with a request. Only `forward` sends anything upstream, and no decision is
 * `forward` in replay mode.
 */
export type RequestDecision = HitDecision | ForwardDecision | MissDecision | RefuseDecision;

/**
 * The proxy's decision for a whole request, the same as the HTTP proxy makes: routing, the body
 * limit, then {@link decideAdmitted}. Opens no socket and counts nothing; a hit takes its
 * recording from the engine, as serving it would.
 * @example
 * const decision = decideRequest(context, { method: 'POST', url: '/openai/v1/chat/completions', headers, body });
 * if (decision.kind === 'hit') answer(decision.exchange.response);
 */
export function decideRequest(context: DecisionContext, request: ProxyRequest): RequestDecision {
  const admitted = admitRequest(context, request);
  if (admitted.kind === 'refuse') return admitted;
  if (request.body.length > context.options.limits.requestBodyBytes) return refuseTooLarge(context, admitted.route, request.method);
  return decideAdmitted(context, admitted.route, request);
}

/**
 * The first half of the decision, on what is known before the body is read: the route, or a
 * refusal (a path that would leave its upstream's base, an unknown upstream, a declared length
 * over the limit).
 */
export function admitRequest(context: DecisionContext, head: ProxyRequestHead): { kind: 'admit'; route: Route } | RefuseDecision {
  const { upstreams, limits } = context.options;
  const route = routeRequest(head.url, upstreams);
  if ('refused' in route) {
    return {
      kind: 'refuse',
      reason: 'invalid_path',
      message: `Refused ${head.method} ${redactPathQuery(head.url)}: ${route.refused}`,
      response: { status: 400, type: 'modeltape_invalid_path', provider: route.upstream.provider },
    };
  }
  if ('unknown' in route) {
    const known = [...upstreams.values()].map((upstream) => `${upstream.name} (${shownBaseUrl(upstream)})`).join(', ');
    return {
      kind: 'refuse',
      reason: 'unknown_upstream',
      message:
        `No upstream named ${JSON.stringify(route.unknown)}. Send requests to /<upstream>/<path>; configured upstreams: ${known}. ` +
        `Declare it with --upstream ${route.unknown}=URL (an MCP server: --upstream ${route.unknown}=mcp+URL), or under "upstreams" in modeltape.config.json.`,
      response: { status: 404, type: 'modeltape_unknown_upstream', provider: 'openai' },
    };
  }
  if (Number(head.headers['content-length'] ?? 0) > limits.requestBodyBytes) return refuseTooLarge(context, route, head.method);
  if (route.upstream.provider === 'mcp' && head.method === 'GET' && context.options.mode !== 'passthrough') {
    return {
      kind: 'refuse',
      reason: 'no_server_stream',
      message: `GET ${route.path} (${route.upstream.name}) asks the MCP server for a stream of its own messages, which has no end to record or replay: answered 405, and the client goes on without it.`,
      response: { status: 405, type: 'modeltape_no_server_stream', provider: 'mcp' },
    };
  }
  return { kind: 'admit', route };
}

/**
 * The refusal of a body over `limits.requestBodyBytes` (declared, or found so while reading it);
 * `outcome` says what became of it where that is more than its not being read.
 */
export function refuseTooLarge(context: DecisionContext, route: Route, method: string, outcome = 'nothing was sent upstream'): RefuseDecision {
  const limit = context.options.limits.requestBodyBytes;
  return {
    kind: 'refuse',
    reason: 'request_too_large',
    message:
      `Refused ${method} ${route.path} (${route.upstream.name}): its body is over the ${describeBytes(limit)} limit of a request, so it was not read and ${outcome}.\n` +
      `Raise the limit with --max-request-body BYTES (limits.requestBodyBytes in the config file, or the limits.requestBodyBytes option).`,
    response: { status: 413, type: 'modeltape_request_too_large', provider: errorProviderOf(route.upstream.provider, route.path) },
  };
}

/**
 * The second half of the decision, for an admitted request read whole: by mode, a hit, a
 * forward (recorded or not) or a miss. Throws only what it did not expect (a bug), never for a
 * request it cannot key.
 */
export function decideAdmitted(context: DecisionContext, route: Route, request: ProxyRequest): RequestDecision {
  const decision = decideAdmittedRoute(context, route, request);
  if (decision.kind !== 'forward' || route.upstream.unset === undefined) return decision;
  return {
    kind: 'refuse',
    reason: 'upstream_unset',
    message: `${request.method} ${route.path} (${route.upstream.name}) must be sent upstream in ${context.options.mode} mode, but ${route.upstream.unset}. Nothing was sent.`,
    response: { status: 502, type: 'modeltape_upstream_unset', provider: errorProviderOf(route.upstream.provider, route.path) },
  };
}

function decideAdmittedRoute(context: DecisionContext, route: Route, request: ProxyRequest): Exclude<RequestDecision, RefuseDecision> {
  const { mode, tape, onMiss, advice } = context.options;
  if (mode === 'passthrough' || mode === 'record') {
    if (mode === 'record' && carriesPlaceholderKey(request.headers, route.upstream.provider)) return missKeyless(route, request, mode, tape);
    return { kind: 'forward', route, record: mode === 'record' };
  }
  const engine = context.engine!;
  const rpc = route.upstream.provider === 'mcp' ? readRpc(request.body) : undefined;
  let key: string;
  try {
    key = context.keys.keyOf(route, request);
  } catch (error) {
    if (!(error instanceof JsonTooDeepError)) throw error;
    return tooDeepToKey(route, request, mode, tape, error);
  }
  const result = engine.lookup(key);
  if (result.kind === 'hit') return { kind: 'hit', route, exchange: result.entry.exchange, entry: result.entry, key, ...rpcIdOf(rpc) };
  const replayedSession = mode === 'auto' && route.upstream.provider === 'mcp' && fromReplayedSession(context, request);
  if (mode === 'auto' && !replayedSession) {
    if (carriesPlaceholderKey(request.headers, route.upstream.provider)) return missKeyless(route, request, mode, tape);
    return { kind: 'forward', route, record: true };
  }
  const missError = explainMiss(
    engine,
    route.upstream.name,
    context.keys.capture(route, request),
    key,
    result,
    request.url.split('?')[0] ?? route.path,
    advice,
    rpc === undefined ? undefined : (recorded) => describeMcpCall(recorded, { onMcpRoute: true }),
  );
  return {
    kind: 'miss',
    route,
    reason: missError.reason,
    message: replayedSession
      ? `${missError.message}\nAuto mode cannot record it: its MCP session was answered from the tape (its Mcp-Session-Id is the recorded server's), and the live server does not know it. Record the server's session whole: --mode record, or delete its exchanges from the tape.`
      : missError.message,
    response:
      onMiss === 'nearest' && missError.nearestExchange !== undefined && answersAs(rpc, missError.nearestExchange)
        ? { nearest: missError.nearestExchange }
        : { status: 400, type: 'modeltape_replay_miss', provider: errorProviderOf(route.upstream.provider, route.path), ...rpcIdOf(rpc) },
    missError,
    ...rpcIdOf(rpc),
  };
}

function fromReplayedSession(context: DecisionContext, request: ProxyRequest): boolean {
  const session = request.headers['mcp-session-id'];
  return typeof session === 'string' && context.replayedMcpSessions?.has(session) === true;
}

// An MCP request's JSON-RPC message, read for its id and what it calls; undefined when the body is no JSON.
function readRpc(body: Buffer): { message: unknown } | undefined {
  try {
    return { message: JSON.parse(body.toString('utf8')) };
  } catch {
    return undefined;
  }
}

// Only a request has an id a response answers: a client's answer to the server's own request
// (roots/list, sampling) carries the server's id, which no error may be sent under.
function rpcIdOf(rpc: { message: unknown } | undefined): { rpcId?: JsonRpcId } {
  const id = rpc === undefined || !isJsonRpcRequest(rpc.message) ? undefined : jsonRpcIdOf(rpc.message);
  return id === undefined ? {} : { rpcId: id };
}

// Drift collection answers a miss as its nearest recording was answered, but a JSON-RPC request
// waits for a response under its id: a notification's recording holds none (the client would
// wait out its timeout), so a request is answered only from a request's recording, and otherwise
// with the miss's error, which names the nearest call.
function answersAs(rpc: { message: unknown } | undefined, nearest: Exchange): boolean {
  if (rpc === undefined || !isJsonRpcRequest(rpc.message)) return true;
  const body = nearest.request.body;
  return body !== undefined && 'json' in body && isJsonRpcRequest(body.json);
}

// A request that must be recorded but carries the placeholder key would reach the provider
// only to be refused (401): say what is missing instead, and send nothing.
function missKeyless(route: Route, request: ProxyRequest, mode: 'record' | 'auto', tape: string): MissDecision {
  return {
    kind: 'miss',
    route,
    reason: 'no_key',
    message:
      `${request.method} ${route.path} (${route.upstream.name}) is not on the tape ${tape} and needs recording, but no real key is set: the request carries modeltape's placeholder key, so nothing was sent.\n` +
      `Set ${keyVariableOf(route.upstream.provider, route.upstream.name)} to a real key and run again in ${mode} mode (locally, not in CI), or fix the request so that it matches a recording.`,
    response: { status: 401, type: 'modeltape_no_key', provider: errorProviderOf(route.upstream.provider, route.path) },
  };
}

// A body nested past the depth cap has no key: no tape can hold it. Auto mode forwards it
// unrecorded; replay answers it as a miss that says why.
function tooDeepToKey(route: Route, request: ProxyRequest, mode: 'replay' | 'auto', tape: string, error: JsonTooDeepError): ForwardDecision | MissDecision {
  const where = `${request.method} ${route.path} (${route.upstream.name})`;
  if (mode === 'auto') {
    return {
      kind: 'forward',
      route,
      record: false,
      unrecorded: `${where} was forwarded but not recorded: its request body nests deeper than ${MAX_JSON_DEPTH} levels (at ${abbreviatePath(error.path)}), so no tape can key it.`,
    };
  }
  return {
    kind: 'miss',
    route,
    reason: 'too_deep',
    message: `${where} cannot be on the tape ${tape}: its request body nests deeper than ${MAX_JSON_DEPTH} levels (at ${abbreviatePath(error.path)}), and modeltape never records what it cannot key. Flatten the payload, or keep such calls out of replayed tests.`,
    response: { status: 400, type: 'modeltape_replay_miss', provider: errorProviderOf(route.upstream.provider, route.path) },
  };
}
