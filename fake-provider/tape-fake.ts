import { BoundedHistory, DEFAULT_HISTORY_LIMIT } from './bounded-history.js';
import { maskSecrets, readFetchInput } from '../core/internal.js';
import type { ReplayEngine, RepeatPolicy } from '../lookup/internal.js';
import {
  CHAOS_HEADER,
  ProxyCore,
  answerInProcess,
  answerOf,
  errorReply,
  type ChaosOptions,
  type ChaosSummary,
  type InProcessAnswer,
  type OwnAnswer,
} from '../proxy/internal.js';
import { serveOverHttp, type FakeServer, type ListenOptions } from './http-listener.js';
import { FAKE_HEADER, type WireResponse } from './wire-response.js';

export interface TapeFakeOptions {
  /** Past the last recording of a request: miss (`none`) or reuse it (`last`). @default 'none' */
  repeat?: RepeatPolicy;
  /** Refuse a tape holding exchanges a FakeProvider answered. @default false */
  requireLive?: boolean;
  /** Chaos replay: faults at exchanges chosen from a seed, each answering once before the recording (see `ChaosOptions`). */
  chaos?: ChaosOptions;
}

/** What a tape fake answered, and what it could not. */
export interface TapeFakeSummary {
  hits: number;
  misses: number;
  /** The miss messages, in order: the first 1000 (DEFAULT_HISTORY_LIMIT); `misses` counts them all. */
  problems: string[];
  /** With `chaos`: the seed and every planned fault, with whether a request met it. */
  chaos?: ChaosSummary;
}

/**
 * A provider that answers in process from a tape, through the replaying proxy's own core: the
 * same keys, the same strict lookup, the same counts and miss explanations, the same bytes, with
 * no socket. Give its `fetch` to an SDK, or `listen()` for a base URL.
 */
export class TapeFake {
  readonly engine: ReplayEngine;
  readonly #core: ProxyCore;
  readonly #upstreams: Set<string>;
  readonly #problems = new BoundedHistory<string>(DEFAULT_HISTORY_LIMIT, 'first');

  private constructor(core: ProxyCore, upstreams: Set<string>) {
    this.#core = core;
    this.engine = core.engine!;
    this.#upstreams = upstreams;
  }

  static open(file: string, options: TapeFakeOptions = {}): TapeFake {
    const core = ProxyCore.open({ tape: file, mode: 'replay', log: () => undefined, ...options }, { upstreamsFromTape: true });
    return new TapeFake(core, core.engine!.upstreams());
  }

  summary(): TapeFakeSummary {
    const counts = this.#core.counts;
    const chaos = this.#core.chaosSummary();
    return {
      hits: counts.hits,
      misses: counts.misses + counts.refused + counts.internalErrors,
      problems: this.#problems.entries(),
      ...(chaos === undefined ? {} : { chaos }),
    };
  }

  /** Throws unless every recorded exchange was used and nothing missed. */
  assertConsumed(): void {
    const unused = this.engine.unused();
    const { hits, misses } = this.summary();
    if (misses === 0 && unused.length === 0 && hits > 0) return;
    const lines = [
      ...(hits === 0 && misses === 0 ? ['no request reached the tape fake'] : []),
      ...unused.map(
        (entry) =>
          `never used: ${this.engine.file}:${entry.line} ${entry.exchange.request.method} ${entry.exchange.request.path} (ordinal ${entry.exchange.ordinal})`,
      ),
      ...this.#problems.entries(),
      ...(this.#problems.dropped > 0 ? [`… and ${this.#problems.dropped} more misses, not kept`] : []),
    ];
    throw new Error(`Tape ${this.engine.file} was not replayed exactly:\n${lines.map((line) => `  - ${line.split('\n').join('\n    ')}`).join('\n')}`);
  }

  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = await readFetchInput(input, init);
    const response = await answerInProcess(this.#core, request, this.#proxyUrl(request.url.pathname, request.url.search), (decided) => this.#observe(decided));
    // An answer of modeltape's own (a miss) says that no provider gave it.
    if (response.headers.has('x-modeltape-error')) response.headers.set(FAKE_HEADER, '1');
    return response;
  };

  listen(options: ListenOptions = {}): Promise<FakeServer> {
    return serveOverHttp(
      async (request) => {
        const [pathname = '/', query] = request.path.split('?') as [string, string?];
        const body = Buffer.from(request.bytes ?? Buffer.from(request.body, 'utf8'));
        const decided = answerOf(this.#core, {
          method: request.method,
          url: this.#proxyUrl(pathname, query === undefined ? '' : `?${query}`),
          headers: request.headers,
          body,
        });
        this.#observe(decided);
        return wireResponseOf(decided.answer);
      },
      options,
      (milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds)),
    );
  }

  #observe({ problem }: InProcessAnswer): void {
    if (problem !== undefined) this.#problems.push(maskSecrets(problem));
  }

  // The request in the proxy's form, `/<upstream>/<path>`: `/openai/…` and `/anthropic/…` name
  // their upstream, as behind the proxy; a bare path goes to the only upstream the tape holds,
  // else to Anthropic for /messages and OpenAI otherwise.
  #proxyUrl(pathname: string, search: string): string {
    const prefixed = /^\/([a-z0-9][a-z0-9_-]*)(\/.*)$/.exec(pathname);
    if (prefixed && this.#upstreams.has(prefixed[1]!)) return `${pathname}${search}`;
    const upstream = this.#upstreams.size === 1 ? [...this.#upstreams][0]! : /^(\/v1)?\/messages$/.test(pathname) ? 'anthropic' : 'openai';
    return `/${upstream}${pathname}${search}`;
  }
}

// The fake's listener writes what the proxy would: the recorded bytes, or modeltape's own error.
function wireResponseOf(answer: OwnAnswer): WireResponse {
  if (answer.kind === 'fault') {
    const { effect } = answer;
    if (effect.kind === 'drop') return { status: 200, headers: { [FAKE_HEADER]: '1' }, cut: { kind: 'drop', afterFrames: 0 } };
    if (effect.kind === 'stall') return { status: 200, headers: { [FAKE_HEADER]: '1' }, cut: { kind: 'hang', afterFrames: 0 } };
    const headers: Record<string, string> = { [FAKE_HEADER]: '1', [CHAOS_HEADER]: answer.fault.kind };
    if (effect.kind === 'reply') {
      Object.assign(headers, effect.headers);
      delete headers['content-length'];
      return { status: effect.status, headers, body: effect.body };
    }
    for (const [name, value] of Object.entries(effect.prepared.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    delete headers['content-length'];
    return {
      status: effect.prepared.status,
      headers,
      frames: (effect.prepared.frames ?? []).map((frame) => frame.bytes),
      cut: { kind: 'drop', afterFrames: effect.afterFrames },
    };
  }
  if (answer.kind === 'error') {
    const reply = errorReply(answer, false);
    delete reply.headers['content-length'];
    return { status: reply.status, headers: { ...reply.headers, [FAKE_HEADER]: '1' }, body: reply.body };
  }
  const { prepared } = answer;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(prepared.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  delete headers['content-length'];
  if (prepared.frames) return { status: prepared.status, headers, frames: prepared.frames.map((frame) => frame.bytes) };
  return { status: prepared.status, headers, body: prepared.body };
}
