import { BoundedHistory, DEFAULT_HISTORY_LIMIT } from './bounded-history.js';
import { captureRequest, exchangeKey, type CompiledKeyRules } from '../recordings/internal.js';
import { ReplayEngine, explainMiss, prepareResponse, type PreparedResponse, type RepeatPolicy } from '../lookup/internal.js';
import { guessProvider, modeltapeErrorBody, providerPath, type Provider } from '../providers/internal.js';
import { fetchResponse } from './fetch-adapter.js';
import { serveOverHttp, type FakeServer, type ListenOptions } from './http-listener.js';
import { FAKE_HEADER, type WireResponse } from './wire-response.js';
import type { FakeRequest } from './fake-request.js';

export interface TapeFakeOptions {
  /** Past the last recording of a request: miss (`none`) or reuse it (`last`). @default 'none' */
  repeat?: RepeatPolicy;
  /** Refuse a tape holding exchanges a FakeProvider answered. @default false */
  requireLive?: boolean;
}

/** What a tape fake answered, and what it could not. */
export interface TapeFakeSummary {
  hits: number;
  misses: number;
  /** The miss messages, in order: the first 1000 (DEFAULT_HISTORY_LIMIT); `misses` counts them all. */
  problems: string[];
}

/**
 * A provider that answers in process from a tape, through the replay engine the proxy uses:
 * the same keys, the same strict lookup, the same miss explanations, the same bytes. Give its
 * `fetch` to an SDK, or `listen()` for a base URL.
 */
export class TapeFake {
  readonly engine: ReplayEngine;
  readonly #rules: CompiledKeyRules;
  readonly #upstreams: Set<string>;
  readonly #prepared = new WeakMap<object, PreparedResponse>();
  readonly #summary = { hits: 0, misses: 0 };
  readonly #problems = new BoundedHistory<string>(DEFAULT_HISTORY_LIMIT, 'first');

  private constructor(engine: ReplayEngine, rules: CompiledKeyRules, upstreams: Set<string>) {
    this.engine = engine;
    this.#rules = rules;
    this.#upstreams = upstreams;
  }

  static open(file: string, options: TapeFakeOptions = {}): TapeFake {
    const { engine } = ReplayEngine.fromTape(file, options);
    const rules = engine.keyRules;
    const upstreams = new Set(engine.entries().map((entry) => entry.exchange.upstream));
    return new TapeFake(engine, rules, upstreams);
  }

  summary(): TapeFakeSummary {
    return { ...this.#summary, problems: this.#problems.entries() };
  }

  /** Throws unless every recorded exchange was used and nothing missed. */
  assertConsumed(): void {
    const unused = this.engine.unused();
    if (this.#summary.misses === 0 && unused.length === 0 && this.#summary.hits > 0) return;
    const lines = [
      ...(this.#summary.hits === 0 && this.#summary.misses === 0 ? ['no request reached the tape fake'] : []),
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
    const request = new Request(input, init);
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const body = Buffer.from(await request.arrayBuffer());
    return fetchResponse(
      this.#answer({ method: request.method, path: `${url.pathname}${url.search}`, headers, body: '' }, body),
      request.signal,
      (milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds)),
    );
  };

  listen(options: ListenOptions = {}): Promise<FakeServer> {
    return serveOverHttp(
      async (request) => this.#answer(request, Buffer.from(request.bytes ?? Buffer.from(request.body, 'utf8'))),
      options,
      (milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds)),
    );
  }

  #answer(request: FakeRequest, body: Buffer): WireResponse {
    const [pathname, query = ''] = request.path.split('?') as [string, string?];
    const { upstream, provider, path } = this.#route(pathname);
    const recorded = captureRequest({ method: request.method, path, query, headers: request.headers, body }, this.#rules);
    const key = exchangeKey(upstream, recorded, this.#rules);
    const result = this.engine.lookup(key);
    if (result.kind !== 'hit') {
      const error = explainMiss(this.engine, upstream, recorded, key, result, pathname);
      this.#summary.misses++;
      this.#problems.push(error.message);
      return {
        status: 400,
        headers: { 'content-type': 'application/json', 'x-should-retry': 'false', 'x-modeltape-error': 'modeltape_replay_miss', [FAKE_HEADER]: '1' },
        body: JSON.stringify(modeltapeErrorBody(provider, 400, 'modeltape_replay_miss', error.message)),
      };
    }
    this.#summary.hits++;
    let prepared = this.#prepared.get(result.entry.exchange);
    if (prepared === undefined) {
      prepared = prepareResponse(result.entry.exchange.response);
      this.#prepared.set(result.entry.exchange, prepared);
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(prepared.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    delete headers['content-length'];
    if (prepared.frames) return { status: prepared.status, headers, frames: prepared.frames.map((frame) => frame.bytes) };
    return { status: prepared.status, headers, body: prepared.body };
  }

  // `/openai/…` and `/anthropic/…` name their upstream, as behind the proxy; a bare path goes to
  // the only upstream the tape holds, else to Anthropic for /messages and OpenAI otherwise.
  #route(pathname: string): { upstream: string; provider: Provider; path: string } {
    const prefixed = /^\/([a-z0-9][a-z0-9_-]*)(\/.*)$/.exec(pathname);
    let upstream: string;
    let path = pathname;
    if (prefixed && this.#upstreams.has(prefixed[1]!)) {
      upstream = prefixed[1]!;
      path = prefixed[2]!;
    } else if (this.#upstreams.size === 1) {
      upstream = [...this.#upstreams][0]!;
    } else {
      upstream = /^(\/v1)?\/messages$/.test(pathname) ? 'anthropic' : 'openai';
    }
    const guessed = guessProvider(upstream);
    const provider: Provider = guessed === 'openai' && /^(\/v1)?\/messages$/.test(path) ? 'anthropic' : guessed;
    return { upstream, provider, path: providerPath(provider, path) };
  }
}
