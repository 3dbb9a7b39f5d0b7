import type { IncomingHttpHeaders } from 'node:http';
import {
  FAKE_RESPONSE_HEADER,
  FrameSplitter,
  SecretInTapeError,
  encodeBody,
  exchangeKey,
  headerValue,
  isSecretHeader,
  isSecretQueryPair,
  recordedAtOf,
  redactResponseHeaders,
  responsePayloads,
  streamFormatOf,
  type Exchange,
  type RecordedResponse,
  type TapeWriter,
} from '../../recordings/internal.js';
import { ModeltapeError } from '../../core/internal.js';
import { answeredModelOf, routeOf, withoutClientSecret, withoutProviderPrefix } from '../../providers/internal.js';
import type { ReplayEngine } from '../../lookup/internal.js';
import { contentCodings, decodeContent } from './content-coding.js';
import type { ProxyRequest } from './proxy-request.js';
import type { RequestKeys } from './request-keys.js';
import type { Route } from './router.js';
import { TERMINAL_EVENTS, endsWithTerminalEvent } from './stream-end.js';

/**
 * Collects one upstream response for the tape while it streams through to the client. Holds at
 * most `limit` bytes: past it, it keeps nothing and {@link finish} says why.
 */
export class ResponseRecording {
  #clock: () => number;
  #limit: number;
  #startedAt = 0;
  #status = 0;
  #headers: IncomingHttpHeaders = {};
  #splitter: FrameSplitter | undefined;
  #chunks: Buffer[] = [];
  #length = 0;
  #closeDelimited = false;

  constructor(clock: () => number, limit: number) {
    this.#clock = clock;
    this.#limit = limit;
  }

  /** A FakeProvider answered (its marker header was on the response). */
  get fromFake(): boolean {
    return this.#headers[FAKE_RESPONSE_HEADER] !== undefined;
  }

  /** The body went past the limit: nothing of it is kept. */
  get overLimit(): boolean {
    return this.#length > this.#limit;
  }

  start(status: number, headers: IncomingHttpHeaders): void {
    this.#startedAt = this.#clock();
    this.#status = status;
    this.#headers = headers;
    // Neither a length nor chunked framing: only the connection closing ends the body.
    this.#closeDelimited = headers['content-length'] === undefined && headers['transfer-encoding'] === undefined && status !== 204 && status !== 304;
    const format = streamFormatOf(headerValue(headers, 'content-type'), headers['content-length'] === undefined);
    // A compressed stream is decoded whole at the end; frame boundaries need plain bytes.
    if (format !== undefined && contentCodings(headerValue(headers, 'content-encoding')).length === 0) this.#splitter = new FrameSplitter(format);
  }

  data(chunk: Buffer): void {
    if (this.overLimit) return;
    this.#length += chunk.length;
    if (this.overLimit) {
      // Memory stays bounded: what was held goes, and the rest only passes through.
      this.#splitter = undefined;
      this.#chunks = [];
      return;
    }
    if (this.#splitter) this.#splitter.push(chunk, this.#elapsed());
    else this.#chunks.push(chunk);
  }

  /**
   * What the tape stores. Throws, with the reason, for a response that must not be recorded.
   * `redact` gives the bytes of a whole (not streamed) body as the tape keeps them: what replay
   * serves, and what its `sha256` is of.
   */
  finish(redact: (body: Buffer) => Buffer = (body) => body): RecordedResponse {
    if (this.overLimit) {
      throw new ModeltapeError(
        'response_too_large',
        `the response body is over the ${describeBytes(this.#limit)} limit, so it reached the client but is not on the tape. Raise the limit with --max-response-body BYTES (limits.responseBodyBytes in the config file) to record it.`,
      );
    }
    const response: RecordedResponse = { status: this.#status, headers: redactResponseHeaders(this.#headers) };
    const contentType = headerValue(this.#headers, 'content-type');
    if (this.#splitter) {
      response.stream = { format: this.#splitter.format, frames: this.#splitter.finish(this.#elapsed()) };
      this.#checkEnded(response);
      return response;
    }
    // One chunk (a small body) is its own whole: no copy.
    const raw = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks);
    const encoding = headerValue(this.#headers, 'content-encoding');
    let bytes: Buffer | undefined;
    try {
      bytes = decodeContent(raw, encoding, this.#limit);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ERR_BUFFER_TOO_LARGE') throw error;
      throw new ModeltapeError(
        'response_too_large',
        `the response body (${raw.length} bytes as sent, content-encoding ${encoding}) decodes to more than the ${describeBytes(this.#limit)} limit, so it reached the client but is not on the tape. Raise the limit with --max-response-body BYTES (limits.responseBodyBytes in the config file) to record it.`,
      );
    }
    if (bytes === undefined) {
      // A coding this Node cannot undo: the exact bytes with their header, served as they came.
      response.headers['content-encoding'] = encoding!;
      if (raw.length > 0) response.body = { base64: raw.toString('base64') };
      return response;
    }
    const format = streamFormatOf(contentType, this.#headers['content-length'] === undefined);
    if (format !== undefined) {
      const splitter = new FrameSplitter(format);
      const atMs = this.#elapsed();
      splitter.push(bytes, atMs);
      response.stream = { format, frames: splitter.finish(atMs) };
      this.#checkEnded(response);
      return response;
    }
    const body = encodeBody(redact(bytes), contentType, { exact: true });
    if (body !== undefined) response.body = body;
    return response;
  }

  #checkEnded(response: RecordedResponse): void {
    if (!this.#closeDelimited || endsWithTerminalEvent(response.stream!.frames)) return;
    throw new ModeltapeError(
      'incomplete_stream',
      `the upstream closed a stream without a length or chunked framing before its terminating event (${TERMINAL_EVENTS}), so it may have been cut short; it reached the client as it came, but is not on the tape as a complete stream. Record it again.`,
    );
  }

  #elapsed(): number {
    return Math.max(0, Math.round(this.#clock() - this.#startedAt));
  }
}

/** What an {@link ExchangeRecorder} writes to, and whom it tells. */
export interface ExchangeRecorderOptions {
  /** `auto` replays what it recorded to later identical requests; `record` only counts it. */
  mode: 'record' | 'auto';
  /**
   * Record mode: `replace` (the default) numbers a run's recordings of a request from 0, and one
   * whose key and ordinal the tape holds replaces that recording in place; `append` numbers them
   * after the tape's, keeping every recording. Auto mode records only what the tape cannot
   * answer, so it always appends.
   */
  rerecord: RerecordPolicy;
  engine: ReplayEngine;
  writer: TapeWriter;
  keys: RequestKeys;
  /** The wall clock whose UTC date an exchange carries as `recordedAt`. */
  now: () => Date;
  /** An exchange was appended (a failed write is reported by the writer); `replacing` when it re-records one the tape holds. */
  onRecorded(replacing: boolean): void;
  /** An exchange was not recorded: a secret in it, or a response that cannot be recorded faithfully. */
  onRefused(message: string): void;
}

/** What record mode does with a request the tape already holds (see {@link ExchangeRecorderOptions.rerecord}). */
export const RERECORD_POLICIES = ['replace', 'append'] as const;
export type RerecordPolicy = (typeof RERECORD_POLICIES)[number];

/**
 * Turns forwarded responses into exchanges on the tape, each after its response has gone to the
 * client, so the client never waits for the tape.
 */
export class ExchangeRecorder {
  #options: ExchangeRecorderOptions;
  // Responses ended in this turn of the event loop, recorded in order at the next one.
  #queue: Array<[Route, ProxyRequest, ResponseRecording]> = [];
  #settled: (() => void) | undefined;
  // Record mode, replacing: how many recordings of each key this run made.
  #runOrdinals = new Map<string, number>();

  constructor(options: ExchangeRecorderOptions) {
    this.#options = options;
  }

  /** Records the exchange at the next turn of the event loop, once Node has sent the response. */
  recordAfterSend(route: Route, request: ProxyRequest, recording: ResponseRecording): void {
    // One immediate for all the responses that end in a turn, not one each.
    if (this.#queue.push([route, request, recording]) === 1) setImmediate(() => this.#recordQueued());
  }

  #recordQueued(): void {
    const queue = this.#queue;
    this.#queue = [];
    let next = 0;
    try {
      while (next < queue.length) {
        const [route, request, recording] = queue[next++]!;
        this.#record(route, request, recording);
      }
    } finally {
      if (next < queue.length) {
        // A callback threw: the rest are recorded at the next turn, as when each had its own immediate.
        if (this.#queue.length === 0) setImmediate(() => this.#recordQueued());
        this.#queue = [...queue.slice(next), ...this.#queue];
      } else if (this.#queue.length === 0) this.#settled?.();
    }
  }

  /** Waits for the recordings still pending, then closes the tape. */
  async close(): Promise<void> {
    if (this.#queue.length > 0) {
      await new Promise<void>((resolve) => {
        this.#settled = resolve;
      });
    }
    this.#options.writer.close();
  }

  #record(route: Route, request: ProxyRequest, recording: ResponseRecording): void {
    const { mode, engine, writer, keys } = this.#options;
    // Everything here runs after the response was sent, outside any request handler: a failure
    // (a body that does not decode, a line that does not fit the schema) is counted and told,
    // never thrown, or it would take the whole proxy down with it.
    try {
      const recordedRequest = keys.capture(route, request);
      const key = exchangeKey(route.upstream.name, recordedRequest, keys.rules);
      const replacing = mode === 'record' && this.#options.rerecord === 'replace';
      const ordinal = replacing ? (this.#runOrdinals.get(key) ?? 0) : engine.nextOrdinal(key);
      const exchange: Exchange = {
        key,
        ordinal,
        upstream: route.upstream.name,
        source: recording.fromFake ? 'fake' : 'live',
        recordedAt: recordedAtOf(this.#options.now()),
        request: recordedRequest,
        // A Realtime client secret minted for a browser is a key the answer exists to carry: the
        // tape keeps the answer, the secret replaced (the client got it; it expires in a minute).
        response: recording.finish((body) => (route.upstream.provider === 'openai' ? withoutClientSecret(request.method, route.path, body) : body)),
      };
      refuseEchoedCredential(request, route.query, exchange.response, `${request.method} ${route.path}`);
      // Provenance, read once here: the model the answer says answered (the client is in the request).
      if (exchange.response.status >= 200 && exchange.response.status < 300) {
        const api = routeOf(recordedRequest.method, withoutProviderPrefix(recordedRequest.path).path, route.upstream.provider)?.api;
        const answeredModel = answeredModelOf(api, responsePayloads(exchange.response));
        if (answeredModel !== undefined) exchange.response.answeredModel = answeredModel;
      }
      const replaces = replacing && engine.holdsRecording(key, ordinal);
      writer.append(exchange, { replacing: replaces });
      // Auto mode replays what it recorded to later identical requests; record mode only
      // needs the ordinals.
      if (mode === 'auto') engine.addRecorded(exchange);
      else if (replacing) this.#runOrdinals.set(key, ordinal + 1);
      else engine.countRecorded(exchange);
      this.#options.onRecorded(replaces);
    } catch (error) {
      this.#options.onRefused(
        error instanceof SecretInTapeError ? error.message : `Could not record ${request.method} ${route.path}: ${(error as Error).message}`,
      );
    }
  }
}

/**
 * Refuses a response that repeats a credential its request carried: a secret header's value (a
 * key, a bearer token, an AWS access key id, session token or signature) or a secret query
 * parameter's (Azure's `api-key`, which the tape drops) in the answer's headers, body or frames.
 * AWS's `InvalidSignatureException` quotes the canonical request, session token included; a
 * gateway may echo a key. No shape detector knows these values (an Azure key is 32 hex digits),
 * but the request does.
 */
function refuseEchoedCredential(request: ProxyRequest, query: string, response: RecordedResponse, description: string): void {
  const values: Array<[string, string]> = [];
  const carried: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined && isSecretHeader(name)) carried.push([`${name} header`, Array.isArray(value) ? value.join(' ') : value]);
  }
  for (const [name, value] of new URLSearchParams(query)) if (isSecretQueryPair(name, value)) carried.push([`${name} query parameter`, value || name]);
  for (const [name, value] of carried) {
    for (const part of value.split(/[\s,;=/]+/)) {
      // Long enough to be a credential, and not the scheme's own words (`AWS4-HMAC-SHA256`) or
      // the header names a signature lists (`x-amz-content-sha256`).
      if (part.length >= 16 && !CREDENTIAL_SCHEME_WORDS.has(part) && !/^[a-z][a-z0-9]*(?:-[a-z0-9]+)+$/.test(part)) values.push([name, part]);
    }
  }
  if (values.length === 0) return;
  const text = JSON.stringify(response);
  const echoed = values.filter(([, value]) => text.includes(value) || text.includes(JSON.stringify(value).slice(1, -1)));
  if (echoed.length === 0) return;
  throw new SecretInTapeError(
    `the response to ${description}`,
    echoed.map(([name, value]) => ({
      path: '.response',
      rule: 'echoed-credential',
      masked: `[part of the ${name} the request carried, ${value.length} chars]`,
    })),
  );
}

const CREDENTIAL_SCHEME_WORDS = new Set(['AWS4-HMAC-SHA256', 'SignedHeaders']);

/** `32 MiB (33554432 bytes)`. */
export function describeBytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB (${bytes} bytes)` : `${bytes} bytes`;
}
