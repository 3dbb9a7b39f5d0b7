// The wire-format conformance battery: for each wire API, one table entry says how to ask for each
// case (plain text, a system prompt, a tool call, tool results, structured output, streams, a
// refused request, scripted failures, a script that ran out) and how to check the answer: every
// JSON body and stream event against the provider's published schema (spec-validator.ts), the
// stream against the API's event grammar (providers/<provider>/<api>/stream-grammar.ts), error
// bodies against the provider's error shape, and the official clients reading the very bytes.
// A surface is anything that answers the API (`fake.fetch`, `fake.listen()`, a tape replayed by
// FakeProvider.fromTape or the proxy); `runWireBattery` runs every case over one, the way Polly
// runs one persister suite over every persister.
//
// Adding an API is one entry in WIRE_APIS_UNDER_TEST: Gemini (gemini-generate, …) and Ollama
// (ollama-chat, …) go at the end, beside the others, with their spec names in spec-validator.ts
// and their grammar checkers in providers/gemini/… and providers/ollama/….

import Anthropic from '@anthropic-ai/sdk';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText, type LanguageModel } from 'ai';
import OpenAI from 'openai';
import { expect } from 'vitest';
import { failures, type FakeProvider, type Failure, type WireApi } from 'modeltape/fake-provider';
import { checkChatStreamGrammar, checkMessagesStreamGrammar, checkResponsesStreamGrammar, type GrammarEvent } from '../../providers/internal.js';
import { validateAgainstSpec, type SpecProvider } from './spec-validator.js';

/** A request as a surface is asked it: the provider's own path, unprefixed. */
export interface WireRequest {
  method: 'GET' | 'POST';
  path: string;
  body?: Record<string, unknown>;
}

/** What a surface answered, as bytes on the wire. */
export interface WireAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/** One thing that answers wire requests: the fake in process, over HTTP, a tape, a proxy. */
export interface WireSurface {
  name: string;
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
  /** A word that keeps the request's key apart from the other cases'. */
  tag: string;
}

/** What the answer must be. */
export type Outcome = 'answer' | 'stream' | 'stream-error' | 'http-error';

export interface WireCase {
  name: string;
  shape: Shape;
  /** Scripts the fake for this case; cases without one come last, once the script is spent. */
  script?: (fake: FakeProvider) => void;
  outcome: Outcome;
  /** For `http-error`: the status. */
  status?: number;
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
  /** Which upstream of a proxy carries it. */
  upstream: 'openai' | 'anthropic';
  request(shape: Shape): WireRequest;
  /** The cases this API has (model lists and embeddings have no turns, so fewer). */
  cases: WireCase[];
  spec: SpecSchemas;
  /** The API's stream grammar (providers/<provider>/<api>/stream-grammar.ts). */
  grammar?: (events: readonly GrammarEvent[]) => string[];
  /** Whether a stream event is an error (validated as the error schema, not an event). */
  isErrorEvent?: (event: GrammarEvent, data: Record<string, unknown>) => boolean;
  /** An answer body as the spec types it, where the wire may differ (base64 embeddings, decoded). */
  asSpecified?: (body: unknown) => unknown;
  /** What is wrong with an error body in the provider's shape; empty when it fits. */
  errorShape(body: unknown): string[];
  /** The official clients read `answer` as the answer to `request`; returns how many clients did. */
  clients(answer: WireAnswer, request: WireRequest, testCase: WireCase): Promise<number>;
}

/** What a run of the battery checked, so a run that checked nothing fails. */
export interface BatteryCounts {
  cases: number;
  bodies: number;
  events: number;
  grammars: number;
  errorShapes: number;
  clients: number;
}

const weather = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
const answerSchema = {
  type: 'object',
  properties: { city: { type: 'string' }, temperature: { type: 'number' } },
  required: ['city', 'temperature'],
  additionalProperties: false,
};

const say = (text: string) => (fake: FakeProvider) => void fake.willSay(text);
const fail = (failure: Failure) => (fake: FakeProvider) => void fake.willFail(failure);

/** The cases every turn API has; `overloaded` is the status the provider's overload has (Anthropic 529, OpenAI 503). */
function turnCases(overloaded: number): WireCase[] {
  const cases: WireCase[] = [];
  for (const stream of [false, true]) {
    const mode = stream ? 'streamed' : 'plain';
    const ok: Outcome = stream ? 'stream' : 'answer';
    cases.push(
      { name: `${mode}: plain text`, shape: { stream, tag: `text-${mode}` }, script: say('Hello there, how are you today?'), outcome: ok },
      { name: `${mode}: a system prompt`, shape: { stream, system: true, tag: `system-${mode}` }, script: say('Brief it is.'), outcome: ok },
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
    { name: 'plain: a refused request', shape: { refused: true, tag: 'refused' }, outcome: 'http-error', status: 400 },
    // A spent script is the fake's own 422 (never a repeated answer), in the provider's error shape.
    { name: 'plain: the script ran out', shape: { tag: 'spent-plain' }, outcome: 'http-error', status: 422 },
    { name: 'streamed: the script ran out', shape: { stream: true, tag: 'spent-streamed' }, outcome: 'http-error', status: 422 },
  );
  return cases;
}

// --- the official clients, reading the bytes a surface answered ---------------------------------

/** A `fetch` that answers every call with `answer`'s bytes: the client reads what the surface sent. */
function replaying(answer: WireAnswer): typeof fetch {
  return async () => new Response(answer.status === 204 ? null : answer.text, { status: answer.status, headers: answer.headers });
}

/** Runs the client's call to its end (draining a stream) and says how it ended. */
async function settle(call: () => Promise<unknown>): Promise<{ value?: unknown; items: number; errorEvents: number; error?: unknown }> {
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

/** Checks an official client's reading against the case's outcome. */
function expectClientReading(client: string, reading: Awaited<ReturnType<typeof settle>>, testCase: WireCase, apiError: new (...args: never[]) => Error): void {
  const where = `${client} reading "${testCase.name}"`;
  if (testCase.outcome === 'http-error') {
    expect(reading.error, `${where}: expected an API error`).toBeInstanceOf(apiError);
    expect((reading.error as { status?: number }).status, where).toBe(testCase.status);
    return;
  }
  if (testCase.outcome === 'stream-error') {
    // The openai SDK throws for a stream error nested as `.error` (chat, and Responses as the real
    // API sends it); the fake's Responses error event is the spec's flat shape, which the SDK hands
    // on as an `error` event instead. Either way the caller sees it.
    if (reading.error === undefined) expect(reading.errorEvents, `${where}: expected the stream's error to reach the caller`).toBe(1);
    else expect(reading.error, `${where}: expected the stream's error to reach the caller as an API error`).toBeInstanceOf(apiError);
    return;
  }
  expect(reading.error, `${where}: expected it to accept the answer`).toBeUndefined();
  if (testCase.outcome === 'stream') expect(reading.items, `${where}: events read`).toBeGreaterThan(0);
}

/** Whether the Vercel AI SDK reads this case: turns without tools or schemas (it sends its own request). */
function vercelReads(testCase: WireCase): boolean {
  return !testCase.shape.tools && !testCase.shape.structured && !testCase.shape.refused && testCase.outcome !== 'stream-error';
}

async function vercelReading(model: LanguageModel, testCase: WireCase): Promise<number> {
  const where = `@ai-sdk reading "${testCase.name}"`;
  if (testCase.shape.stream) {
    const parts: string[] = [];
    const errors: unknown[] = [];
    const result = streamText({ model, prompt: 'Hi', maxRetries: 0, onError: ({ error }) => void errors.push(error) });
    for await (const part of result.fullStream) parts.push(part.type);
    if (testCase.outcome === 'http-error') {
      expect(errors.length, `${where}: the failure reaches onError`).toBe(1);
      expect((errors[0] as { statusCode?: number }).statusCode, where).toBe(testCase.status);
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
  else {
    expect(reading.error, where).toBeUndefined();
    expect(reading.result!.text.length, where).toBeGreaterThan(0);
  }
  return 1;
}

function openAiClient(answer: WireAnswer): OpenAI {
  return new OpenAI({ apiKey: 'fake-key', baseURL: 'https://api.openai.com/v1', fetch: replaying(answer), maxRetries: 0 });
}

// --- error shapes -------------------------------------------------------------------------------

function openAiErrorShape(body: unknown): string[] {
  const error = (body as { error?: Record<string, unknown> } | null)?.error;
  if (error === undefined || error === null || typeof error !== 'object') return [`expected {"error":{…}}, found ${JSON.stringify(body)?.slice(0, 120)}`];
  const problems: string[] = [];
  if (typeof error.message !== 'string' || error.message === '') problems.push('.error.message: expected a non-empty string');
  if (typeof error.type !== 'string') problems.push('.error.type: expected a string');
  for (const name of ['param', 'code']) if (!(name in error)) problems.push(`.error.${name}: expected the key (null when there is none)`);
  return problems;
}

function anthropicErrorShape(body: unknown): string[] {
  const record = body as { type?: unknown; error?: Record<string, unknown> } | null;
  if (record?.type !== 'error' || typeof record.error !== 'object' || record.error === null)
    return [`expected {"type":"error","error":{…}}, found ${JSON.stringify(body)?.slice(0, 120)}`];
  const problems: string[] = [];
  if (typeof record.error.type !== 'string' || !record.error.type.endsWith('_error')) problems.push('.error.type: expected a string ending in _error');
  if (typeof record.error.message !== 'string' || record.error.message === '') problems.push('.error.message: expected a non-empty string');
  return problems;
}

// --- the APIs -----------------------------------------------------------------------------------

const chat: WireApiUnderTest = {
  api: 'openai-chat',
  upstream: 'openai',
  request: (shape) => ({
    method: 'POST',
    path: '/v1/chat/completions',
    body: {
      model: 'gpt-4o',
      ...(shape.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
      messages: shape.refused
        ? []
        : [
            ...(shape.system ? [{ role: 'system', content: 'Be brief.' }] : []),
            { role: 'user', content: `Weather in Paris? (${shape.tag})` },
            ...(shape.toolResults
              ? [
                  {
                    role: 'assistant',
                    content: null,
                    tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
                  },
                  { role: 'tool', tool_call_id: 'call_1', content: '14 °C' },
                ]
              : []),
          ],
      ...(shape.tools ? { tools: [{ type: 'function', function: { name: 'get_weather', parameters: weather, strict: true } }] } : {}),
      ...(shape.structured ? { response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: answerSchema, strict: true } } } : {}),
    },
  }),
  cases: turnCases(503),
  spec: { provider: 'openai', body: 'CreateChatCompletionResponse', event: 'CreateChatCompletionStreamResponse', error: 'ErrorResponse' },
  grammar: checkChatStreamGrammar,
  isErrorEvent: (_event, data) => 'error' in data,
  errorShape: openAiErrorShape,
  async clients(answer, request, testCase) {
    const body = request.body as unknown as OpenAI.ChatCompletionCreateParams;
    expectClientReading('openai', await settle(() => openAiClient(answer).chat.completions.create(body)), testCase, OpenAI.APIError);
    if (!vercelReads(testCase)) return 1;
    return 1 + (await vercelReading(createOpenAI({ apiKey: 'fake-key', fetch: replaying(answer) }).chat('gpt-4o'), testCase));
  },
};

const responses: WireApiUnderTest = {
  api: 'openai-responses',
  upstream: 'openai',
  request: (shape) => ({
    method: 'POST',
    path: '/v1/responses',
    body: {
      model: 'gpt-4o',
      ...(shape.stream ? { stream: true } : {}),
      ...(shape.system ? { instructions: 'Be brief.' } : {}),
      input: shape.refused
        ? 7
        : shape.toolResults
          ? [
              { role: 'user', content: `Weather in Paris? (${shape.tag})` },
              { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
              { type: 'function_call_output', call_id: 'call_1', output: '14 °C' },
            ]
          : `Weather in Paris? (${shape.tag})`,
      ...(shape.tools ? { tools: [{ type: 'function', name: 'get_weather', parameters: weather, strict: true }] } : {}),
      ...(shape.structured ? { text: { format: { type: 'json_schema', name: 'answer', schema: answerSchema, strict: true } } } : {}),
    },
  }),
  cases: turnCases(503),
  spec: { provider: 'openai', body: 'Response', event: 'ResponseStreamEvent', error: 'ErrorResponse' },
  grammar: checkResponsesStreamGrammar,
  errorShape: openAiErrorShape,
  async clients(answer, request, testCase) {
    const body = request.body as unknown as OpenAI.Responses.ResponseCreateParams;
    expectClientReading('openai', await settle(() => openAiClient(answer).responses.create(body)), testCase, OpenAI.APIError);
    if (!vercelReads(testCase)) return 1;
    return 1 + (await vercelReading(createOpenAI({ apiKey: 'fake-key', fetch: replaying(answer) }).responses('gpt-4o'), testCase));
  },
};

const messages: WireApiUnderTest = {
  api: 'anthropic-messages',
  upstream: 'anthropic',
  request: (shape) => ({
    method: 'POST',
    path: '/v1/messages',
    body: {
      model: 'claude-opus-4-8',
      // A Messages request without max_tokens is refused.
      ...(shape.refused ? {} : { max_tokens: 256 }),
      ...(shape.stream ? { stream: true } : {}),
      ...(shape.system ? { system: 'Be brief.' } : {}),
      messages: [
        { role: 'user', content: `Weather in Paris? (${shape.tag})` },
        ...(shape.toolResults
          ? [
              { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
              { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '14 °C' }] },
            ]
          : []),
      ],
      ...(shape.tools ? { tools: [{ name: 'get_weather', input_schema: weather }] } : {}),
      ...(shape.structured ? { output_config: { format: { type: 'json_schema', schema: answerSchema } } } : {}),
    },
  }),
  cases: turnCases(529),
  spec: { provider: 'anthropic', body: 'Message', event: 'MessageStreamEvent', error: 'ErrorResponse' },
  grammar: checkMessagesStreamGrammar,
  isErrorEvent: (event) => event.event === 'error',
  errorShape: anthropicErrorShape,
  async clients(answer, request, testCase) {
    const client = new Anthropic({ apiKey: 'fake-key', baseURL: 'https://api.anthropic.com', fetch: replaying(answer), maxRetries: 0 });
    const body = request.body as unknown as Anthropic.MessageCreateParams;
    expectClientReading('@anthropic-ai/sdk', await settle(() => client.messages.create(body)), testCase, Anthropic.APIError);
    if (!vercelReads(testCase)) return 1;
    return 1 + (await vercelReading(createAnthropic({ apiKey: 'fake-key', fetch: replaying(answer) })('claude-opus-4-8'), testCase));
  },
};

const embeddings: WireApiUnderTest = {
  api: 'openai-embeddings',
  upstream: 'openai',
  request: (shape) => ({
    method: 'POST',
    path: '/v1/embeddings',
    body: shape.refused
      ? { model: 'text-embedding-3-small' }
      : { model: 'text-embedding-3-small', input: ['a', shape.tag], encoding_format: shape.tag === 'base64' ? 'base64' : 'float' },
  }),
  cases: [
    { name: 'floats', shape: { tag: 'floats' }, outcome: 'answer' },
    // The spec types `embedding` as numbers only; base64 vectors are checked by the client reading them.
    { name: 'base64', shape: { tag: 'base64' }, outcome: 'answer' },
    { name: 'a refused request', shape: { refused: true, tag: 'refused' }, outcome: 'http-error', status: 400 },
  ],
  spec: { provider: 'openai', body: 'CreateEmbeddingResponse', error: 'ErrorResponse' },
  asSpecified: (body) => {
    const record = body as { data: Array<{ embedding: unknown }> };
    const floats = (base64: string): number[] => {
      const bytes = Buffer.from(base64, 'base64');
      return [...new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)];
    };
    return { ...record, data: record.data.map((item) => (typeof item.embedding === 'string' ? { ...item, embedding: floats(item.embedding) } : item)) };
  },
  errorShape: openAiErrorShape,
  async clients(answer, request, testCase) {
    const body = request.body as unknown as OpenAI.EmbeddingCreateParams;
    expectClientReading('openai', await settle(() => openAiClient(answer).embeddings.create(body)), testCase, OpenAI.APIError);
    return 1;
  },
};

const models: WireApiUnderTest = {
  api: 'openai-models',
  upstream: 'openai',
  request: () => ({ method: 'GET', path: '/v1/models' }),
  cases: [{ name: 'the model list', shape: { tag: 'list' }, outcome: 'answer' }],
  spec: { provider: 'openai', body: 'ListModelsResponse', error: 'ErrorResponse' },
  errorShape: openAiErrorShape,
  async clients(answer, _request, testCase) {
    const reading = await settle(async () => {
      const page = await openAiClient(answer).models.list();
      expect(page.data.length, 'models listed').toBeGreaterThan(0);
      return page.data;
    });
    expectClientReading('openai', reading, testCase, OpenAI.APIError);
    return 1;
  },
};

/** Every wire API the battery checks. Gemini and Ollama entries go here as their surfaces land. */
export const WIRE_APIS_UNDER_TEST: readonly WireApiUnderTest[] = [chat, responses, messages, embeddings, models];

// --- the checks ---------------------------------------------------------------------------------

/** The events of a server-sent-event stream: its `event:` line and its `data:` lines joined. */
export function sseEvents(text: string): GrammarEvent[] {
  return text
    .split(/\r?\n\r?\n/)
    .filter((frame) => frame.trim() !== '' && !frame.split(/\r?\n/).every((line) => line.startsWith(':')))
    .map((frame) => {
      const lines = frame.split(/\r?\n/);
      const event = lines
        .find((line) => line.startsWith('event:'))
        ?.slice(6)
        .trim();
      const data = lines
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''))
        .join('\n');
      return { event, data };
    });
}

// The one place the fake follows the wire rather than the spec: Anthropic text blocks carry no
// `citations` key, as the real API sends them (and @ai-sdk/anthropic rejects `citations: null`),
// while the spec lists it as required and nullable. It is filled in as null before validating.
function withAnthropicCitations(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withAnthropicCitations);
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) copy[name] = withAnthropicCitations(item);
  if (copy.type === 'text' && typeof copy.text === 'string' && !('citations' in copy)) copy.citations = null;
  return copy;
}

function expectSpec(provider: SpecProvider, schema: string, value: unknown, where: string): void {
  const result = validateAgainstSpec(provider, schema, provider === 'anthropic' ? withAnthropicCitations(value) : value);
  expect(result.errors, `${where} as ${provider} ${schema}: ${JSON.stringify(value)?.slice(0, 300)}`).toEqual([]);
}

/** Checks one answer to one case, adding to `counts` what it checked. */
export async function checkAnswer(
  api: WireApiUnderTest,
  testCase: WireCase,
  request: WireRequest,
  answer: WireAnswer,
  counts: BatteryCounts,
  where: string,
): Promise<void> {
  const isStream = testCase.outcome === 'stream' || testCase.outcome === 'stream-error';
  expect(answer.status, `${where}: status`).toBe(testCase.outcome === 'http-error' ? testCase.status : 200);
  const type = answer.headers.get('content-type') ?? '';
  if (isStream) {
    expect(type, `${where}: content-type`).toMatch(/^text\/event-stream/);
    const events = sseEvents(answer.text);
    expect(events.length, `${where}: a stream with no events checks nothing`).toBeGreaterThan(0);
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
      expectSpec(api.spec.provider, isError ? api.spec.error : api.spec.event!, data, `${where} event ${position}`);
      counts.events++;
    }
    if (testCase.outcome === 'stream-error')
      expect(errors + events.filter((event) => event.event === 'error').length, `${where}: the stream carries its error`).toBeGreaterThan(0);
    expect(api.grammar!(events), `${where}: stream grammar`).toEqual([]);
    counts.grammars++;
  } else {
    expect(type, `${where}: content-type`).toMatch(/^application\/json/);
    const body = JSON.parse(answer.text) as unknown;
    if (testCase.outcome === 'http-error') {
      expect(api.errorShape(body), `${where}: error shape`).toEqual([]);
      counts.errorShapes++;
    }
    if (testCase.outcome === 'http-error') expectSpec(api.spec.provider, api.spec.error, body, where);
    else expectSpec(api.spec.provider, api.spec.body, api.asSpecified?.(body) ?? body, where);
    counts.bodies++;
  }
  counts.clients += await api.clients(answer, request, testCase);
  counts.cases++;
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

/** Scripted cases first: those without a script ask once the script is spent. */
export function orderedCases(api: WireApiUnderTest): WireCase[] {
  return [...api.cases.filter((testCase) => testCase.script !== undefined), ...api.cases.filter((testCase) => testCase.script === undefined)];
}

/** Asks `surface` every case of `api` in order and checks each answer; returns what was checked. */
export async function runWireBattery(api: WireApiUnderTest, surface: WireSurface): Promise<BatteryCounts> {
  const counts: BatteryCounts = { cases: 0, bodies: 0, events: 0, grammars: 0, errorShapes: 0, clients: 0 };
  for (const testCase of orderedCases(api)) {
    const request = api.request(testCase.shape);
    const answer = await surface.send(request);
    await checkAnswer(api, testCase, request, answer, counts, `${surface.name} ${api.api} "${testCase.name}"`);
  }
  return counts;
}
