// A Realtime session over WebSocket (OpenAI `/v1/realtime?model=…`), recorded and replayed through
// the proxy's one decision path. The upgrade is one exchange (a GET whose answer is the server's
// events before the client's first: `session.created`); each event the client sends is another
// (method `WS`, keyed without its event id and with its audio as a digest), answered by the events
// the server sent until the client's next one.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WEBSOCKET_MESSAGE_METHOD, redactPathQuery } from '../recordings/internal.js';
import { admitRequest, decideAdmitted, type DecisionContext } from './decide-request.js';
import { errorReply, type OwnAnswer, type ProxyCore } from './proxy-core.js';
import type { ProxyRequest } from './proxy-request.js';
import { ResponseRecording } from './response-recording.js';
import type { Route } from './router.js';
import type { UpstreamClient } from './upstream.js';
import { acceptWebSocket } from './websocket.js';

const NDJSON = { 'content-type': 'application/x-ndjson', 'transfer-encoding': 'chunked' };
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
const REALTIME_PATH = /^(?:\/v1)?\/realtime$/;

/** The Realtime sessions a proxy has open, closed with it. */
export type RealtimeSessions = Set<{ close(): void }>;

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
  const handshake: ProxyRequest = { method: 'GET', url, headers: request.headers, body: Buffer.alloc(0) };
  const admitted = admitRequest(core.context, handshake);
  if (admitted.kind === 'refuse') return refuseUpgrade(socket, core.answer(admitted));
  const { route } = admitted;
  if (route.upstream.provider !== 'openai' || !REALTIME_PATH.test(route.path)) {
    return refuseUpgrade(socket, {
      kind: 'error',
      provider: route.upstream.provider,
      status: 404,
      type: 'modeltape_no_websocket_route',
      message: `modeltape proxies WebSocket upgrades for OpenAI Realtime (/openai/v1/realtime?model=…) only, not GET ${redactPathQuery(url)}.`,
    });
  }
  const decision = decideAdmitted(core.context, route, handshake);
  if (decision.kind === 'forward') {
    void relay(core, upstreams!, sessions, route, handshake, request, socket, head, decision.record);
    return;
  }
  void replay(core, sessions, route, request, socket, head, core.answer(decision));
}

// The session from the tape: the upgrade's recorded events, then each client event's.
async function replay(
  core: ProxyCore,
  sessions: RealtimeSessions,
  route: Route,
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  opening: OwnAnswer,
): Promise<void> {
  const client = await acceptWebSocket(request, socket, head);
  const session = { close: () => client.close(1001, 'modeltape proxy closing') };
  sessions.add(session);
  client.onClose(() => sessions.delete(session));
  client.onError(() => undefined);
  // A session replayed from the tape stays on it: a client event it does not hold is a miss, even in auto mode.
  const replaying: DecisionContext = { ...core.context, options: { ...core.context.options, mode: 'replay' } };
  let misses = 0;
  const send = (answer: OwnAnswer, eventId: unknown): void => {
    if (answer.kind === 'recorded') {
      for (const event of eventsOf(answer.prepared.frames, answer.prepared.body)) client.send(event);
    } else if (answer.kind === 'error') {
      client.send(JSON.stringify(errorEvent(answer.message, answer.type, ++misses, eventId)));
    }
  };
  send(opening, undefined);
  if (opening.kind === 'error') {
    client.close(1008, 'no recorded session');
    return;
  }
  client.onMessage((text) => {
    const message: ProxyRequest = {
      method: WEBSOCKET_MESSAGE_METHOD,
      url: request.url ?? '/',
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(text, 'utf8'),
    };
    const decision = decideAdmitted(replaying, route, message);
    if (decision.kind === 'forward') return;
    send(core.answer(decision), eventIdOf(text));
  });
}

// A live session, relayed both ways; recorded as one exchange for the upgrade and one per client event.
async function relay(
  core: ProxyCore,
  upstreams: UpstreamClient,
  sessions: RealtimeSessions,
  route: Route,
  handshake: ProxyRequest,
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  record: boolean,
): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || NOT_FORWARDED.has(name) || name.startsWith('sec-websocket-')) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  let upstream: Awaited<ReturnType<UpstreamClient['openWebSocket']>>;
  try {
    upstream = await upstreams.openWebSocket(route.upstream, route.forwardPath, headers);
  } catch (error) {
    const status = (error as { status?: number }).status;
    core.counts.upstreamErrors++;
    const message = `Upstream "${route.upstream.name}" (${route.upstream.baseUrl}) failed for the Realtime session ${route.path}: ${(error as Error).message}`;
    core.problem(message);
    return refuseUpgrade(socket, { kind: 'error', provider: route.upstream.provider, status: status ?? 502, type: 'modeltape_upstream_error', message });
  }
  // The upstream speaks first (session.created), maybe before the client's end is open: held till then.
  let client: Awaited<ReturnType<typeof acceptWebSocket>> | undefined;
  const held: string[] = [];
  let current: { message: ProxyRequest; recording: ResponseRecording };
  let unrecordable: string | undefined;
  const clock = (): number => performance.now();
  const start = (message: ProxyRequest, responseHeaders: Record<string, string | string[] | undefined>) => {
    const recording = new ResponseRecording(clock, core.options.limits.responseBodyBytes);
    recording.start(200, { ...responseHeaders, ...NDJSON });
    return { message, recording };
  };
  // The upgrade is kept as a 200 (a tape keeps final answers), without its WebSocket handshake headers.
  const opened: Record<string, string | string[] | undefined> = {};
  for (const [name, value] of Object.entries(upstream.headers)) if (!name.startsWith('sec-websocket-')) opened[name] = value;
  current = start(handshake, opened);
  upstream.socket.onMessage((text, binary) => {
    if (binary)
      unrecordable = `A binary message from the upstream of the Realtime session ${route.path} was forwarded but not recorded: its events are JSON text.`;
    current.recording.data(Buffer.from(`${text}\n`, 'utf8'));
    if (client === undefined) held.push(text);
    else client.send(text);
  });
  client = await acceptWebSocket(request, socket, head);
  for (const text of held.splice(0)) client.send(text);
  const accepted = client;
  // Closed with the proxy: what the session holds is recorded before the tape is.
  const session = { close: () => end(1001) };
  sessions.add(session);
  const settle = (): void => {
    if (!record) core.counts.passthrough++;
    else if (unrecordable !== undefined) {
      core.counts.refused++;
      core.problem(unrecordable);
    } else core.recorder!.recordAfterSend(route, current.message, current.recording);
    unrecordable = undefined;
  };
  accepted.onMessage((text, binary) => {
    settle();
    current = start(
      { method: WEBSOCKET_MESSAGE_METHOD, url: request.url ?? '/', headers: { 'content-type': 'application/json' }, body: Buffer.from(text, 'utf8') },
      {},
    );
    if (binary) unrecordable = `A binary message of the Realtime session ${route.path} was forwarded but not recorded: its events are JSON text.`;
    upstream.socket.send(text);
  });
  let ended = false;
  function end(code = 1000): void {
    if (ended) return;
    ended = true;
    sessions.delete(session);
    settle();
    accepted.close(code);
    upstream.socket.close(code);
  }
  accepted.onClose(() => end());
  upstream.socket.onClose(() => end());
  accepted.onError(() => undefined);
  upstream.socket.onError((error) => {
    core.counts.upstreamErrors++;
    core.problem(`The Realtime session ${route.path} with upstream "${route.upstream.name}" failed: ${error.message}`);
  });
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
  return {
    type: 'error',
    event_id: `event_modeltape_miss_${index}`,
    error: { type: 'invalid_request_error', code: type, message, param: null, event_id: typeof eventId === 'string' ? eventId : null },
  };
}

// The server events of a recorded answer: its NDJSON lines (or a body, one event).
function eventsOf(frames: Array<{ bytes: Buffer }> | undefined, body: Buffer): string[] {
  if (frames === undefined) return body.length === 0 ? [] : [body.toString('utf8')];
  return frames.map(({ bytes }) => bytes.toString('utf8').replace(/\r?\n$/, ''));
}

function eventIdOf(text: string): unknown {
  try {
    return (JSON.parse(text) as { event_id?: unknown }).event_id;
  } catch {
    return undefined;
  }
}
