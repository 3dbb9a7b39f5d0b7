// The wire-format conformance battery: for each wire API, one table entry says how to ask for each
// case (plain text, a system prompt, a tool call, tool results, structured output, streams, a
// refused request, scripted failures, a dropped connection, a script that ran out) and how to
// check the answer: every JSON body and stream event against the provider's published schema
// where there is one (spec-validator.ts), the stream against the API's grammar
// (providers/<provider>/<api>/stream-grammar.ts), error bodies against the provider's error
// shape, the fake's marker on every answer (recorded and replayed too), and the official clients
// reading the very bytes. A surface is anything that answers the API (`fake.fetch`,
// `fake.listen()`, the proxy recording the fake, a tape replayed by FakeProvider.fromTape or the
// proxy); `runWireBattery` runs every case over one, the way Polly runs one persister suite over
// every persister.
//
// Stateful APIs (stored responses, conversations, Ollama's local models) ask their cases in the
// order listed, and a case's request may name what an earlier case's answer made (the id of the
// response it created), read from that surface's own answer: see EarlierAnswers and
// statefulEntry.
//
// The entries live one provider a file in test/support/wire-battery/ and are listed in
// test/support/wire-battery/apis.ts (WIRE_APIS_UNDER_TEST). This file holds what they share.

import { EventStreamCodec } from '@smithy/core/event-streams';
import { generateText, streamText, type LanguageModel } from 'ai';
import { expect } from 'vitest';
import { FAKE_HEADER, failures, type FakeProvider, type Failure, type WireApi } from 'modeltape/fake-provider';
import type { GrammarEvent } from '../../providers/internal.js';
import { sseFields } from '../../recordings/internal.js';
import { validateAgainstSpec, type SpecProvider } from './spec-validator.js';

/** A request as a surface is asked it: the provider's own path (and query), unprefixed. */
export interface WireRequest {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
}

/**
 * What a surface answered, as bytes on the wire. `cut` says the connection broke: before any
 * response (`no-response`, status 0), or while the body came (`mid-body`, `text` is what came).
 */
export interface WireAnswer {
  status: number;
  headers: Headers;
  /** The body as UTF-8 text (an AWS event stream's is binary: read `bytes`). */
  text: string;
  /** The body's bytes as they came. */
  bytes: Uint8Array;
  cut?: 'no-response' | 'mid-body';
}

/**
 * How a surface answers a turn whose upstream dropped the connection:
 * - `cut`: the fake itself cuts it: no response, or a stream that stops short;
 * - `relayed`: the proxy recording the fake: a drop before the headers is the proxy's own 502
 *   (`modeltape_upstream_error`, in the provider's shape); after them, the proxy cuts its
 *   client's connection too. Neither is recorded (ResponseRecording is finished only when the
 *   upstream response ends; a failed one counts as an upstream error);
 * - `not-on-tape`: a tape replayed has no such exchange, so those cases are not asked.
 */
export type DropHandling = 'cut' | 'relayed' | 'not-on-tape';

/** One thing that answers wire requests: the fake in process, over HTTP, a tape, a proxy. */
export interface WireSurface {
  name: string;
  drops: DropHandling;
  send(request: WireRequest): Promise<WireAnswer>;
  close(): Promise<void>;
}

/** What a case asks for; each API turns it into a body of its own format. */
export interface Shape {
  system?: boolean;
  tools?: boolean;
  /** The conversation ends in the result of a tool the assistant called. */
  toolResults?: boolean;
  structured?: boolean;
  stream?: boolean;
  /** A body the provider refuses with a 400 before any model runs. */
  refused?: boolean;
  /** A word that keeps the request's key apart from the other cases' (non-turn APIs pick their route by it). */
  tag: string;
}

/**
 * What the answer must be. `dropped`: the connection breaks (see {@link DropHandling}); `empty`:
 * a 200 with no body (Ollama's copy and delete).
 */
export type Outcome = 'answer' | 'empty' | 'stream' | 'stream-error' | 'http-error' | 'dropped';

/**
 * The JSON bodies the earlier cases of a run were answered, by their shape's `tag`: a stateful
 * API's request names what an earlier case made (the response it created, the conversation's
 * item), read from that surface's own answer. Every surface is asked the same cases in the same
 * order, so a replayed tape is asked exactly what was recorded.
 */
export type EarlierAnswers = ReadonlyMap<string, unknown>;

/** The `id` of the body an earlier case (by its tag) was answered: a case that depends on one fails plainly when it is missing. */
export function idOf(earlier: EarlierAnswers, tag: string, pick: (body: Record<string, unknown>) => unknown = (body) => body.id): string {
  const body = earlier.get(tag);
  const id = body === null || typeof body !== 'object' ? undefined : pick(body as Record<string, unknown>);
  if (typeof id !== 'string') throw new Error(`This case depends on the case tagged "${tag}", which gave no id: ${JSON.stringify(body)?.slice(0, 200)}`);
  return id;
}

export interface WireCase {
  name: string;
  shape: Shape;
  /** Scripts the fake for this case; cases without one come last, once the script is spent. */
  script?: (fake: FakeProvider) => void;
  outcome: Outcome;
  /** For `http-error`: the status. */
  status?: number;
  /** For `dropped` streams: the whole events that come before the cut. */
  eventsBeforeCut?: number;
  /** The spec schema of this case's answer, where it is not the API's `spec.body` (a single model, not a list). */
  bodySchema?: string;
  /** Where the spec types no answer (`DELETE /v1/responses/{id}`): what is wrong with the body, checked by hand; empty when it fits. */
  bodyShape?: (body: unknown) => string[];
}

/**
 * One case of a stateful API with its request (which may read what earlier cases were answered)
 * and the official client's call for it. {@link statefulEntry} makes an entry's `cases`,
 * `request` and `clients` of a list of them.
 */
export interface StatefulStep<Client> {
  case: WireCase;
  request(earlier: EarlierAnswers): WireRequest;
  /** The client's call; what it resolves to is settled (a page: return its `data`, or settle would page on). */
  read(client: Client, request: WireRequest): Promise<unknown>;
}

/**
 * An entry's `cases`, `request` and `clients` from its steps, asked in order. `client` is the
 * official client over a `fetch` that answers the surface's bytes; it must make exactly the
 * request the surface was asked (method, path, query), once: the battery asks what the client
 * sends.
 */
export function statefulEntry<Client>(
  steps: readonly StatefulStep<Client>[],
  client: (fetch: typeof globalThis.fetch) => Client,
  reading: { name: string; errors: ClientErrors },
): Pick<WireApiUnderTest, 'cases' | 'request' | 'clients' | 'stateful'> {
  const byTag = new Map(steps.map((step) => [step.case.shape.tag, step]));
  if (byTag.size !== steps.length) throw new Error('Two steps share a tag: each case needs its own.');
  const step = (tag: string) => byTag.get(tag) ?? raise(`No step is tagged "${tag}".`);
  return {
    stateful: true,
    cases: steps.map((each) => each.case),
    request: (shape, earlier) => step(shape.tag).request(earlier),
    async clients(answer, request, testCase) {
      const sent: string[] = [];
      const settled = await settle(() => step(testCase.shape.tag).read(client(replaying(answer, sent)), request));
      const [path, query] = request.path.split('?');
      expect(sent, `${reading.name} "${testCase.name}": the client's request`).toEqual([routeText(request.method, path!, new URLSearchParams(query))]);
      expectClientReading(reading.name, settled, testCase, reading.errors);
      return 1;
    },
  };
}

function raise(message: string): never {
  throw new Error(message);
}

/** The `index`th segment of a request's path (`/v1/responses/{id}`: 3 is the id), decoded. */
export function segmentOf(request: WireRequest, index: number): string {
  const segment = request.path.split('?')[0]!.split('/')[index];
  if (segment === undefined) throw new Error(`${request.path} has no segment ${index}`);
  return decodeURIComponent(segment);
}

/** The schemas of a provider's published spec (test/fixtures/specs) an API's answers must follow. */
export interface SpecSchemas {
  provider: SpecProvider;
  body: string;
  event?: string;
  error: string;
}

/** One wire API under test: how to ask it each case and how to check what comes back. */
export interface WireApiUnderTest {
  api: WireApi;
  /**
   * Which upstream of a proxy carries it (its prefix, `/gemini/…`, and the headers its clients
   * send). Azure OpenAI and Vertex AI serve other providers' wire APIs at routes of their own
   * (`openai-chat` at `/openai/deployments/{d}/chat/completions`, `gemini-generate` and
   * `anthropic-messages` at `…/publishers/{publisher}/models/{model}:…`): each is an entry of its own.
   */
  upstream: 'openai' | 'anthropic' | 'gemini' | 'ollama' | 'bedrock' | 'azure' | 'vertex';
  /** The request for a case; a stateful API's reads the ids earlier cases were answered. */
  request(shape: Shape, earlier: EarlierAnswers): WireRequest;
  /**
   * The routes hold server state (stored responses, conversations, local models): the cases are
   * asked in the order listed, and a case may depend on an earlier one (see {@link EarlierAnswers}).
   * Otherwise scripted cases come first (see {@link orderedCases}).
   */
  stateful?: boolean;
  /** The cases this API has (model lists and embeddings have no turns, so fewer). */
  cases: WireCase[];
  /**
   * The provider's published schemas. Absent where there is none (Google publishes no OpenAPI
   * document for the Gemini API): then the bodies and events are checked by the grammar, the
   * error shape and the clients only, and not counted as validated.
   */
  spec?: SpecSchemas;
  /** How streams are framed: server-sent events, NDJSON lines, or AWS's binary event stream (Bedrock). @default 'sse' */
  streamFormat?: 'sse' | 'ndjson' | 'eventstream';
  /** The API's stream grammar (providers/<provider>/<api>/stream-grammar.ts). */
  grammar?: (events: readonly GrammarEvent[]) => string[];
  /** Whether a stream event is an error (validated as the error schema, not an event). */
  isErrorEvent?: (event: GrammarEvent, data: Record<string, unknown>) => boolean;
  /** An answer body or event as the spec types it, where the wire may differ (base64 embeddings, decoded). */
  asSpecified?: (value: unknown) => unknown;
  /**
   * What the provider sends that its spec does not type (Azure OpenAI's resource errors and its
   * chat streams' prompt-annotation chunk, which OpenAI's spec has no room for): what is wrong with
   * it, checked by hand instead of the spec (empty when it fits), or undefined for what the spec types.
   */
  offSpec?: (value: unknown, kind: 'body' | 'event' | 'error') => string[] | undefined;
  /**
   * What the platform adds to the spec's shape (Azure OpenAI's content-filter annotations): what
   * is wrong with a body or event's additions, or missing from it (empty when it fits), or
   * undefined for one that carries none (a usage chunk). Checked besides the spec.
   */
  annotations?: (value: unknown, kind: 'body' | 'event') => string[] | undefined;
  /** What is wrong with an error body in the provider's shape; empty when it fits. */
  errorShape(body: unknown): string[];
  /** The official clients read `answer` as the answer to `request`; returns how many clients did. */
  clients(answer: WireAnswer, request: WireRequest, testCase: WireCase): Promise<number>;
}

/** What dropped-connection cases a run asked and how they ended (they differ by surface, see {@link DropHandling}). */
export interface DropCounts {
  /** Dropped-connection cases asked. */
  asked: number;
  /** Not asked: the surface replays a tape, which holds no dropped exchange. */
  skipped: number;
  /** Answered by a cut connection (no response, or a stream that stops short). */
  cut: number;
  /** Answered by the proxy's 502 in the provider's error shape. */
  badGateway: number;
  /** Official clients that read a dropped answer and raised (a connection error, or the proxy's 502). */
  clients: number;
}

/** What a run of the battery checked, so a run that checked nothing fails. */
export interface BatteryCounts {
  /** Cases asked and checked, dropped connections apart (see `drops`). */
  cases: number;
  /** JSON bodies read (answers and error bodies). */
  answers: number;
  /** Of them, those validated against the provider's spec. */
  bodies: number;
  /** Stream events read (SSE events, NDJSON lines), `[DONE]` apart. */
  frames: number;
  /** Of them, those validated against the provider's spec. */
  events: number;
  /** Streams checked against the API's grammar. */
  grammars: number;
  errorShapes: number;
  /** Answer bodies the spec has no schema for, checked by the case's `bodyShape` instead. */
  handChecked: number;
  /** Answers that were a 200 with no body, as the case said (they have no schema). */
  empties: number;
  /** Bodies and events the spec does not type, checked by the API's `offSpec` instead. */
  offSpec: number;
  /** Bodies and events whose platform annotations were checked (the API's `annotations`). */
  annotated: number;
  clients: number;
  drops: DropCounts;
}

export const weather = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
export const answerSchema = {
  type: 'object',
  properties: { city: { type: 'string' }, temperature: { type: 'number' } },
  required: ['city', 'temperature'],
  additionalProperties: false,
};

const say = (text: string) => (fake: FakeProvider) => void fake.willSay(text);
const fail = (failure: Failure) => (fake: FakeProvider) => void fake.willFail(failure);

/**
 * The cases every turn API has. `overloaded` is the status the fake gives the provider's overload
 * (Anthropic 529; OpenAI, Gemini and Ollama 503); an API without tools (Ollama's /api/generate)
 * has no tool cases.
 */
export function turnCases(overloaded: number, options: { tools?: boolean } = {}): WireCase[] {
  const tools = options.tools ?? true;
  const cases: WireCase[] = [];
  for (const stream of [false, true]) {
    const mode = stream ? 'streamed' : 'plain';
    const ok: Outcome = stream ? 'stream' : 'answer';
    cases.push(
      { name: `${mode}: plain text`, shape: { stream, tag: `text-${mode}` }, script: say('Hello there, how are you today?'), outcome: ok },
      { name: `${mode}: a system prompt`, shape: { stream, system: true, tag: `system-${mode}` }, script: say('Brief it is.'), outcome: ok },
    );
    if (tools)
      cases.push(
        {
          name: `${mode}: a tool call`,
          shape: { stream, tools: true, tag: `tool-${mode}` },
          script: (fake) => void fake.willCallTool('get_weather', { city: 'Paris' }),
          outcome: ok,
        },
        {
          name: `${mode}: parallel tool calls`,
          shape: { stream, tools: true, tag: `parallel-${mode}` },
          script: (fake) => void fake.willCallTool('get_weather', { city: 'Paris' }).willCallTool('get_weather', { city: 'Lyon' }),
          outcome: ok,
        },
        {
          name: `${mode}: text then a tool call`,
          shape: { stream, tools: true, tag: `text-tool-${mode}` },
          script: (fake) => void fake.willCallTool('get_weather', { city: 'Paris' }, { saying: 'Let me check that.' }),
          outcome: ok,
        },
        {
          name: `${mode}: tool results`,
          shape: { stream, tools: true, toolResults: true, tag: `results-${mode}` },
          script: say('It is 14 °C in Paris.'),
          outcome: ok,
        },
      );
    cases.push(
      {
        name: `${mode}: structured output`,
        shape: { stream, structured: true, tag: `structured-${mode}` },
        script: (fake) => void fake.willAnswer({ city: 'Paris', temperature: 14 }),
        outcome: ok,
      },
      { name: `${mode}: a scripted 429`, shape: { stream, tag: `429-${mode}` }, script: fail(failures.rateLimited()), outcome: 'http-error', status: 429 },
      { name: `${mode}: a scripted 500`, shape: { stream, tag: `500-${mode}` }, script: fail(failures.serverError()), outcome: 'http-error', status: 500 },
      { name: `${mode}: a scripted 503`, shape: { stream, tag: `503-${mode}` }, script: fail(failures.unavailable()), outcome: 'http-error', status: 503 },
      {
        name: `${mode}: a scripted overload`,
        shape: { stream, tag: `overloaded-${mode}` },
        script: fail(failures.overloaded()),
        outcome: 'http-error',
        status: overloaded,
      },
    );
  }
  cases.push(
    {
      name: 'streamed: an error after two chunks',
      shape: { stream: true, tag: 'stream-error' },
      script: fail(failures.streamError({ afterChunks: 2 })),
      outcome: 'stream-error',
    },
    {
      name: 'plain: the connection drops before an answer',
      shape: { tag: 'drop-plain' },
      script: fail(failures.dropConnection()),
      outcome: 'dropped',
    },
    {
      name: 'streamed: the connection drops before the first chunk',
      shape: { stream: true, tag: 'drop-at-once' },
      script: fail(failures.dropConnection({ afterChunks: 0 })),
      outcome: 'dropped',
      eventsBeforeCut: 0,
    },
    {
      name: 'streamed: the connection drops after two chunks',
      shape: { stream: true, tag: 'drop-after-two' },
      script: fail(failures.dropConnection({ afterChunks: 2 })),
      outcome: 'dropped',
      eventsBeforeCut: 2,
    },
    { name: 'plain: a refused request', shape: { refused: true, tag: 'refused' }, outcome: 'http-error', status: 400 },
    // A spent script is the fake's own 422 (never a repeated answer), in the provider's error shape.
    { name: 'plain: the script ran out', shape: { tag: 'spent-plain' }, outcome: 'http-error', status: 422 },
    { name: 'streamed: the script ran out', shape: { stream: true, tag: 'spent-streamed' }, outcome: 'http-error', status: 422 },
  );
  return cases;
}

// --- the official clients, reading the bytes a surface answered ---------------------------------

/**
 * A `fetch` that answers every call with `answer`'s bytes: the client reads what the surface
 * sent. A cut answer breaks as undici's fetch does: it rejects (`fetch failed`) for no response,
 * and the body errors (`terminated`) after the bytes that came. Given `sent`, it notes there each
 * call's route ({@link routeText}).
 */
export function replaying(answer: WireAnswer, sent?: string[]): typeof fetch {
  const socketClosed = () => Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
  return async (input, init) => {
    if (sent !== undefined) {
      const url = new URL(input instanceof Request ? input.url : String(input));
      sent.push(routeText(init?.method ?? (input instanceof Request ? input.method : 'GET'), url.pathname, url.searchParams));
    }
    if (answer.cut === 'no-response') throw new TypeError('fetch failed', { cause: socketClosed() });
    if (answer.cut === 'mid-body') {
      const bytes = answer.bytes;
      let sent = false;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (!sent && bytes.length > 0) {
            sent = true;
            controller.enqueue(bytes);
            return;
          }
          controller.error(new TypeError('terminated', { cause: socketClosed() }));
        },
      });
      return new Response(body, { status: answer.status, headers: answer.headers });
    }
    return new Response(answer.status === 204 ? null : answer.bytes, { status: answer.status, headers: answer.headers });
  };
}

/** `METHOD /path?query` with the query's parameters sorted: two routes compare equal whatever order a client writes its query in. */
export function routeText(method: string, path: string, query: URLSearchParams): string {
  const sorted = [...query.entries()].map(([name, value]) => `${name}=${value}`).sort();
  return `${method.toUpperCase()} ${path}${sorted.length === 0 ? '' : `?${sorted.join('&')}`}`;
}

/**
 * Whether `error` is a broken connection, or wraps one: the client raised undici's `fetch failed`
 * or `terminated` (a socket closed) itself or as the `cause` of its own connection error, rather
 * than reading an answer.
 */
export function isConnectionError(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    if (current instanceof TypeError && (current.message === 'fetch failed' || current.message === 'terminated')) return true;
    if ((current as { code?: unknown }).code === 'UND_ERR_SOCKET') return true;
  }
  return false;
}

export interface Reading {
  value?: unknown;
  items: number;
  errorEvents: number;
  error?: unknown;
}

/** Runs the client's call to its end (draining a stream) and says how it ended. */
export async function settle(call: () => Promise<unknown>): Promise<Reading> {
  let items = 0;
  let errorEvents = 0;
  try {
    const value = await call();
    if (value !== null && typeof value === 'object' && Symbol.asyncIterator in value) {
      for await (const item of value as AsyncIterable<unknown>) {
        items++;
        if ((item as { type?: unknown } | null)?.type === 'error') errorEvents++;
      }
    }
    return { value, items, errorEvents };
  } catch (error) {
    return { items, errorEvents, error };
  }
}

/** How a client's errors look: the class of its API errors and where it keeps the status. */
export interface ClientErrors {
  apiError: abstract new (...args: never[]) => Error;
  /** @default error.status */
  status?: (error: unknown) => number | undefined;
  /** A stream's error event as this client raises it, where it is not an `apiError` (the `ollama` client throws a plain Error). */
  streamError?: (error: unknown) => boolean;
}

/** Checks an official client's reading against the case's outcome. */
export function expectClientReading(client: string, reading: Reading, testCase: WireCase, errors: ClientErrors): void {
  const where = `${client} reading "${testCase.name}"`;
  const status = errors.status ?? ((error: unknown) => (error as { status?: number }).status);
  if (testCase.outcome === 'http-error') {
    expect(reading.error, `${where}: expected an API error`).toBeInstanceOf(errors.apiError);
    expect(status(reading.error), where).toBe(testCase.status);
    return;
  }
  if (testCase.outcome === 'dropped') {
    // A connection error, never a parsed answer nor an API error the provider sent.
    expect(reading.error, `${where}: expected a connection error`).toBeDefined();
    expect(isConnectionError(reading.error), `${where}: expected the broken connection as the error or its cause: ${String(reading.error)}`).toBe(true);
    expect(status(reading.error) ?? 200, `${where}: no error status was read`).toBe(200);
    return;
  }
  if (testCase.outcome === 'stream-error') {
    // The openai SDK throws for a stream error nested as `.error` (chat, and Responses as the real
    // API sends it); the fake's Responses error event is the spec's flat shape, which the SDK hands
    // on as an `error` event instead. Either way the caller sees it.
    if (reading.error === undefined) expect(reading.errorEvents, `${where}: expected the stream's error to reach the caller`).toBe(1);
    else if (errors.streamError?.(reading.error) !== true)
      expect(reading.error, `${where}: expected the stream's error to reach the caller as an API error`).toBeInstanceOf(errors.apiError);
    return;
  }
  // `empty` and `answer`: the client accepted it.
  expect(reading.error, `${where}: expected it to accept the answer`).toBeUndefined();
  if (testCase.outcome === 'stream') expect(reading.items, `${where}: events read`).toBeGreaterThan(0);
}

/** Whether the Vercel AI SDK reads this case: turns without tools or schemas (it sends its own request). */
export function vercelReads(testCase: WireCase): boolean {
  return !testCase.shape.tools && !testCase.shape.structured && !testCase.shape.refused && testCase.outcome !== 'stream-error';
}

/** The Vercel AI SDK (`ai` with the provider's package) reads the answer to a turn; returns 1. */
export async function vercelReading(model: LanguageModel, testCase: WireCase): Promise<number> {
  const where = `@ai-sdk reading "${testCase.name}"`;
  if (testCase.shape.stream) {
    const parts: string[] = [];
    const errors: unknown[] = [];
    const result = streamText({ model, prompt: 'Hi', maxRetries: 0, onError: ({ error }) => void errors.push(error) });
    try {
      for await (const part of result.fullStream) parts.push(part.type);
    } catch (error) {
      // Some providers' streams (@ai-sdk/google, ollama-ai-provider-v2) throw a broken connection out of the stream, past onError.
      errors.push(error);
    }
    if (testCase.outcome === 'http-error') {
      expect(errors.length, `${where}: the failure reaches onError`).toBe(1);
      expect((errors[0] as { statusCode?: number }).statusCode, where).toBe(testCase.status);
    } else if (testCase.outcome === 'dropped') {
      expect(errors.length, `${where}: the broken connection reaches the caller`).toBeGreaterThan(0);
      expect(isConnectionError(errors[0]), `${where}: expected the broken connection as the error or its cause: ${String(errors[0])}`).toBe(true);
      expect(parts, `${where}: a cut stream never finishes`).not.toContain('finish');
    } else {
      expect(errors, where).toEqual([]);
      expect(parts, where).toContain('text-delta');
      expect(parts.at(-1), where).toBe('finish');
    }
    return 1;
  }
  const reading = await generateText({ model, prompt: 'Hi', maxRetries: 0 }).then(
    (result) => ({ result, error: undefined }),
    (error: unknown) => ({ result: undefined, error }),
  );
  if (testCase.outcome === 'http-error') expect((reading.error as { statusCode?: number } | undefined)?.statusCode, where).toBe(testCase.status);
  else if (testCase.outcome === 'dropped') {
    expect(isConnectionError(reading.error), `${where}: expected the broken connection as the error or its cause: ${String(reading.error)}`).toBe(true);
    expect((reading.error as { statusCode?: number }).statusCode, `${where}: no response, so no status`).toBeUndefined();
  } else {
    expect(reading.error, where).toBeUndefined();
    expect(reading.result!.text.length, where).toBeGreaterThan(0);
  }
  return 1;
}

// --- the checks ---------------------------------------------------------------------------------

/** The whole events of a server-sent-event stream: its `event:` line and its `data:` lines joined. */
export function sseEvents(text: string): GrammarEvent[] {
  const frames = text.split(/\r?\n\r?\n/);
  // What follows the last blank line is an event still under way (a cut stream): not an event.
  frames.pop();
  return frames
    .filter((frame) => frame.trim() !== '' && !frame.split(/\r?\n/).every((line) => line.startsWith(':')))
    .map((frame) => sseFields(frame.split(/\r?\n/)));
}

/**
 * The whole messages of an AWS event stream (`application/vnd.amazon.eventstream`, Bedrock's
 * streams), decoded by @smithy/core's codec (which checks both CRCs): each as its `:event-type`
 * (an exception's `:exception-type`, such as `modelStreamErrorException`) and its payload as text
 * (for an InvokeModelWithResponseStream `chunk`, `{"bytes": …}` as sent).
 */
export function eventStreamEvents(bytes: Uint8Array): GrammarEvent[] {
  const events: GrammarEvent[] = [];
  let rest = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // What follows the last whole message is one still under way (a cut stream): not a message.
  while (rest.length >= 4 && rest.length >= rest.readUInt32BE(0)) {
    const length = rest.readUInt32BE(0);
    const message = eventStreamCodec.decode(rest.subarray(0, length));
    const header = (name: string) => {
      const value = message.headers[name];
      return value?.type === 'string' ? value.value : undefined;
    };
    const exception = header(':message-type') === 'exception' || header(':message-type') === 'error';
    events.push({
      event: exception ? (header(':exception-type') ?? header(':error-code')) : header(':event-type'),
      data: Buffer.from(message.body).toString('utf8'),
    });
    rest = rest.subarray(length);
  }
  return events;
}

const eventStreamCodec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString('utf8'),
  (text) => Buffer.from(text, 'utf8'),
);

/** The whole lines of an NDJSON stream, each as an event without a name. */
export function ndjsonEvents(text: string): GrammarEvent[] {
  const lines = text.split('\n');
  // What follows the last newline is a line still under way (a cut stream): not a line.
  lines.pop();
  return lines.filter((line) => line.trim() !== '').map((line) => ({ event: undefined, data: line }));
}

function expectSpec(spec: SpecSchemas, schema: string, value: unknown, where: string): void {
  const result = validateAgainstSpec(spec.provider, schema, value);
  expect(result.errors, `${where} as ${spec.provider} ${schema}: ${JSON.stringify(value)?.slice(0, 300)}`).toEqual([]);
}

const STREAM_TYPES = { sse: /^text\/event-stream/, ndjson: /^application\/x-ndjson/, eventstream: /^application\/vnd\.amazon\.eventstream/ };

/** Reads a stream's events, validating each against the spec where there is one; returns them and the error events. */
function readStream(api: WireApiUnderTest, answer: WireAnswer, counts: BatteryCounts, where: string): { events: GrammarEvent[]; errors: number } {
  const format = api.streamFormat ?? 'sse';
  expect(answer.headers.get('content-type') ?? '', `${where}: content-type`).toMatch(STREAM_TYPES[format]);
  const events = format === 'sse' ? sseEvents(answer.text) : format === 'ndjson' ? ndjsonEvents(answer.text) : eventStreamEvents(answer.bytes);
  let errors = 0;
  for (const [position, event] of events.entries()) {
    if (event.data === '[DONE]') continue;
    const data = JSON.parse(event.data) as Record<string, unknown>;
    const isError = api.isErrorEvent?.(event, data) ?? false;
    if (isError) {
      errors++;
      expect(api.errorShape(data), `${where} event ${position}: error shape`).toEqual([]);
      counts.errorShapes++;
    }
    counts.frames++;
    if (!isError) checkAnnotations(api, data, 'event', counts, `${where} event ${position}`);
    if (checkOffSpec(api, data, isError ? 'error' : 'event', counts, `${where} event ${position}`)) continue;
    if (api.spec === undefined) continue;
    if (isError) expectSpec(api.spec, api.spec.error, data, `${where} event ${position}`);
    else expectSpec(api.spec, api.spec.event!, api.asSpecified?.(data) ?? data, `${where} event ${position}`);
    counts.events++;
  }
  return { events, errors };
}

/** Checks what the API's `offSpec` says the spec does not type; returns whether it did. */
function checkOffSpec(api: WireApiUnderTest, value: unknown, kind: 'body' | 'event' | 'error', counts: BatteryCounts, where: string): boolean {
  const problems = api.offSpec?.(value, kind);
  if (problems === undefined) return false;
  expect(problems, `${where}: what the spec does not type, checked by hand`).toEqual([]);
  counts.offSpec++;
  return true;
}

/** Checks the platform's annotations on a body or event, where the API has them. */
function checkAnnotations(api: WireApiUnderTest, value: unknown, kind: 'body' | 'event', counts: BatteryCounts, where: string): void {
  const problems = api.annotations?.(value, kind);
  if (problems === undefined) return;
  expect(problems, `${where}: the platform's annotations`).toEqual([]);
  counts.annotated++;
}

/** Reads a JSON body: the error shape for an error, the spec where there is one. */
function readBody(api: WireApiUnderTest, testCase: WireCase, answer: WireAnswer, counts: BatteryCounts, where: string, isError: boolean): void {
  expect(answer.headers.get('content-type') ?? '', `${where}: content-type`).toMatch(/^application\/json/);
  const body = JSON.parse(answer.text) as unknown;
  counts.answers++;
  if (isError) {
    expect(api.errorShape(body), `${where}: error shape`).toEqual([]);
    counts.errorShapes++;
  }
  if (!isError && testCase.bodyShape !== undefined) {
    expect(testCase.bodyShape(body), `${where}: the body's shape (the spec has no schema for it)`).toEqual([]);
    counts.handChecked++;
    return;
  }
  if (!isError) checkAnnotations(api, body, 'body', counts, where);
  if (checkOffSpec(api, body, isError ? 'error' : 'body', counts, where)) return;
  if (api.spec === undefined) return;
  if (isError) expectSpec(api.spec, api.spec.error, body, where);
  else expectSpec(api.spec, testCase.bodySchema ?? api.spec.body, api.asSpecified?.(body) ?? body, where);
  counts.bodies++;
}

/** Checks the answer to a dropped-connection case, by how the surface answers drops. */
async function checkDropped(
  api: WireApiUnderTest,
  testCase: WireCase,
  request: WireRequest,
  answer: WireAnswer,
  counts: BatteryCounts,
  where: string,
  handling: DropHandling,
): Promise<void> {
  counts.drops.asked++;
  if (!testCase.shape.stream && handling === 'relayed') {
    // The upstream gave the proxy no response: it answers its own 502 in the provider's shape.
    expect(answer.cut, `${where}: the proxy answers for the upstream that dropped`).toBeUndefined();
    expect(answer.status, `${where}: status`).toBe(502);
    expect(answer.headers.get('x-modeltape-error'), `${where}: the proxy's error`).toBe('modeltape_upstream_error');
    const body = JSON.parse(answer.text) as unknown;
    expect(api.errorShape(body), `${where}: error shape`).toEqual([]);
    counts.drops.badGateway++;
    counts.drops.clients += await api.clients(answer, request, { ...testCase, outcome: 'http-error', status: 502 });
    return;
  }
  if (!testCase.shape.stream) {
    expect(answer.cut, `${where}: no response at all`).toBe('no-response');
    expect(answer.status, `${where}: status`).toBe(0);
  } else {
    // The headers came (200, the stream's type), then some whole events, then the connection broke.
    expect(answer.cut, `${where}: the stream stops short`).toBe('mid-body');
    expect(answer.status, `${where}: status`).toBe(200);
    const scratch = emptyCounts();
    const { events, errors } = readStream(api, answer, scratch, where);
    expect(events.length, `${where}: the events before the cut`).toBe(testCase.eventsBeforeCut);
    expect(errors, `${where}: a cut stream carries no error event`).toBe(0);
    expect(api.grammar!(events).at(-1), `${where}: the grammar sees the stream never ended`).toMatch(
      /^the stream stops after \d+ |^the stream has no |^the stream ends without /,
    );
  }
  counts.drops.cut++;
  counts.drops.clients += await api.clients(answer, request, testCase);
}

/** Checks one answer to one case, adding to `counts` what it checked. */
export async function checkAnswer(
  api: WireApiUnderTest,
  testCase: WireCase,
  request: WireRequest,
  answer: WireAnswer,
  counts: BatteryCounts,
  where: string,
  handling: DropHandling = 'cut',
): Promise<void> {
  if (testCase.outcome === 'dropped') return checkDropped(api, testCase, request, answer, counts, where, handling);
  expect(answer.cut, `${where}: the connection broke`).toBeUndefined();
  expect(answer.status, `${where}: status`).toBe(testCase.outcome === 'http-error' ? testCase.status : 200);
  // A fake answer is never mistaken for the real thing, recorded and replayed too.
  expect(answer.headers.get(FAKE_HEADER), `${where}: the fake's marker (${FAKE_HEADER})`).toBe('1');
  if (testCase.outcome === 'stream' || testCase.outcome === 'stream-error') {
    const { events, errors } = readStream(api, answer, counts, where);
    expect(events.length, `${where}: a stream with no events checks nothing`).toBeGreaterThan(0);
    if (testCase.outcome === 'stream-error')
      expect(errors + events.filter((event) => event.event === 'error').length, `${where}: the stream carries its error`).toBeGreaterThan(0);
    expect(api.grammar!(events), `${where}: stream grammar`).toEqual([]);
    counts.grammars++;
  } else if (testCase.outcome === 'empty') {
    expect(answer.text, `${where}: no body`).toBe('');
    counts.empties++;
  } else readBody(api, testCase, answer, counts, where, testCase.outcome === 'http-error');
  counts.clients += await api.clients(answer, request, testCase);
  counts.cases++;
}

/** An entry's name: its wire API, and the platform that serves it where that is not the API's own provider (`openai-chat on azure`). */
export function entryName(api: WireApiUnderTest): string {
  return api.api.startsWith(`${api.upstream}-`) ? api.api : `${api.api} on ${api.upstream}`;
}

/** Scripts `fake` for every case of `api`, in the order runWireBattery asks them. */
export function scriptFor(api: WireApiUnderTest, fake: FakeProvider): FakeProvider {
  for (const testCase of orderedCases(api)) {
    testCase.script?.(fake);
    // Two cases' tool calls are two turns, not one turn of parallel calls.
    fake.endTurn();
  }
  return fake;
}

/** Scripted cases first: those without a script ask once the script is spent; a stateful API's as listed. */
export function orderedCases(api: WireApiUnderTest): WireCase[] {
  if (api.stateful === true) return [...api.cases];
  return [...api.cases.filter((testCase) => testCase.script !== undefined), ...api.cases.filter((testCase) => testCase.script === undefined)];
}

function emptyCounts(): BatteryCounts {
  return {
    cases: 0,
    answers: 0,
    bodies: 0,
    frames: 0,
    events: 0,
    grammars: 0,
    errorShapes: 0,
    handChecked: 0,
    empties: 0,
    offSpec: 0,
    annotated: 0,
    clients: 0,
    drops: { asked: 0, skipped: 0, cut: 0, badGateway: 0, clients: 0 },
  };
}

/** Asks `surface` every case of `api` in order and checks each answer; returns what was checked. */
export async function runWireBattery(api: WireApiUnderTest, surface: WireSurface): Promise<BatteryCounts> {
  const counts = emptyCounts();
  const earlier = new Map<string, unknown>();
  for (const testCase of orderedCases(api)) {
    if (testCase.outcome === 'dropped' && surface.drops === 'not-on-tape') {
      counts.drops.skipped++;
      continue;
    }
    const request = api.request(testCase.shape, earlier);
    const answer = await surface.send(request);
    await checkAnswer(api, testCase, request, answer, counts, `${surface.name} ${entryName(api)} "${testCase.name}"`, surface.drops);
    if (/^application\/json/.test(answer.headers.get('content-type') ?? '') && answer.cut === undefined)
      earlier.set(testCase.shape.tag, JSON.parse(answer.text));
  }
  return counts;
}
