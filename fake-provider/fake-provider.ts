import { WEBSOCKET_MESSAGE_METHOD, isSecretHeader } from '../recordings/internal.js';
import { acceptWebSocket } from '../proxy/internal.js';
import { ModeltapeError, checkChoice, excerpt, isRecord, maskSecrets, maskValue, readFetchInput } from '../core/internal.js';
import { GenerationCache, generateValue } from '../schema/internal.js';
import { BoundedHistory, checkHistoryLimit, DEFAULT_HISTORY_LIMIT, FakeHistoryTruncatedError, type KeptEntries } from './bounded-history.js';
import { anthropicMessagesSurface } from './anthropic-messages/messages-surface.js';
import { bedrockConverseSurface } from './bedrock-converse/converse-surface.js';
import { bedrockInvokeSurface } from './bedrock-invoke/invoke-surface.js';
import { geminiCountTokensResponse } from './gemini/count-tokens.js';
import { geminiEmbedResponse } from './gemini/embed-content.js';
import { geminiArrayStreamSurface, geminiGenerateSurface, geminiStreamFraming } from './gemini/generate-surface.js';
import { geminiModelsResponse } from './gemini/models-list.js';
import { anthropicModelsResponse } from './anthropic-messages/models-list.js';
import { countTokensResponse } from './anthropic-messages/count-tokens.js';
import { MessageThreads } from './anthropic-messages/message-threads.js';
import {
  PROVIDER_PREFIX,
  isRealtimePath,
  readToolChoice,
  readTurn,
  withoutProviderPrefix,
  type AskedTool,
  type AskedTurn,
  type Provider,
  type TurnApi,
  type WireApi,
  bodyFamilyOf,
} from '../providers/internal.js';
import { FINISH_REASONS, finishFor, finishesOf, type Answer, type ResolvedFinish, type ToolCallAnswer } from './answer.js';
import type { Failure } from './failures.js';
import { DEFAULT_MAX_BODY_BYTES, serveOverHttp, type FakeServer, type ListenOptions, type UpgradeRequest } from './http-listener.js';
import { FakeRealtimeSession, type RealtimeHost } from './openai-realtime/realtime-session.js';
import { refuseUpgrade } from './openai-realtime/refuse-upgrade.js';
import { embeddingsResponse, modelsResponse } from './openai-embeddings.js';
import { openaiChatSurface } from './openai-chat/chat-surface.js';
import { ResponseStore } from './openai-responses/response-store.js';
import { ConversationStore } from './openai-responses/conversation-store.js';
import { answerConversation, answerStoredResponse } from './openai-responses/stored-state-routes.js';
import { openaiResponsesSurface } from './openai-responses/responses-surface.js';
import { ollamaChatSurface } from './ollama/chat-surface.js';
import { ollamaEmbedResponse } from './ollama/embed.js';
import { ollamaGenerateSurface } from './ollama/generate-surface.js';
import { OllamaLocalModels } from './ollama/local-models.js';
import { ollamaModelManagementResponse } from './ollama/model-management.js';
import { ollamaOpenAiModelsResponse, ollamaTagsResponse } from './ollama/tags.js';
import { errorResponse } from './provider-errors.js';
import { SchemaCheck, describeMismatches } from './schema-check.js';
import { Script, describeMatcher, type Matcher, type Rule, type Step, type StepAnswer, type StepOptions } from './script.js';
import { fetchResponse } from './fetch-adapter.js';
import type { FakeRequest } from './fake-request.js';
import { TapeFake, type TapeFakeOptions } from './tape-fake.js';
import type { TurnDecision } from './turn-decision.js';
import { readFakeScript } from './script-file.js';
import { failTurn, fakeError, type IdKind, type RenderContext, type Surface } from './surface.js';
import { promptTokens } from './usage.js';
import { FAKE_HEADER, type WireResponse } from './wire-response.js';
import { requestRoute, type RequestRoute } from './request-route.js';
import { azureChatSurface, azureResponsesSurface, withDeploymentModel } from './azure-openai/azure-surfaces.js';
import { openaiPathOf, refuseAzureRequest } from './azure-openai/azure-refusals.js';

export interface FakeProviderOptions {
  /** Milliseconds since the epoch; `created` fields come from it. @default always 2026-01-01T00:00:00Z */
  now?: () => number;
  /** Makes every id. @default counters per kind: `fake-chatcmpl-0`, `fake-call-0`, `fake-msg-0`, … */
  newId?: (kind: IdKind) => string;
  /** How the fake waits for `delayMs` and `failures.delay`. @default setTimeout */
  sleep?: (milliseconds: number) => Promise<void>;
  /** Seed for values the fake makes up when unscripted (tool arguments, structured answers). @default 0 */
  seed?: number;
  /** Length of embedding vectors when the request names no `dimensions`. @default 8 */
  embeddingDimensions?: number;
  /**
   * How many calls, turns and problems the fake keeps: `calls()` and `asked()` keep the latest
   * ones, `problems()` the first ones. Its memory is bounded by it however many calls it serves.
   * Reading `calls()` or `asked()` after some were dropped throws `FakeHistoryTruncatedError`
   * (an assertion over a part would pass on what it never saw); `calls({ latest: true })` reads
   * what is kept. `Infinity` keeps everything. @default 1000
   */
  historyLimit?: number;
  /**
   * Which Anthropic platform's refusals to make: `bedrock` also refuses a conversation whose
   * first message is not from the user, which Anthropic's own API accepts. @default 'anthropic'
   */
  anthropicPlatform?: 'anthropic' | 'bedrock';
}

/**
 * One HTTP call the fake received, whatever its endpoint, or one client event of a Realtime
 * session (method `WS`, on the path of the session's upgrade).
 */
export interface FakeCall {
  index: number;
  /** `GET`, `POST`, …; `WS` for a client event of a Realtime session. */
  method: string;
  /** The path as received, e.g. `/v1/chat/completions` or `/anthropic/messages`. */
  path: string;
  /** The wire API it was routed to, or undefined when the fake does not serve its route. */
  api: WireApi | undefined;
  /** The request headers, without credentials. */
  headers: Record<string, string>;
  /** The parsed JSON body, or undefined. */
  body: unknown;
  /**
   * The status the fake answered with (0 for a dropped or hung connection; 101 for a Realtime
   * upgrade). A Realtime client event has 200 when answered, 400 when the `error` event refuses it
   * as the API does, 422 for the fake's own errors (the script ran out).
   */
  status: number;
}

/** A fake's own error: the script ran out, or a scripted answer did not fit the request. */
export class FakeScriptError extends ModeltapeError {}

const DEFAULT_NOW = Date.UTC(2026, 0, 1);
const NEVER_ABORTED = new AbortController().signal;

/**
 * A deterministic model provider in the OpenAI Chat Completions, OpenAI Responses, Anthropic
 * Messages, Gemini generateContent and Ollama chat and generate wire formats, plus OpenAI, Gemini and
 * Ollama embeddings, Gemini countTokens, model lists, Bedrock Converse, Azure OpenAI's routes (OpenAI's
 * APIs with Azure's annotations), and (over `listen()`) OpenAI Realtime sessions over WebSocket. Script what it answers, then
 * point an official SDK at it by `fetch` (in process) or by base URL (`listen()`).
 *
 * @example
 * const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' }).willSay('It rains.');
 * const client = new OpenAI({ apiKey: 'fake', fetch: fake.fetch });
 */
export class FakeProvider {
  readonly #script = new Script();
  readonly #schemaCheck = new SchemaCheck();
  readonly #calls: BoundedHistory<FakeCall>;
  readonly #asked: BoundedHistory<AskedTurn>;
  readonly #problems: BoundedHistory<string>;
  // The Anthropic message threads this fake gave messages on, bounded like its history.
  readonly #threads: MessageThreads;
  // The responses it gave with `store` true, for previous_response_id and item_reference.
  readonly #responses: ResponseStore;
  // The models it holds as an Ollama server (pull, copy, delete change them), and the ones turns loaded.
  readonly #ollamaModels: OllamaLocalModels;
  // The conversations it made (OpenAI's Conversations API), bounded like its history.
  readonly #conversations: ConversationStore;
  readonly #now: () => number;
  readonly #newId: (kind: IdKind) => string;
  readonly #sleep: (milliseconds: number) => Promise<void>;
  readonly #seed: number;
  // This fake's own memo of generated values: what one fake generates never reaches another.
  readonly #generated = new GenerationCache();
  readonly #embeddingDimensions: number;
  readonly #anthropicPlatform: 'anthropic' | 'bedrock';
  #callCount = 0;
  #constrained = true;
  // The tool-call step still open for parallel calls (consecutive willCallTool calls).
  #openToolStep: Step | undefined;

  constructor(options: FakeProviderOptions = {}) {
    this.#now = options.now ?? (() => DEFAULT_NOW);
    const counters = new Map<IdKind, number>();
    this.#newId =
      options.newId ??
      ((kind) => {
        const next = counters.get(kind) ?? 0;
        counters.set(kind, next + 1);
        return `fake-${kind}-${next}`;
      });
    this.#sleep = options.sleep ?? ((milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds)));
    this.#seed = options.seed ?? 0;
    this.#embeddingDimensions = options.embeddingDimensions ?? 8;
    this.#anthropicPlatform = options.anthropicPlatform ?? 'anthropic';
    const historyLimit = checkHistoryLimit(options.historyLimit ?? DEFAULT_HISTORY_LIMIT);
    this.#calls = new BoundedHistory(historyLimit);
    this.#asked = new BoundedHistory(historyLimit);
    this.#problems = new BoundedHistory(historyLimit, 'first');
    this.#threads = new MessageThreads(historyLimit);
    this.#responses = new ResponseStore(historyLimit);
    this.#ollamaModels = new OllamaLocalModels(historyLimit);
    this.#conversations = new ConversationStore(historyLimit);
  }

  /**
   * The next turn answers with this text. An array answers an OpenAI chat request with `n` set
   * to its length, one text per choice (`willSay(['Yes.', 'No.'])` for `n: 2`).
   */
  willSay(text: string | readonly string[], options: StepOptions = {}): this {
    return this.#push(textAnswer(text), options, `willSay(${describeTexts(text)})`);
  }

  /**
   * The next turn calls this tool. Consecutive calls build one turn of parallel tool calls;
   * `endTurn()` (or any other `will…`) starts the next turn. `saying` is text before the calls.
   */
  willCallTool(name: string, args: unknown = {}, options: StepOptions & { id?: string; saying?: string } = {}): this {
    const call: ToolCallAnswer = { name, arguments: args, ...(options.id === undefined ? {} : { id: options.id }) };
    const open = this.#openToolStep;
    // Join the open turn only while it is still queued: once a call took it, this is a new turn.
    if (open !== undefined && open.answer.kind === 'tool-calls' && this.#script.steps.includes(open)) {
      if (options.saying !== undefined || options.chunks !== undefined || options.delayMs !== undefined) {
        throw new FakeScriptError(
          'options_on_parallel_call',
          `willCallTool(${JSON.stringify(name)}) joins the turn of ${open.origin} as a parallel call, so it cannot take saying, chunks or delayMs: give those on the first call of the turn, or call endTurn() first.`,
        );
      }
      open.answer.calls.push(call);
      open.origin += `+willCallTool(${JSON.stringify(name)})`;
      return this;
    }
    const { id: _id, saying, ...stepOptions } = options;
    this.#push({ kind: 'tool-calls', calls: [call], ...(saying === undefined ? {} : { text: saying }) }, stepOptions, `willCallTool(${JSON.stringify(name)})`);
    this.#openToolStep = this.#script.steps.at(-1);
    return this;
  }

  /**
   * The next turn answers with this structured value, checked against the request's schema.
   * When the request asks for no schema but forces one tool (`tool_choice` naming it, or
   * requiring a call with one tool offered, as clients that get structured output through a
   * tool do), the value is that tool's arguments, checked against its schema.
   */
  willAnswer(value: unknown, options: StepOptions = {}): this {
    return this.#push({ kind: 'structured', value }, options, `willAnswer(${excerpt(JSON.stringify(value) ?? String(value), 40, '')})`);
  }

  /** The next turn fails this way (see `failures`). */
  willFail(failure: Failure, options: StepOptions = {}): this {
    return this.#push({ kind: 'failure', failure }, options, `willFail(${failure.kind})`);
  }

  /** Ends a turn of parallel tool calls: the next `willCallTool` starts a new turn. */
  endTurn(): this {
    this.#openToolStep = undefined;
    return this;
  }

  /**
   * A rule: turns that match answer with what the returned builder scripts, before the queue is
   * consulted. A rule answers once, or every matching turn with `{ always: true }`.
   */
  when(matcher: Matcher, options: { always?: boolean } = {}): RuleBuilder {
    this.#openToolStep = undefined;
    return new RuleBuilder(this.#script, matcher, options.always === true);
  }

  /**
   * A FakeProvider scripted by a JSONL script file (see script-file.ts for the format): steps in
   * order, and rules for lines with `when`. Running out of the script is the usual loud error.
   */
  static fromScript(file: string, options: FakeProviderOptions = {}): FakeProvider {
    const fake = new FakeProvider(options);
    for (const entry of readFakeScript(file)) {
      const origin = `${file}:${entry.line}`;
      const target = entry.matcher === undefined ? fake : fake.when(entry.matcher, { always: entry.sticky });
      const value = entry.value;
      if (entry.kind === 'callTools') {
        for (const [index, call] of value.callTools!.entries()) {
          target.willCallTool(call.name, call.arguments ?? {}, {
            ...entry.options,
            ...(call.id === undefined ? {} : { id: call.id }),
            // parseFakeScript allows only one text before calls.
            ...(index === 0 && typeof value.say === 'string' ? { saying: value.say } : {}),
          });
        }
        if (target === fake) fake.endTurn();
      } else if (entry.kind === 'say') target.willSay(value.say!, entry.options);
      else if (entry.kind === 'answer') target.willAnswer(value.answer, entry.options);
      else target.willFail(entry.failure!, entry.options);
      fake.#renameLast(origin, entry.matcher === undefined);
    }
    return fake;
  }

  /** Names the last step or rule by where it was written, for messages. */
  #renameLast(origin: string, isStep: boolean): void {
    if (isStep) {
      const step = this.#script.steps.at(-1);
      if (step) step.origin = origin;
    } else {
      const rule = this.#script.rules.at(-1);
      if (rule) {
        rule.origin = origin;
        rule.step.origin = origin;
      }
    }
  }

  /**
   * A provider that answers in process from a tape, through the same replay engine the proxy
   * uses (strict: a request the tape does not hold is a miss that names the nearest recording).
   */
  static fromTape(file: string, options: TapeFakeOptions = {}): TapeFake {
    return TapeFake.open(file, options);
  }

  /** Scripted answers are no longer checked against the request's schema, and strict-mode schema checks are off. */
  withoutConstrainedDecoding(): this {
    this.#constrained = false;
    return this;
  }

  /** How many calls the fake received, however many `calls()` still keeps. */
  get callCount(): number {
    return this.#callCount;
  }

  /**
   * Every HTTP call received, in order. Once more than `historyLimit` calls came, it throws
   * {@link FakeHistoryTruncatedError}; `{ latest: true }` gives the latest `historyLimit` calls,
   * with `.dropped` saying how many came before them.
   */
  calls(options: { latest?: boolean } = {}): KeptEntries<FakeCall> {
    const kept = readHistory(this.#calls, 'calls', options);
    const shown = kept.map((call) => maskValue({ ...call, headers: withoutSecrets(call.headers) }));
    return Object.defineProperty(shown, 'dropped', { value: kept.dropped, enumerable: false }) as KeptEntries<FakeCall>;
  }

  /** What each model turn was shown, in order (refused requests are not turns); bounded like {@link calls}. */
  asked(options: { latest?: boolean } = {}): KeptEntries<AskedTurn> {
    const kept = readHistory(this.#asked, 'asked', options);
    return Object.defineProperty(
      kept.map((turn) => maskValue(turn)),
      'dropped',
      { value: kept.dropped, enumerable: false },
    ) as KeptEntries<AskedTurn>;
  }

  /** The fake's own errors so far (the script ran out, an answer did not fit): the first `historyLimit`, with `.dropped` counting the rest. */
  problems(): KeptEntries<string> {
    return this.#problems.entries();
  }

  /**
   * Throws unless every scripted step and once-rule was used, no call hit one of the fake's own
   * errors, and at least one call was made (a fake nobody asked proves nothing).
   */
  assertConsumed(): void {
    const issues: string[] = [];
    if (this.#callCount === 0) issues.push('no call reached the fake: check the base URL or fetch option the client was given');
    for (const leftover of this.#script.leftovers()) issues.push(`never used: ${leftover}`);
    for (const problem of this.#problems.entries()) issues.push(problem);
    if (this.#problems.dropped > 0) issues.push(`… and ${this.#problems.dropped} more problems, not kept (historyLimit ${this.#problems.limit})`);
    if (issues.length > 0) {
      throw new FakeScriptError(
        'fake_not_consumed',
        `FakeProvider script not consumed (${this.#callCount} call${this.#callCount === 1 ? '' : 's'} made):\n${issues.map((issue) => `  - ${issue.split('\n').join('\n    ')}`).join('\n')}`,
      );
    }
  }

  /** A `fetch` the official SDKs accept through their `fetch` option: answers in process. */
  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const { method, url, headers, body, signal } = await readFetchInput(input, init);
    const text = body === undefined ? '' : typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
    // A request to an Azure OpenAI resource's host is Azure's, whatever its path (its v1 routes are OpenAI's paths): it goes where `baseUrls.azure` would take it.
    const azureHost = AZURE_HOST.test(url.hostname) && !url.pathname.startsWith('/azure/');
    const wire = await this.handle({ method, path: `${azureHost ? '/azure' : ''}${url.pathname}${url.search}`, headers, body: text });
    return fetchResponse(wire, signal ?? NEVER_ABORTED, this.#sleep);
  };

  /**
   * Serves the fake over HTTP on 127.0.0.1. `port: 0` (the default) picks a free port. It also
   * answers OpenAI Realtime sessions over WebSocket (`/v1/realtime?model=…`, also under
   * `/openai/…`), from the same script.
   */
  listen(options: ListenOptions = {}): Promise<FakeServer> {
    const maxPayload = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    return serveOverHttp(
      (request) => this.answer(request),
      options,
      this.#sleep,
      (upgrade) => this.#upgrade(upgrade, maxPayload),
    );
  }

  /**
   * A connection asking to upgrade: an OpenAI Realtime session (its 101 carries the fake's marker,
   * so a proxy recording it labels the session `source: "fake"`), each client event a call of
   * method `WS`; any other upgrade is refused as OpenAI refuses a path it does not serve.
   */
  #upgrade({ request, headers, socket, head }: UpgradeRequest, maxPayload: number): void {
    socket.on('error', () => undefined);
    const requestId = this.#newId('req');
    const url = request.url ?? '/';
    const { method, path, prefixed, shownPath } = requestRoute(request.method ?? 'GET', url, headers);
    const call: FakeCall = { index: this.#callCount++, method, path: shownPath, api: undefined, headers, body: undefined, status: 0 };
    this.#calls.push(call);
    const context = { requestId, headers: { [FAKE_HEADER]: '1', 'x-request-id': requestId } };
    const refuse = (status: number, code: string, message: string, param: string | null = null): void => {
      call.status = status;
      refuseUpgrade(socket, errorResponse('openai', { status, type: 'invalid_request_error', code, message, param }, context));
    };
    if (method !== 'GET' || (prefixed !== undefined && prefixed !== 'openai') || !isRealtimePath(path))
      return refuse(
        404,
        'unknown_url',
        `Invalid URL (${method} ${shownPath}): the modeltape FakeProvider takes WebSocket upgrades for OpenAI Realtime only, GET /v1/realtime?model=… (also under /openai/…).`,
      );
    call.api = 'openai-realtime';
    if (String(headers.upgrade ?? '').toLowerCase() !== 'websocket')
      return refuse(400, 'invalid_upgrade', `GET ${shownPath} asked to upgrade to ${JSON.stringify(headers.upgrade ?? '')}, not to a WebSocket.`);
    const model = new URLSearchParams(url.split('?')[1] ?? '').get('model');
    if (!model)
      return refuse(
        400,
        'missing_required_parameter',
        "Missing required parameter: 'model'. (The modeltape FakeProvider answers Realtime sessions by model, not calls by call_id.)",
        'model',
      );
    acceptWebSocket(request, socket, head, maxPayload, context.headers).then(
      (client) => {
        call.status = 101;
        new FakeRealtimeSession(this.#realtimeHost, client, model, shownPath).open();
      },
      () => socket.destroy(),
    );
  }

  /** What the fake's Realtime sessions use of it: its ids, clock, waits, history and script. */
  readonly #realtimeHost: RealtimeHost = {
    newId: (kind) => this.#newId(kind),
    created: () => Math.floor(this.#now() / 1000),
    sleep: (milliseconds) => this.#sleep(milliseconds),
    call: (path, body) => {
      const call: FakeCall = { index: this.#callCount++, method: WEBSOCKET_MESSAGE_METHOD, path, api: 'openai-realtime', headers: {}, body, status: 0 };
      this.#calls.push(call);
      return call;
    },
    decide: (turn, call) => {
      this.#asked.push(turn);
      return this.#decide(turn, call);
    },
    problem: (message) => this.#problem(message),
  };

  /** Answers one request. Both `fetch` and `listen` go through here. */
  async handle(request: FakeRequest): Promise<WireResponse> {
    return this.answer(request);
  }

  /** {@link handle}, without a promise: the fake decides every answer synchronously. */
  answer(request: FakeRequest): WireResponse {
    const index = this.#callCount++;
    const requestId = this.#newId('req');
    const routed = requestRoute(request.method, request.path, request.headers);
    const { method, provider, shownPath } = routed;
    // The request id in the header each SDK reads: `request-id` (Anthropic), `x-amzn-requestid` (the AWS SDK), `x-request-id` (the others).
    const headers: Record<string, string> = { [FAKE_HEADER]: '1', [REQUEST_ID_HEADER[provider] ?? 'x-request-id']: requestId };
    // Azure OpenAI sends its gateway's request id too.
    if (provider === 'azure') headers['apim-request-id'] = requestId;
    const context: RenderContext = {
      newId: this.#newId,
      created: Math.floor(this.#now() / 1000),
      requestId,
      chunking: undefined,
      promptTokens: 1,
      headers,
      threads: this.#threads,
      responses: this.#responses,
      conversations: this.#conversations,
    };
    // Headers are copied without credentials when calls() is read, not on every call.
    const call: FakeCall = {
      index,
      method,
      path: shownPath,
      api: undefined,
      headers: request.headers,
      body: undefined,
      status: 0,
    };
    this.#calls.push(call);
    let wire: WireResponse;
    try {
      wire = this.#answer(request, call, routed, context);
    } catch (error) {
      // A throw (a rule predicate, a schema ajv cannot compile, chunks that do not fit) is the
      // fake's own error: answered loudly, never as a connection failure the SDK would retry.
      wire = this.#fail(
        provider,
        `FakeProvider call ${index} (${call.method} ${shownPath}) failed: ${(error as Error).message}`,
        'fake_internal_error',
        context,
      );
    }
    call.status = wire.cut?.afterFrames === 0 && wire.frames === undefined ? 0 : wire.status;
    return wire;
  }

  #answer(received: FakeRequest, call: FakeCall, routed: RequestRoute, context: RenderContext): WireResponse {
    const { route, provider, azure } = routed;
    const index = call.index;
    let request = received;
    if (azure !== undefined) {
      const refused = refuseAzureRequest(request.headers, azure, context);
      if (refused !== undefined) return refused;
      // From here on the request is the OpenAI one it stands for (its path, without `/openai/deployments/{d}`).
      request = { ...received, path: openaiPathOf(routed.path, received.path) };
    }
    const served = route !== undefined && SERVED_APIS.includes(route.api) && (azure === undefined || route.api !== 'openai-realtime') ? route.api : undefined;
    if (served === undefined) {
      const help = `the modeltape FakeProvider serves ${SERVED_ROUTES}, also under /openai/…, /anthropic/…, /gemini/… and /ollama/….`;
      // Ollama's router (Gin) answers a route it lacks in plain text, which the ollama client
      // raises as the error's message: the same words here, and the fake's help in a header.
      if (provider === 'ollama') {
        // The body has no room for the help: assertConsumed() names the route too.
        this.#problems.push(`FakeProvider call ${index}: Invalid URL (${call.method} ${call.path}): ${help}`);
        return {
          status: 404,
          headers: {
            ...context.headers,
            'content-type': 'text/plain',
            [FAKE_HINT_HEADER]: `Invalid URL (${call.method} ${call.path}): ${help}`.replaceAll('…', '...'),
          },
          body: '404 page not found',
        };
      }
      return errorResponse(
        provider,
        {
          status: 404,
          type:
            provider === 'anthropic'
              ? 'not_found_error'
              : provider === 'gemini'
                ? 'NOT_FOUND'
                : provider === 'bedrock'
                  ? 'UnknownOperationException'
                  : 'invalid_request_error',
          code: 'unknown_url',
          message: `Invalid URL (${call.method} ${call.path}): ${help}`,
        },
        context,
      );
    }
    call.api = served;
    if (served === 'openai-models' || served === 'anthropic-models') {
      const model = /^(?:\/v1)?\/models\/([^/]+)$/.exec(request.path.split('?')[0]!.replace(PROVIDER_PREFIX, ''))?.[1];
      const named = model === undefined ? undefined : decodeURIComponent(model);
      if (served === 'anthropic-models')
        return anthropicModelsResponse(context, { model: named, query: new URLSearchParams(request.path.split('?')[1] ?? '') });
      if (PROVIDER_PREFIX.exec(call.path)?.[1] === 'ollama') return ollamaOpenAiModelsResponse(this.#ollamaModels, context, named);
      return modelsResponse(context, named);
    }
    if (served === 'ollama-tags') return ollamaTagsResponse(this.#ollamaModels.list(), context);
    if (served === 'ollama-models') {
      call.body = parseOrUndefined(request.body);
      return ollamaModelManagementResponse(request.method, withoutProviderPrefix(path(call)).path, request.body, this.#ollamaModels, context);
    }
    if (served === 'gemini-models') {
      const model = /^\/v1(?:beta|alpha)?\/models\/([^/]+)$/.exec(call.path.split('?')[0]!.replace(PROVIDER_PREFIX, ''))?.[1];
      return geminiModelsResponse(context, model === undefined ? undefined : decodeURIComponent(model));
    }
    const stateRoute = served === 'openai-responses-stored' ? answerStoredResponse : served === 'openai-conversations' ? answerConversation : undefined;
    // Their GET, DELETE and bodiless POST (a cancel, a conversation made empty) carry no JSON.
    if (stateRoute !== undefined && (request.method.toUpperCase() !== 'POST' || request.body === ''))
      return stateRoute({ method: call.method, ...stateRequestOf(request), body: undefined }, context);
    let body: unknown;
    try {
      body = JSON.parse(request.body);
    } catch {
      return errorResponse(provider, { status: 400, type: INVALID_REQUEST[provider], message: NOT_JSON[provider] }, context);
    }
    call.body = body;
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return errorResponse(provider, { status: 400, type: INVALID_REQUEST[provider], message: 'The request body must be a JSON object.' }, context);
    // On a deployment route the deployment names the model, which the body may leave out.
    let record = azure === undefined ? (body as Record<string, unknown>) : withDeploymentModel(body as Record<string, unknown>, azure.deployment);
    if (route?.provider === 'vertex' && (served === 'anthropic-messages' || served === 'anthropic-count-tokens')) {
      // Claude on Vertex AI: the API version in the body, the model in the path (a count's body names it).
      if (typeof record.anthropic_version !== 'string')
        return errorResponse('anthropic', { status: 400, type: 'invalid_request_error', message: 'anthropic_version: Field required' }, context);
      if (record.model === undefined && route.model !== undefined) record = { ...record, model: route.model };
    }
    if (stateRoute !== undefined) return stateRoute({ method: call.method, ...stateRequestOf(request), body: record }, context);
    if (served === 'openai-embeddings') return embeddingsResponse(record, this.#embeddingDimensions, context);
    if (served === 'ollama-embed') return ollamaEmbedResponse(path(call), record, this.#embeddingDimensions, context);
    if (served === 'gemini-embed') return geminiEmbedResponse(record, call.path.includes(':batchEmbedContents'), this.#embeddingDimensions, context);
    if (served === 'gemini-count-tokens') return geminiCountTokensResponse(record, context);
    const refusalOptions = { constrained: this.#constrained, anthropicPlatform: this.#anthropicPlatform };
    if (served === 'anthropic-count-tokens') return countTokensResponse(record, index, refusalOptions, context);
    // Gemini streams SSE only when the query says alt=sse; without it, one JSON array.
    const surface: Surface =
      served === 'gemini-generate' && route?.stream === true && geminiStreamFraming(request.path.split('?')[1] ?? '') === 'json-array'
        ? geminiArrayStreamSurface
        : azure !== undefined
          ? AZURE_SURFACES[served as keyof typeof AZURE_SURFACES]
          : SURFACES[served as keyof typeof SURFACES];
    const resolved = surface.resolve?.(record, request.headers, context) ?? { body: record };
    if ('error' in resolved) return resolved.error;
    const refusal = surface.refuse(resolved.body, refusalOptions, context, route);
    if (refusal) return refusal;

    const turn = surface.ask(resolved.body, index, route!);
    this.#asked.push(turn);
    if (served === 'ollama-chat' || served === 'ollama-generate') this.#ollamaModels.load(turn.model);
    context.promptTokens = promptTokens(turn);
    const decision = this.#decide(turn, call);
    if (decision.kind === 'refused') return this.#fail(surface.provider, decision.message, decision.type, context);
    context.chunking = decision.step?.options.chunks;
    let wire: WireResponse;
    if (decision.kind === 'failure') wire = failTurn(surface, turn, decision.failure, decision.partial, context);
    else {
      if (decision.finish !== undefined) context.finish = decision.finish;
      if (decision.answers.length > 1) context.choices = decision.answers;
      wire = surface.respond(turn, decision.answers[0]!, context);
    }
    const delayMs = decision.step?.options.delayMs;
    if (delayMs) wire = { ...wire, delayMs: (wire.delayMs ?? 0) + delayMs };
    return wire;
  }

  /**
   * How a turn is answered, the same for every surface (HTTP and Realtime): a rule or the next
   * step of the script, or an unscripted answer; the fake's refusal when the script ran out (it
   * never cycles or repeats its last answer) or the step does not fit what the request allows.
   */
  #decide(turn: AskedTurn, call: Pick<FakeCall, 'index' | 'method' | 'path'>): TurnDecision {
    const index = call.index;
    const pick = this.#script.next(turn);
    if (pick === undefined && this.#script.scripted) {
      const message =
        `FakeProvider script ran out at call ${index} (${call.method} ${call.path}, model ${turn.model}): it never cycles or repeats its last answer.\n` +
        `  prompt: ${JSON.stringify(maskSecrets(turn.prompt).slice(0, 120))}${maskSecrets(turn.prompt).length > 120 ? '…' : ''}\n` +
        'Script an answer for this call (willSay, willCallTool, willAnswer, willFail), or a rule with when(…).';
      return { kind: 'refused', type: 'fake_script_exhausted', message };
    }
    const step = pick?.step;
    const doesNotFit = (reason: string): TurnDecision => ({
      kind: 'refused',
      type: 'fake_answer_does_not_fit',
      message: `FakeProvider call ${index}: the scripted ${step!.origin}${pick?.rule ? ` (${describeMatcher(pick.rule.matcher)})` : ''} does not fit the request.\n${reason}`,
    });
    const choiceCount = requestedChoices(turn);
    if (step === undefined) {
      return { kind: 'answer', answers: Array.from({ length: choiceCount }, (_, choice) => this.#unscripted(turn, choice)), finish: undefined, step };
    }
    if (step.answer.kind === 'failure') {
      if (step.answer.failure.kind === 'content-filter' && turn.provider !== 'azure')
        return doesNotFit(
          `  failures.contentFilter() is Azure OpenAI's refusal of a prompt its content filter blocks, and this is ${turn.api} on ${turn.provider}. Script finish: 'content-filter' for a filtered answer, or send the request to an Azure OpenAI route (server.baseUrls.azure).`,
        );
      if (step.answer.failure.kind === 'stream-error' && !turn.stream)
        return doesNotFit('  failures.streamError breaks a stream, and this request does not stream. Script failures.serverError() for a plain request.');
      return { kind: 'failure', failure: step.answer.failure, partial: this.#unscripted(turn), step };
    }
    const finish = resolveFinish(turn, step.options);
    if (typeof finish === 'string') return doesNotFit(finish);
    const answers = choicesOf(turn, step.answer, choiceCount);
    if (typeof answers === 'string') return doesNotFit(answers);
    for (const [choice, answer] of answers.entries()) {
      const mismatch = this.#constrained ? this.#checkAnswer(turn, answer, finish) : undefined;
      if (mismatch !== undefined) return doesNotFit(`${answers.length > 1 ? `  choice ${choice}:\n` : ''}${mismatch}`);
    }
    return { kind: 'answer', answers, finish, step };
  }

  #push(answer: Step['answer'], options: StepOptions, origin: string): this {
    checkStepOptions(options);
    this.#openToolStep = undefined;
    this.#script.push({ answer, options, origin });
    return this;
  }

  #fail(provider: Provider, unmasked: string, type: string, context: RenderContext): WireResponse {
    const message = this.#problem(unmasked);
    // A 422, which no SDK retries (the Vercel SDK ignores x-should-retry on a 5xx): a retry
    // would take the next step and shift the whole script onto the wrong calls.
    const wire = fakeError(provider, 422, type, message, context);
    return { ...wire, headers: { ...wire.headers, 'x-should-retry': 'false' } };
  }

  /** Keeps one of the fake's own errors for `problems()`, masked, and gives it back as kept. */
  #problem(unmasked: string): string {
    // Masked before anything is cut: a key cut at an edge would no longer look like one.
    const message = maskSecrets(unmasked);
    this.#problems.push(message);
    return message;
  }

  /**
   * What a structured or tool answer breaks, as the provider's constrained decoding would not,
   * with the step that fits, or undefined. A truncated, filtered or refused answer is not held
   * to a schema: the provider guarantees none for it.
   */
  #checkAnswer(turn: AskedTurn, answer: Answer, finish: ResolvedFinish | undefined): string | undefined {
    const schema = turn.responseSchema;
    const choice = readToolChoice(turn.toolChoice);
    // Named only in a message: not written out for an answer that fits.
    const offered = (): string => turn.tools.map((tool) => JSON.stringify(tool.name)).join(', ') || 'no tools';
    const checksValues = finish === undefined || !['length', 'content-filter', 'refusal'].includes(finish.reason);
    if (finish?.reason === 'refusal' && answer.kind !== 'text')
      return `  finish "refusal" makes the text the model's refusal, and the step answers ${answer.kind === 'tool-calls' ? 'with tool calls' : 'a structured value'}.\nScript willSay(refusalText, { finish: 'refusal' }).`;
    if (answer.kind === 'tool-calls') {
      if (choice.mode === 'none')
        return `  it calls ${answer.calls.map((call) => JSON.stringify(call.name)).join(', ')}, and the request's tool_choice forbids tool calls.\nScript willSay(text) for this turn, or send a tool_choice that allows calls.`;
      for (const call of answer.calls) {
        const tool = turn.tools.find((candidate) => candidate.name === call.name);
        if (tool === undefined)
          return `  it calls tool ${JSON.stringify(call.name)}, which the request did not offer (offered: ${offered()}).\nScript willCallTool with a tool the request offers.`;
        if (choice.name !== undefined && call.name !== choice.name)
          return `  it calls tool ${JSON.stringify(call.name)}, and the request's ${toolChoiceField(turn)} forces ${JSON.stringify(choice.name)}.\nScript willCallTool(${JSON.stringify(choice.name)}, arguments) or willAnswer(arguments).`;
        if (choice.allowed !== undefined && !choice.allowed.includes(call.name))
          return `  it calls tool ${JSON.stringify(call.name)}, and the request's toolConfig.functionCallingConfig.allowedFunctionNames allows only ${choice.allowed.map((name) => JSON.stringify(name)).join(', ')}.\nScript willCallTool(${JSON.stringify(choice.allowed[0])}, arguments), or another allowed function.`;
        // OpenAI guarantees arguments only for strict tools; Anthropic's tool input is checked
        // always, and so is a structured answer given as a forced tool's arguments.
        if (!checksValues || ((turn.provider === 'openai' || turn.provider === 'azure') && !tool.strict && !structuredCalls.has(call))) continue;
        const mismatches = this.#schemaCheck.check(tool.parameters ?? {}, call.arguments);
        if (mismatches.length > 0)
          return `  the arguments ${JSON.stringify(call.arguments)} of tool ${JSON.stringify(call.name)} do not match its parameters schema:\n${describeMismatches(mismatches)}\nScript arguments that fit, or call fake.withoutConstrainedDecoding().`;
      }
      return undefined;
    }
    // A filter (or Gemini's MALFORMED_FUNCTION_CALL) cuts the turn before any call: no call is owed.
    if (choice.mode === 'required' && turn.tools.length > 0 && finish?.reason !== 'refusal' && finish?.reason !== 'content-filter') {
      const forced = choice.name ?? (turn.tools.length === 1 ? turn.tools[0]!.name : undefined);
      const advice =
        forced === undefined
          ? `Script willCallTool with one of ${choice.allowed === undefined ? offered() : choice.allowed.map((name) => JSON.stringify(name)).join(', ')}.`
          : `Script willCallTool(${JSON.stringify(forced)}, arguments)${schema === undefined ? ', or willAnswer(arguments) to answer as its call' : ''}.`;
      return `  it answers without a tool call, and the request's ${toolChoiceField(turn)} requires one${choice.name ? ` (${JSON.stringify(choice.name)})` : ''}.\n${advice}`;
    }
    if (schema === undefined || !checksValues) return undefined;
    let value: unknown;
    if (answer.kind === 'structured') value = answer.value;
    else {
      try {
        value = JSON.parse(answer.text);
      } catch {
        return `  the request asks for JSON matching its ${schema.source} schema${schema.name ? ` "${schema.name}"` : ''}, and the scripted text is prose: ${JSON.stringify(excerpt(answer.text, 80, ''))}.\nUse willAnswer(value), or willSay(text, { finish: 'refusal' }) for a refusal.`;
      }
    }
    const mismatches = this.#schemaCheck.check(schema.schema, value);
    if (mismatches.length > 0)
      return `  the value ${excerpt(JSON.stringify(value) ?? String(value), 200)} does not match the ${schema.source} schema${schema.name ? ` "${schema.name}"` : ''}:\n${describeMismatches(mismatches)}\nScript a value that fits, or call fake.withoutConstrainedDecoding().`;
    return undefined;
  }

  /**
   * Unscripted, the fake shows that the path was reached: a requested schema gets a value made
   * from it; the first turn of a tool loop calls the first offered tool with arguments made from
   * its schema; every other turn gets text.
   */
  #unscripted(turn: AskedTurn, choice = 0): Answer {
    // Each of n choices is made from its own seed, so the choices differ.
    const seed = this.#seed + choice;
    if (turn.responseSchema !== undefined) {
      try {
        return { kind: 'structured', value: generateValue(turn.responseSchema.schema as never, { seed, cache: this.#generated }) };
      } catch {
        // A schema the generator cannot satisfy gets text, which the check above does not apply to.
      }
    }
    const toolChoice = readToolChoice(turn.toolChoice);
    const toolResultsSeen = turn.messages.some((message) => message.role === 'tool');
    // The tool it names, else the first it allows (Gemini's allowedFunctionNames), else the first offered.
    const tool =
      toolChoice.name !== undefined
        ? turn.tools.find((offered) => offered.name === toolChoice.name)
        : toolChoice.allowed !== undefined
          ? turn.tools.find((offered) => toolChoice.allowed!.includes(offered.name))
          : turn.tools[0];
    const callTool = toolChoice.mode === 'required' || (toolChoice.mode === 'auto' && !toolResultsSeen);
    if (tool !== undefined && callTool) {
      let args: unknown = {};
      try {
        args = generateValue((tool.parameters ?? {}) as never, { seed, cache: this.#generated });
      } catch {
        args = {};
      }
      return { kind: 'tool-calls', calls: [{ name: tool.name, arguments: args }] };
    }
    return { kind: 'text', text: `This is a fake answer from modeltape's FakeProvider (call ${turn.index}${choice > 0 ? `, choice ${choice}` : ''}).` };
  }
}

/** Scripts what one rule answers. Methods return the builder, so a rule can call several tools. */
export class RuleBuilder {
  readonly #script: Script;
  readonly #rule: Rule;
  #added = false;

  /** @internal `fake.when()` and `fake.whenever()` make rule builders. */
  constructor(script: Script, matcher: Matcher, sticky: boolean) {
    this.#script = script;
    this.#rule = {
      matcher,
      sticky,
      step: { answer: { kind: 'text', text: '' }, options: {}, origin: describeMatcher(matcher) },
      uses: 0,
      origin: describeMatcher(matcher),
    };
  }

  willSay(text: string | readonly string[], options: StepOptions = {}): this {
    return this.#set(textAnswer(text), options);
  }

  willCallTool(name: string, args: unknown = {}, options: StepOptions & { id?: string; saying?: string } = {}): this {
    const call: ToolCallAnswer = { name, arguments: args, ...(options.id === undefined ? {} : { id: options.id }) };
    if (this.#added && this.#rule.step.answer.kind === 'tool-calls') {
      this.#rule.step.answer.calls.push(call);
      return this;
    }
    const { id: _id, saying, ...stepOptions } = options;
    return this.#set({ kind: 'tool-calls', calls: [call], ...(saying === undefined ? {} : { text: saying }) }, stepOptions);
  }

  willAnswer(value: unknown, options: StepOptions = {}): this {
    return this.#set({ kind: 'structured', value }, options);
  }

  willFail(failure: Failure, options: StepOptions = {}): this {
    return this.#set({ kind: 'failure', failure }, options);
  }

  #set(answer: Step['answer'], options: StepOptions): this {
    checkStepOptions(options);
    if (this.#added)
      throw new FakeScriptError(
        'rule_answer_twice',
        `The rule ${this.#rule.origin} already has an answer; a rule answers one way (several willCallTool calls make one turn of parallel calls).`,
      );
    this.#rule.step = { answer, options, origin: this.#rule.origin };
    this.#script.addRule(this.#rule);
    this.#added = true;
    return this;
  }
}

/**
 * What a request body would show a model turn (system, messages, tools, prompt…), read the way
 * the fake reads requests; undefined for a path that is not a model endpoint or a body it cannot read.
 */
export function askedTurnOf(path: string, body: unknown): AskedTurn | undefined {
  return readTurn(path, body);
}

function readHistory<T>(history: BoundedHistory<T>, what: string, options: { latest?: boolean }): KeptEntries<T> {
  if (history.dropped > 0 && options.latest !== true) throw new FakeHistoryTruncatedError(what, history.size, history.dropped, history.limit);
  return history.entries();
}

/** The wire APIs the fake answers model turns in, each by its surface. */
const SURFACES = {
  'openai-chat': openaiChatSurface,
  'openai-responses': openaiResponsesSurface,
  'anthropic-messages': anthropicMessagesSurface,
  'ollama-chat': ollamaChatSurface,
  'ollama-generate': ollamaGenerateSurface,
  'gemini-generate': geminiGenerateSurface,
  'bedrock-converse': bedrockConverseSurface,
  'bedrock-invoke': bedrockInvokeSurface,
} as const satisfies Partial<Record<WireApi, Surface>>;

/** The wire APIs the fake answers Azure OpenAI's model turns in: OpenAI's, with Azure's annotations. */
const AZURE_SURFACES = {
  'openai-chat': azureChatSurface,
  'openai-responses': azureResponsesSurface,
} as const satisfies Partial<Record<WireApi, Surface>>;

/** Every wire API the fake serves. */
const SERVED_APIS: readonly WireApi[] = [
  ...(Object.keys(SURFACES) as WireApi[]),
  'openai-embeddings',
  'openai-models',
  'openai-responses-stored',
  'openai-conversations',
  'anthropic-count-tokens',
  'anthropic-models',
  'ollama-embed',
  'ollama-tags',
  'ollama-models',
  'gemini-count-tokens',
  'gemini-embed',
  'gemini-models',
];
/** The hosts of Azure OpenAI resources (`RESOURCE.openai.azure.com`, `RESOURCE.cognitiveservices.azure.com`). */
const AZURE_HOST = /\.(?:openai|cognitiveservices)\.azure\.com\.?$/i;

/** Where a provider's SDK reads the request id, when not `x-request-id`. */
const REQUEST_ID_HEADER: Partial<Record<Provider, string>> = { anthropic: 'request-id', bedrock: 'x-amzn-requestid' };

/** The header that carries the fake's help where the provider's own answer has no room for it. */
const FAKE_HINT_HEADER = 'x-modeltape-fake-hint';

const SERVED_ROUTES =
  "POST /v1/chat/completions, /v1/responses, /v1/embeddings, /v1/conversations, /v1/messages (or /messages), /v1/messages/count_tokens, /v1beta/models/{model}:generateContent (and :streamGenerateContent, :countTokens, :embedContent, :batchEmbedContents), Bedrock Runtime's /model/{modelId}/converse, /model/{modelId}/converse-stream, /model/{modelId}/invoke and /model/{modelId}/invoke-with-response-stream (Anthropic Claude and Amazon Nova bodies), Vertex AI's /v1/projects/{project}/locations/{location}/publishers/google/models/{model}:generateContent (and :streamGenerateContent, :countTokens) and …/publishers/anthropic/models/{model}:rawPredict (and :streamRawPredict, count-tokens:rawPredict), Azure OpenAI's /azure/openai/deployments/{deployment}/chat/completions and /embeddings, /azure/openai/responses (each ?api-version=…) and /azure/openai/v1/…, Ollama's /api/chat, /api/generate, /api/embed, /api/embeddings, /api/show, /api/pull, /api/push, /api/create, /api/copy, DELETE /api/delete and GET /v1/models, /v1beta/models, /api/tags, /api/ps, /api/version; the Responses API's GET/DELETE /v1/responses/{id}, GET …/input_items, POST …/cancel and the Conversations API's /v1/conversations/{id}, …/items, …/items/{item_id}; and, over listen(), OpenAI Realtime sessions by WebSocket at GET /v1/realtime?model=…";

/** The error type each provider gives a request it cannot read (Gemini's is its RPC status). */
const INVALID_REQUEST: Record<Provider, string> = {
  openai: 'invalid_request_error',
  azure: 'invalid_request_error',
  anthropic: 'invalid_request_error',
  gemini: 'INVALID_ARGUMENT',
  ollama: 'invalid_request_error',
  mcp: 'invalid_request',
  bedrock: 'ValidationException',
  vertex: 'INVALID_ARGUMENT',
};

/** What each provider answers a body that is not JSON with. */
const NOT_JSON: Record<Provider, string> = {
  openai:
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
  anthropic: 'There was an issue with the request body: it is not valid JSON.',
  gemini: 'Invalid JSON payload received.',
  azure: 'We could not parse the JSON body of your request.',
  ollama: 'invalid character in request body: it is not JSON',
  mcp: 'Parse error',
  bedrock: 'Malformed input request, please reformat your input and try again.',
  vertex: 'Invalid JSON payload received.',
};

function withoutSecrets(headers: Record<string, string>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!isSecretHeader(name)) kept[name.toLowerCase()] = value;
  return kept;
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function path(call: FakeCall): string {
  return call.path.split('?')[0]!;
}

/** The path (without its provider prefix) and query of a request to a stored-state route. */
function stateRequestOf(request: FakeRequest): { path: string; query: URLSearchParams } {
  const [path, query] = request.path.split('?');
  return { path: withoutProviderPrefix(path!).path, query: new URLSearchParams(query ?? '') };
}

// Tool calls that stand for a structured answer (willAnswer under a forced tool): their
// arguments are checked against the tool's schema even when OpenAI would not enforce it.
const structuredCalls = new WeakSet<ToolCallAnswer>();

/** A step's text answer: one text, or one per choice. */
function textAnswer(text: string | readonly string[]): StepAnswer {
  if (typeof text === 'string') return { kind: 'text', text };
  if (!Array.isArray(text) || text.length === 0 || text.some((item) => typeof item !== 'string'))
    throw new FakeScriptError(
      'invalid_choice',
      `willSay(${JSON.stringify(text)}) scripts no choices: give one text, or an array of texts, one per choice (n).`,
    );
  return text.length === 1 ? { kind: 'text', text: text[0]! } : { kind: 'choices', choices: text.map((item) => ({ kind: 'text', text: item })) };
}

function describeTexts(text: string | readonly string[]): string {
  if (typeof text === 'string') return JSON.stringify(excerpt(text, 40, ''));
  return `[${text.map((item) => JSON.stringify(excerpt(String(item), 20, ''))).join(', ')}]`;
}

/** Step options are checked when the step is written, so a misspelt finish fails at once. */
function checkStepOptions(options: StepOptions): void {
  if (options.finish !== undefined) checkChoice('finish', options.finish, FINISH_REASONS);
  if (options.stopSequence !== undefined && finishOf(options) !== 'stop-sequence')
    throw new FakeScriptError(
      'invalid_choice',
      `stopSequence ${JSON.stringify(options.stopSequence)} applies only with finish: 'stop-sequence' (or 'stop_sequence').`,
    );
}

function finishOf(options: StepOptions): string | undefined {
  return options.finish === 'stop_sequence' ? 'stop-sequence' : options.finish;
}

/** How many choices the request asks for: OpenAI chat's `n`, 1 everywhere else. */
function requestedChoices(turn: AskedTurn): number {
  return turn.api === 'openai-chat' && typeof turn.body.n === 'number' && Number.isInteger(turn.body.n) && turn.body.n > 1 ? turn.body.n : 1;
}

/**
 * The step's finish for this request, or why it does not apply. `stop-sequence` needs one of
 * the request's own stop sequences: a provider stops only at those.
 */
function resolveFinish(turn: AskedTurn, options: StepOptions): ResolvedFinish | string | undefined {
  if (options.finish === undefined) return undefined;
  const api = bodyApiOf(turn);
  const reason = finishFor(api, options.finish);
  if (reason === undefined)
    return `  finish ${JSON.stringify(options.finish)} does not apply to ${describeApi(turn)}.\nScript one of ${finishesOf(api).join(', ')}.`;
  if (reason !== 'stop-sequence') return { reason, scripted: options.finish };
  const { field, sent } = stopSequencesOf(turn);
  const sequences = typeof sent === 'string' ? [sent] : Array.isArray(sent) ? sent.filter((item): item is string => typeof item === 'string') : [];
  if (sequences.length === 0)
    return `  finish "stop-sequence" stops at one of the request's stop sequences, and the request sent no ${field}.\nSend ${field} in the request, or script finish 'stop'.`;
  const stopSequence = options.stopSequence ?? sequences[0]!;
  if (!sequences.includes(stopSequence))
    return `  stopSequence ${JSON.stringify(stopSequence)} is not among the request's ${field} (${sequences.map((item) => JSON.stringify(item)).join(', ')}).\nScript stopSequence as one of those, or leave it out to take the first.`;
  return { reason, scripted: options.finish, stopSequence };
}

/**
 * The API whose body a turn was written in: its own, but for Bedrock InvokeModel, whose body is
 * the model's (Anthropic Messages for Claude, Converse's shape for Nova): its finishes, stop
 * sequences and tool choice are that API's.
 */
function bodyApiOf(turn: AskedTurn): TurnApi {
  if (turn.api !== 'bedrock-invoke') return turn.api;
  return bodyFamilyOf(turn.body) === 'anthropic-claude' ? 'anthropic-messages' : 'bedrock-converse';
}

/** The turn's API as a message names it: `bedrock-invoke (Anthropic Claude)`. */
function describeApi(turn: AskedTurn): string {
  if (turn.api !== 'bedrock-invoke') return turn.api;
  return `bedrock-invoke (${bodyFamilyOf(turn.body) === 'anthropic-claude' ? 'Anthropic Claude' : 'Amazon Nova'})`;
}

/** Where the request's stop sequences are, by API: its JSON path, as a message names it, and what was sent there. */
function stopSequencesOf(turn: AskedTurn): { field: string; sent: unknown } {
  const api = bodyApiOf(turn);
  if (api === 'anthropic-messages') return { field: 'stop_sequences', sent: turn.body.stop_sequences };
  if (api === 'bedrock-converse')
    return { field: 'inferenceConfig.stopSequences', sent: isRecord(turn.body.inferenceConfig) ? turn.body.inferenceConfig.stopSequences : undefined };
  if (turn.api === 'gemini-generate') {
    const config = turn.body.generationConfig ?? turn.body.generation_config;
    return { field: 'generationConfig.stopSequences', sent: isRecord(config) ? (config.stopSequences ?? config.stop_sequences) : undefined };
  }
  if (turn.api === 'ollama-chat' || turn.api === 'ollama-generate')
    return { field: 'options.stop', sent: isRecord(turn.body.options) ? turn.body.options.stop : undefined };
  return { field: 'stop', sent: turn.body.stop };
}

/** Where a request's tool choice is, as a message names it. */
function toolChoiceField(turn: AskedTurn): string {
  const api = bodyApiOf(turn);
  return api === 'gemini-generate' ? 'toolConfig' : api === 'bedrock-converse' ? 'toolConfig.toolChoice' : 'tool_choice';
}

/** The tool a request forces, when it forces exactly one: named by tool_choice, or the only one offered under a required choice. */
function forcedTool(turn: AskedTurn): AskedTool | undefined {
  const choice = readToolChoice(turn.toolChoice);
  if (choice.mode !== 'required') return undefined;
  if (choice.name !== undefined) return turn.tools.find((tool) => tool.name === choice.name);
  return turn.tools.length === 1 ? turn.tools[0] : undefined;
}

/**
 * The answers of a step, one per choice the request asks for, or why they do not fit. A
 * structured answer to a request that forces one tool and asks for no schema is that tool's call.
 */
function choicesOf(turn: AskedTurn, answer: Exclude<StepAnswer, { kind: 'failure' }>, count: number): Answer[] | string {
  const answers = answer.kind === 'choices' ? answer.choices : [answer];
  if (answers.length !== count) {
    if (turn.api !== 'openai-chat')
      return `  it scripts ${answers.length} choices, and only OpenAI chat completions answer several (n); ${turn.api} answers one.\nScript willSay(text) with one text.`;
    if (count === 1)
      return `  it scripts ${answers.length} choices, and the request asks for one (n is ${isRecord(turn.body) && turn.body.n !== undefined ? JSON.stringify(turn.body.n) : 'absent'}).\nSend n: ${answers.length} in the request, or script willSay(text) with one text.`;
    return `  the request asks for n: ${count} choices, and the step scripts ${answers.length}.\nScript willSay([…]) with ${count} texts (JSON texts, for a response_format), one per choice.`;
  }
  const tool = turn.responseSchema === undefined ? forcedTool(turn) : undefined;
  return answers.map((one) => {
    if (one.kind !== 'structured' || tool === undefined) return one;
    const call: ToolCallAnswer = { name: tool.name, arguments: one.value };
    structuredCalls.add(call);
    return { kind: 'tool-calls', calls: [call] };
  });
}
