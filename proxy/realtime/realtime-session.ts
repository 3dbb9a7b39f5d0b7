// A Realtime session over WebSocket (OpenAI `/v1/realtime?model=…`), recorded and replayed through
// the proxy's one decision path. The upgrade is one exchange (a GET whose answer is the server's
// events before the client's first: `session.created`); each event the client sends is another
// (method `WS`, keyed without its event id and with its audio as a digest), answered by the events
// the server sent until the client's next one.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { maskSecrets } from '../../core/internal.js';
import { FAKE_RESPONSE_HEADER, WEBSOCKET_MESSAGE_METHOD, redactPathQuery } from '../../recordings/internal.js';
import { carriesRealtimeKey, isRealtimePath, maskKeyProtocols, offeredSubprotocols, realtimeErrorEvent } from '../../providers/internal.js';
import { answerLines, NDJSON_HEADERS } from '../core/answer-lines.js';
import { admitRequest, decideAdmitted, refuseTooLarge, type DecisionContext } from '../core/decide-request.js';
import { errorReply, type OwnAnswer, type ProxyCore } from '../core/proxy-core.js';
import type { ProxyRequest } from '../core/proxy-request.js';
import { ResponseRecording } from '../core/response-recording.js';
import type { Route } from '../core/router.js';
import { shownBaseUrl, withoutResourceHost } from '../core/upstream-table.js';
import type { UpstreamClient } from '../http/upstream.js';
import { acceptWebSocket, type MessageSocket } from './websocket.js';

// What is not forwarded of the client's upgrade: this hop's framing and the WebSocket handshake, which the upstream end makes anew.
const NOT_FORWARDED = new Set([
  'host',
  'connection',
  'upgrade',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
]);

/** The Realtime sessions a proxy has open, closed with it. */
export type RealtimeSessions = Set<RealtimeSession>;

/** Answers a client's WebSocket upgrade: a Realtime session from the tape, or relayed and recorded. */
export function handleRealtimeUpgrade(
  core: ProxyCore,
  upstreams: UpstreamClient | undefined,
  sessions: RealtimeSessions,
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): void {
  socket.on('error', () => undefined);
  const url = request.url ?? '/';
  // What is keyed and recorded of the upgrade: a key the client sent as a subprotocol (a browser's
  // way to authenticate) is masked, as if it were never sent; the upstream gets it from `request`.
  const protocols = request.headers['sec-websocket-protocol'];
  const headers = protocols === undefined ? request.headers : { ...request.headers, 'sec-websocket-protocol': maskKeyProtocols(protocols) };
  const handshake: ProxyRequest = { method: 'GET', url, headers, body: Buffer.alloc(0) };
  const admitted = admitRequest(core.context, handshake);
  if (admitted.kind === 'refuse') return refuseUpgrade(socket, core.answer(admitted));
  const { route } = admitted;
  const refusal = notARealtimeUpgrade(route, request);
  if (refusal !== undefined) {
    return refuseUpgrade(socket, {
      kind: 'error',
      provider: route.upstream.provider,
      status: refusal.status,
      type: 'modeltape_no_websocket_route',
      message: refusal.message,
    });
  }
  const decision = decideAdmitted(core.context, route, handshake);
  // Registered before anything opens, so that a proxy closing meanwhile ends it too.
  const session: RealtimeSession = {
    closing: false,
    close: () => undefined,
    ended: () => {
      session.closing = true;
      sessions.delete(session);
    },
  };
  sessions.add(session);
  const opened =
    decision.kind === 'forward'
      ? relay(core, upstreams!, session, route, handshake, request, socket, head, decision.record)
      : replay(core, session, route, request, socket, head, core.answer(decision));
  opened.catch(() => {
    socket.destroy();
    session.ended();
  });
}

/** An open (or opening) Realtime session, as the proxy closes it. */
export interface RealtimeSession {
  /** Set once it ended, or the proxy closed it. */
  closing: boolean;
  close(): void;
  /** It is over: the proxy forgets it. */
  ended(): void;
}

// Only OpenAI's Realtime route, and only a handshake ws can complete: checked before anything is
// opened upstream (a live session is billed).
function notARealtimeUpgrade(route: Route, request: IncomingMessage): { status: number; message: string } | undefined {
  if (route.upstream.provider !== 'openai' || !isRealtimePath(route.path)) {
    return {
      status: 404,
      message: `modeltape proxies WebSocket upgrades for OpenAI Realtime (/openai/v1/realtime?model=…) only, not GET ${redactPathQuery(request.url ?? '/')}.`,
    };
  }
  const upgrade = String(request.headers.upgrade ?? '').toLowerCase();
  if (upgrade !== 'websocket' || typeof request.headers['sec-websocket-key'] !== 'string' || request.headers['sec-websocket-version'] !== '13') {
    return {
      status: 400,
      message: `GET ${redactPathQuery(request.url ?? '/')} asked to upgrade to ${JSON.stringify(upgrade)}, not to a WebSocket (version 13).`,
    };
  }
  return undefined;
}

// The session from the tape: the upgrade's recorded events, then each client event's.
async function replay(
  core: ProxyCore,
  session: RealtimeSession,
  route: Route,
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  opening: OwnAnswer,
): Promise<void> {
  const { requestBodyBytes } = core.options.limits;
  // The subprotocol the recorded upstream chose, when the client offers it again.
  const recorded = opening.kind === 'recorded' ? opening.prepared.headers['sec-websocket-protocol'] : undefined;
  const client = await acceptWebSocket(request, socket, head, requestBodyBytes, {}, (offered) =>
    typeof recorded === 'string' && recorded !== '' ? (offered.has(recorded) ? recorded : false) : firstWithoutKey(offered),
  );
  session.close = () => {
    session.closing = true;
    client.terminate();
  };
  if (session.closing) return session.close();
  client.onClose(() => session.ended());
  client.onError((error) => refuseTooLargeFrame(core, route, error));
  // A session replayed from the tape stays on it: a client event it does not hold is a miss, even in auto mode.
  const replaying: DecisionContext = { ...core.context, options: { ...core.context.options, mode: 'replay' } };
  let misses = 0;
  const send = (answer: OwnAnswer, eventId: unknown): void => {
    if (answer.kind === 'recorded') {
      for (const event of answerLines(answer.prepared)) client.send(event);
    } else if (answer.kind === 'error') {
      client.send(JSON.stringify(errorEvent(answer.message, answer.type, ++misses, eventId)));
    } else if (answer.effect.kind === 'reply') {
      // A chaos status fault: the API's error event for it (the socket stays open, as after a rate limit).
      client.send(JSON.stringify(errorEvent(`${answer.fault.kind} (modeltape chaos)`, answer.fault.kind, ++misses, eventId)));
    } else {
      // A dropped, cut or stalled connection: the socket drops.
      client.terminate();
    }
  };
  send(opening, undefined);
  if (opening.kind === 'error' || opening.kind === 'fault') {
    client.close(1008, opening.kind === 'error' ? 'no recorded session' : 'modeltape chaos');
    return;
  }
  client.onMessage((data, binary) => {
    const message: ProxyRequest = {
      method: WEBSOCKET_MESSAGE_METHOD,
      url: request.url ?? '/',
      headers: { 'content-type': binary ? 'application/octet-stream' : 'application/json' },
      body: data,
    };
    const decision = decideAdmitted(replaying, route, message);
    if (decision.kind === 'forward') return;
    send(core.answer(decision), eventIdOf(data));
  });
}

// A live session, relayed both ways; recorded as one exchange for the upgrade and one per client event.
async function relay(
  core: ProxyCore,
  upstreams: UpstreamClient,
  session: RealtimeSession,
  route: Route,
  handshake: ProxyRequest,
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  record: boolean,
): Promise<void> {
  const { requestBodyBytes, responseBodyBytes } = core.options.limits;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || NOT_FORWARDED.has(name) || name.startsWith('sec-websocket-')) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  let upstream: Awaited<ReturnType<UpstreamClient['openWebSocket']>>;
  try {
    // The client's subprotocols, its key among them if it sent one that way: the upstream chooses.
    upstream = await upstreams.openWebSocket(
      route.upstream,
      route.forwardPath,
      headers,
      responseBodyBytes,
      offeredSubprotocols(request.headers['sec-websocket-protocol']),
    );
  } catch (error) {
    const status = (error as { status?: number }).status;
    core.counts.upstreamErrors++;
    const message = `Upstream "${route.upstream.name}" (${shownBaseUrl(route.upstream)}) failed for the Realtime session ${route.path}: ${withoutResourceHost(route.upstream, (error as Error).message)}`;
    core.problem(message);
    session.ended();
    return refuseUpgrade(socket, { kind: 'error', provider: route.upstream.provider, status: status ?? 502, type: 'modeltape_upstream_error', message });
  }
  // The upstream speaks first (session.created), maybe before the client's end is open: held till then.
  let client: MessageSocket | undefined;
  const held: Array<[Buffer, boolean]> = [];
  let current: { message: ProxyRequest; recording: ResponseRecording } | undefined;
  let unrecordable: string | undefined;
  const clock = (): number => performance.now();
  const start = (message: ProxyRequest, responseHeaders: Record<string, string | string[] | undefined>) => {
    const recording = new ResponseRecording(clock, responseBodyBytes);
    recording.start(200, { ...responseHeaders, ...NDJSON_HEADERS });
    return { message, recording };
  };
  // The upgrade is kept as a 200 (a tape keeps final answers), without its WebSocket handshake
  // headers but the subprotocol the upstream chose, which replay answers with (never a key).
  const chosen = upstream.headers['sec-websocket-protocol'];
  const opened: Record<string, string | string[] | undefined> = {};
  for (const [name, value] of Object.entries(upstream.headers)) if (!name.startsWith('sec-websocket-')) opened[name] = value;
  if (typeof chosen === 'string' && chosen !== '' && !carriesRealtimeKey(chosen)) opened['sec-websocket-protocol'] = chosen;
  current = start(handshake, opened);
  // A FakeProvider marks its upgrade only: every event of its session is fake, and recorded so.
  const eventHeaders = upstream.headers[FAKE_RESPONSE_HEADER] === undefined ? {} : { [FAKE_RESPONSE_HEADER]: '1' };
  const settle = (): void => {
    if (current === undefined) return;
    if (!record) core.counts.passthrough++;
    else if (unrecordable !== undefined) {
      core.counts.refused++;
      core.problem(unrecordable);
    } else core.recorder!.recordAfterSend(route, current.message, current.recording);
    current = undefined;
    unrecordable = undefined;
  };
  let ended = false;
  const end = (code = 1000): void => {
    if (ended) return;
    ended = true;
    session.ended();
    settle();
    client?.close(code);
    upstream.socket.close(code);
  };
  session.close = () => {
    end(1001);
    client?.terminate();
    upstream.socket.terminate();
  };
  upstream.socket.onMessage((data, binary) => {
    if (ended) return;
    if (binary)
      unrecordable = `A binary message from the upstream of the Realtime session ${route.path} was forwarded but not recorded: its events are JSON text.`;
    current?.recording.data(binary ? data : Buffer.concat([data, NEWLINE]));
    if (client === undefined) held.push([data, binary]);
    else client.send(data, binary);
  });
  upstream.socket.onClose(() => end());
  upstream.socket.onError((error) => {
    core.counts.upstreamErrors++;
    core.problem(`The Realtime session ${route.path} with upstream "${route.upstream.name}" failed: ${error.message}`);
  });
  try {
    // The client is answered with the subprotocol the upstream chose, or none when it chose none.
    client = await acceptWebSocket(request, socket, head, requestBodyBytes, {}, (offered) =>
      typeof chosen === 'string' && offered.has(chosen) ? chosen : false,
    );
  } catch (error) {
    // The client's handshake failed or it left while the upstream opened: the live session goes too.
    session.close();
    throw error;
  }
  if (session.closing) return session.close();
  for (const [data, binary] of held.splice(0)) client.send(data, binary);
  client.onMessage((data, binary) => {
    if (ended) return;
    settle();
    current = start({ method: WEBSOCKET_MESSAGE_METHOD, url: request.url ?? '/', headers: { 'content-type': 'application/json' }, body: data }, eventHeaders);
    if (binary) unrecordable = `A binary message of the Realtime session ${route.path} was forwarded but not recorded: its events are JSON text.`;
    upstream.socket.send(data, binary);
  });
  client.onClose(() => end());
  client.onError((error) => refuseTooLargeFrame(core, route, error));
}

// A client frame over the request body limit: ws has closed the session with 1009 (message too
// big) without reading it. Refused and counted as a body over the limit is over HTTP (a 413), so
// the run fails and its summary says why.
function refuseTooLargeFrame(core: ProxyCore, route: Route, error: Error): void {
  if ((error as NodeJS.ErrnoException).code !== 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') return;
  core.answer(refuseTooLarge(core.context, route, WEBSOCKET_MESSAGE_METHOD, 'the session was closed with 1009 (message too big)'));
}

const NEWLINE = Buffer.from('\n');

// A session the tape recorded no subprotocol for: the first the client offers (as a server that
// speaks them all would), never one that carries a key.
function firstWithoutKey(offered: ReadonlySet<string>): string | false {
  for (const protocol of offered) if (!carriesRealtimeKey(protocol)) return protocol;
  return false;
}

// An error the upgrade cannot carry as an event: an HTTP answer on the raw socket.
function refuseUpgrade(socket: Duplex, answer: OwnAnswer): void {
  if (answer.kind !== 'error') {
    socket.destroy();
    return;
  }
  const reply = errorReply(answer, false);
  const lines = [`HTTP/1.1 ${reply.status} ${reply.status === 404 ? 'Not Found' : 'Error'}`, 'connection: close'];
  for (const [name, value] of Object.entries(reply.headers)) lines.push(`${name}: ${value}`);
  socket.end(`${lines.join('\r\n')}\r\n\r\n${reply.body}`);
}

// A Realtime `error` event for a miss, as the API sends one for an event it refuses: the SDK
// raises it with its message and the client's event id.
function errorEvent(message: string, type: string, index: number, eventId: unknown): Record<string, unknown> {
  return realtimeErrorEvent(
    `event_modeltape_miss_${index}`,
    { type: 'invalid_request_error', code: type, message: maskSecrets(message), param: null },
    eventId,
  );
}

function eventIdOf(data: Buffer): unknown {
  try {
    return (JSON.parse(data.toString('utf8')) as { event_id?: unknown }).event_id;
  } catch {
    return undefined;
  }
}
