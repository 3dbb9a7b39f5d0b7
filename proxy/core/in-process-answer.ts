// The proxy's answers in process, as a fetch `Response`: what `session.fetch` and
// `FakeProvider.fromTape` give an SDK in replay, with no socket between them and the tape. The
// decision and the counting are the HTTP proxy's own (decide-request.ts, proxy-core.ts); only the
// way the answer travels differs.
import { ModeltapeError, type FetchInput } from '../../core/internal.js';
import type { PreparedResponse } from '../../lookup/internal.js';
import { errorProviderOf } from '../../providers/internal.js';
import { decideRequest, type RequestDecision } from './decide-request.js';
import { routeRequest } from './router.js';
import { CHAOS_HEADER, errorReply, type OwnAnswer, type ProxyCore } from './proxy-core.js';
import type { ProxyRequest } from './proxy-request.js';
import type { Provider } from './upstream-table.js';

/** A request answered here: the answer, counted, and what went wrong, if anything. */
export interface InProcessAnswer {
  answer: OwnAnswer;
  /** Undefined for a hit; else why the tape did not answer (a miss, a refusal, modeltape failing), as the summary tells it. */
  problem: string | undefined;
  /** The provider whose error shape an error takes. */
  provider: Provider;
}

/**
 * Decides a request and counts its answer, exactly as the HTTP proxy does, for a replaying core
 * (nothing it decides goes upstream). What modeltape itself fails on (a recorded line that no
 * longer reads) is a counted internal error, as over HTTP.
 */
export function answerOf(core: ProxyCore, request: ProxyRequest): InProcessAnswer {
  let decision: RequestDecision;
  try {
    decision = decideRequest(core.context, request);
  } catch (error) {
    return internalError(core, request, error as Error);
  }
  if (decision.kind === 'forward') {
    // A replaying core never forwards (decide-request.ts); a caller that lets another mode in is a bug.
    throw new ModeltapeError('internal', `modeltape answers in process only when replaying; this core runs in ${core.mode} mode.`);
  }
  const provider = decision.kind === 'refuse' ? decision.response.provider : errorProviderOf(decision.route.upstream.provider, decision.route.path);
  return { answer: core.answer(decision), problem: decision.kind === 'hit' ? undefined : decision.message, provider };
}

function internalError(core: ProxyCore, request: ProxyRequest, error: Error): InProcessAnswer {
  const route = routeRequest(request.url, core.options.upstreams);
  const provider = 'upstream' in route ? route.upstream.provider : 'openai';
  const answer = core.internalError(provider, request.method, request.url, error);
  return { answer, problem: answer.message, provider };
}

/**
 * Answers a fetch call's request from the tape in process as a fetch `Response`, decided and
 * counted exactly as the HTTP proxy would; `url` is the request's path in the proxy's form
 * (`/<upstream>/<path>?<query>`). Rejects as `fetch` does when the request's signal aborts; a
 * recorded stream served at recorded pace then errors. `observe` sees each answer (the tape fake
 * keeps its messages).
 */
export function answerInProcess(core: ProxyCore, request: FetchInput, url: string, observe?: (decided: InProcessAnswer) => void): Response | Promise<Response> {
  const { signal } = request;
  signal?.throwIfAborted();
  // A copy: the bytes may be kept (a miss's nearest diff) after the caller reuses its buffer.
  const body =
    request.body === undefined || request.body.length === 0
      ? EMPTY
      : typeof request.body === 'string'
        ? Buffer.from(request.body, 'utf8')
        : Buffer.from(request.body);
  const proxied: ProxyRequest = { method: request.method, url, headers: request.headers, body };
  let decided = answerOf(core, proxied);
  if (decided.answer.kind === 'fault' && decided.answer.effect.kind === 'drop') {
    observe?.(decided);
    throw droppedConnection();
  }
  if (decided.answer.kind === 'fault' && decided.answer.effect.kind === 'stall') {
    observe?.(decided);
    return stalled(signal);
  }
  let response: Response;
  try {
    response = responseOf(decided.answer, proxied.method, signal);
  } catch (error) {
    // What node:http refuses to send (a header value holding a line break), fetch's Headers refuse too.
    decided = internalError(core, proxied, error as Error);
    response = responseOf(decided.answer, proxied.method, signal);
  }
  observe?.(decided);
  return response;
}

const EMPTY = Buffer.alloc(0);

// Statuses whose response has no body, not even an empty one (fetch refuses one).
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

// A request no answer comes to: it rejects as fetch does when the client's signal aborts (its
// timeout), with the signal's reason; without a signal it never settles, as a hung server never answers.
function stalled(signal: AbortSignal | undefined): Promise<Response> {
  return new Promise<Response>((_resolve, reject) => {
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

// What fetch (undici) rejects with when the server closes the connection before answering.
function droppedConnection(): TypeError {
  const cause = Object.assign(new Error('other side closed (modeltape chaos: drop-connection)'), { code: 'UND_ERR_SOCKET' });
  return new TypeError('fetch failed', { cause });
}

function responseOf(answer: OwnAnswer, method: string, signal: AbortSignal | undefined): Response {
  if (answer.kind === 'fault') {
    const { effect } = answer;
    if (effect.kind === 'cut') {
      const headers = headersOf(effect.prepared);
      headers.set(CHAOS_HEADER, answer.fault.kind);
      return new Response(cutFrames((effect.prepared.frames ?? []).slice(0, effect.afterFrames), answer.fault.kind), {
        status: effect.prepared.status,
        headers,
      });
    }
    // A drop or a stall never reaches here (answerInProcess answers them first).
    if (effect.kind === 'drop' || effect.kind === 'stall') throw droppedConnection();
    return new Response(method === 'HEAD' ? null : effect.body, { status: effect.status, headers: effect.headers });
  }
  if (answer.kind === 'error') {
    const reply = errorReply(answer, false);
    return new Response(method === 'HEAD' ? null : reply.body, { status: reply.status, headers: reply.headers });
  }
  const { prepared, pace } = answer;
  const headers = headersOf(prepared);
  if (method === 'HEAD' || NULL_BODY_STATUSES.has(prepared.status)) return new Response(null, { status: prepared.status, headers });
  if (prepared.frames === undefined || pace === 'instant') return new Response(prepared.body, { status: prepared.status, headers });
  return new Response(pacedFrames(prepared.frames, signal), { status: prepared.status, headers });
}

function headersOf(prepared: PreparedResponse): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(prepared.headers)) {
    if (Array.isArray(value)) for (const each of value) headers.append(name, each);
    else headers.append(name, value);
  }
  return headers;
}

// The first frames of a recorded stream, then the error undici's fetch gives a body whose
// connection closed before its end (`TypeError: terminated`, cause `UND_ERR_SOCKET`).
function cutFrames(frames: ReadonlyArray<{ bytes: Buffer }>, kind: string): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (index < frames.length) controller.enqueue(frames[index++]!.bytes);
      else {
        const cause = Object.assign(new Error(`other side closed (modeltape chaos: ${kind})`), { code: 'UND_ERR_SOCKET' });
        controller.error(new TypeError('terminated', { cause }));
      }
    },
  });
}

// A recorded stream with its frames' recorded gaps, as the HTTP proxy sends it at `pace: 'recorded'`.
function pacedFrames(frames: ReadonlyArray<{ atMs: number; bytes: Buffer }>, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stop = (): void => {
    clearTimeout(timer);
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const started = performance.now();
      let index = 0;
      const next = (): void => {
        const elapsed = performance.now() - started;
        while (index < frames.length && frames[index]!.atMs <= elapsed) controller.enqueue(frames[index++]!.bytes);
        if (index < frames.length) timer = setTimeout(next, frames[index]!.atMs - elapsed);
        else {
          stop();
          controller.close();
        }
      };
      onAbort = () => {
        stop();
        controller.error(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      next();
    },
    cancel() {
      stop();
    },
  });
}
