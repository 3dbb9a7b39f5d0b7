// What one recorded exchange shows of a provider's behaviour: its wire API and model, whether it
// streamed, the tool calls and finish reason of its answer, a refusal, an error status or an
// in-stream error, and the usage it reports — read from the recorded body or from every event of
// the recorded stream, per wire API.
import { isRecord, parseJson } from '../core/internal.js';
import {
  assembleConverseStream,
  converseEventOfChunk,
  guessProvider,
  readConverseAnswer,
  readTurn,
  routeOf,
  withoutProviderPrefix,
  type WireApi,
} from '../providers/internal.js';
import { eventStreamMessagesOf, streamEventsOf, type Exchange, type RecordedResponse } from '../recordings/internal.js';

/** A finish reason in one vocabulary across the wire APIs. */
export const FINISHES = ['stop', 'tool-calls', 'length', 'content-filter', 'refusal', 'other'] as const;
export type Finish = (typeof FINISHES)[number];

/** Tokens as a provider bills them: fresh input, input read from a cache, input written to one, output (reasoning included). */
export interface TokenCounts {
  input: number;
  cachedInput: number;
  cacheWrite: number;
  output: number;
}

/** What an exchange shows. */
export interface AnswerFacts {
  /** The wire API, or undefined for a path no provider here has. */
  api: WireApi | undefined;
  /** The model the request named (or the answer, when the request did not). */
  model: string | undefined;
  status: number;
  streamed: boolean;
  /** The request asked for structured output (a response schema). */
  structured: boolean;
  /** Tool calls in the answer. */
  toolCalls: number;
  /** The finish reason as recorded (`tool_calls`, `end_turn`, `MAX_TOKENS`…), when the answer has one. */
  rawFinish: string | undefined;
  finish: Finish | undefined;
  /** The model refused (OpenAI's `refusal`, a `refusal` stop reason, Gemini's blocked prompt). */
  refused: boolean;
  /** A streamed answer carried an error event. */
  streamError: boolean;
  /**
   * The answer is the provider's failure sent under a 2xx status: a stream that ended in its error
   * event (Anthropic's `error`, Responses' `error` or `response.failed`, an `{"error":…}` chunk), or
   * a Responses object whose status is `failed`. A recorded failure, not an answer: it may report no
   * usage, and is not an unmetered answer for that.
   */
  failed: boolean;
  /** The usage the answer reports; undefined when it reports none. */
  usage: TokenCounts | undefined;
}

/** Reads what `exchange` shows. Never throws: what cannot be read is left out. */
export function answerFacts(exchange: Exchange): AnswerFacts {
  const { request, response } = exchange;
  const route = routeOf(request.method, withoutProviderPrefix(request.path).path, guessProvider(exchange.upstream));
  const requestJson = request.body !== undefined && 'json' in request.body ? request.body.json : undefined;
  const turn = route === undefined ? undefined : readTurn(request.path, requestJson, request.method, route.provider);
  const facts: AnswerFacts = {
    api: route?.api,
    model: turn?.model || route?.model || (isRecord(requestJson) && typeof requestJson.model === 'string' ? requestJson.model : undefined),
    status: response.status,
    streamed: response.stream !== undefined,
    structured: turn?.responseSchema !== undefined,
    toolCalls: 0,
    rawFinish: undefined,
    finish: undefined,
    refused: false,
    streamError: false,
    failed: false,
    usage: undefined,
  };
  if (facts.model === '') facts.model = undefined;
  if (route?.api === 'bedrock-converse' || route?.api === 'bedrock-invoke') {
    const reading = new Reading(facts);
    try {
      bedrockAnswer(reading, route.api, response);
    } catch {
      // A recording no reader expected: what was read so far stands.
    }
    reading.finish();
    return facts;
  }
  const reader = route === undefined ? undefined : READERS[route.api];
  if (reader === undefined) return facts;
  const reading = new Reading(facts);
  try {
    if (response.stream !== undefined) {
      for (const event of streamEventsOf(response) ?? []) if (event.json !== undefined) reader.event(reading, event.json, event.event);
    } else if (response.body !== undefined) {
      const json = 'json' in response.body ? response.body.json : 'text' in response.body ? parseJson(response.body.text) : undefined;
      if (json !== undefined && response.status >= 200 && response.status < 300) reader.body(reading, json);
    }
  } catch {
    // A recording no reader expected: what was read so far stands.
  }
  reading.finish();
  return facts;
}

// The facts being read: tool call ids counted once, usage taken from the last event that has it.
class Reading {
  readonly facts: AnswerFacts;
  readonly calls = new Set<string>();
  constructor(facts: AnswerFacts) {
    this.facts = facts;
  }
  call(id: string): void {
    this.calls.add(id);
  }
  finishWith(raw: unknown, finish: Finish): void {
    if (typeof raw !== 'string' || raw === '') return;
    this.facts.rawFinish = raw;
    this.facts.finish = finish;
  }
  usage(counts: Partial<TokenCounts>): void {
    const previous = this.facts.usage ?? { input: 0, cachedInput: 0, cacheWrite: 0, output: 0 };
    this.facts.usage = { ...previous, ...Object.fromEntries(Object.entries(counts).filter(([, value]) => typeof value === 'number' && value >= 0)) };
  }
  finish(): void {
    this.facts.toolCalls = this.calls.size;
    this.facts.failed ||= this.facts.streamError;
    if (this.facts.refused && this.facts.finish !== 'content-filter') this.facts.finish = 'refusal';
    else if (this.facts.toolCalls > 0 && this.facts.finish === 'stop') this.facts.finish = 'tool-calls';
  }
}

interface ApiReader {
  /** A non-streamed 2xx answer. */
  body(reading: Reading, json: unknown): void;
  /** One event of a streamed answer (its JSON data, its SSE `event:` name). */
  event(reading: Reading, json: unknown, name: string | undefined): void;
}

const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

// ---- OpenAI Chat Completions ----

const CHAT_FINISH: Record<string, Finish> = {
  stop: 'stop',
  tool_calls: 'tool-calls',
  function_call: 'tool-calls',
  length: 'length',
  content_filter: 'content-filter',
};

function chatUsage(reading: Reading, usage: unknown): void {
  if (!isRecord(usage)) return;
  const prompt = num(usage.prompt_tokens) ?? 0;
  const cached = num(isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details.cached_tokens : undefined) ?? 0;
  reading.usage({ input: Math.max(0, prompt - cached), cachedInput: cached, output: num(usage.completion_tokens) ?? 0 });
}

function chatChoice(reading: Reading, choice: unknown, message: unknown, streamed: boolean): void {
  if (!isRecord(choice)) return;
  if (typeof choice.finish_reason === 'string') reading.finishWith(choice.finish_reason, CHAT_FINISH[choice.finish_reason] ?? 'other');
  if (!isRecord(message)) return;
  if (typeof message.refusal === 'string' && message.refusal !== '') reading.facts.refused = true;
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  // A streamed call is named by its index (its id comes in its first delta only).
  calls.forEach((call, position) => reading.call(String(streamed && isRecord(call) && num(call.index) !== undefined ? call.index : position)));
  if (isRecord(message.function_call) && typeof message.function_call.name === 'string') reading.call('function_call');
}

const openaiChat: ApiReader = {
  body(reading, json) {
    if (!isRecord(json)) return;
    const choice = Array.isArray(json.choices) ? json.choices[0] : undefined;
    chatChoice(reading, choice, isRecord(choice) ? choice.message : undefined, false);
    chatUsage(reading, json.usage);
  },
  event(reading, json) {
    if (!isRecord(json)) return;
    if (json.error !== undefined) reading.facts.streamError = true;
    for (const choice of Array.isArray(json.choices) ? json.choices : []) {
      if (isRecord(choice) && (choice.index ?? 0) === 0) chatChoice(reading, choice, choice.delta, true);
    }
    chatUsage(reading, json.usage);
  },
};

// ---- OpenAI Responses ----

const RESPONSES_INCOMPLETE: Record<string, Finish> = { max_output_tokens: 'length', content_filter: 'content-filter' };

function responsesObject(reading: Reading, response: unknown): void {
  if (!isRecord(response)) return;
  const output = Array.isArray(response.output) ? response.output : [];
  for (const item of output) {
    if (!isRecord(item)) continue;
    if (item.type === 'function_call' || item.type === 'custom_tool_call') reading.call(String(item.call_id ?? item.id ?? reading.calls.size));
    if (item.type === 'message' && Array.isArray(item.content) && item.content.some((part) => isRecord(part) && part.type === 'refusal'))
      reading.facts.refused = true;
  }
  const status = response.status;
  if (status === 'incomplete') {
    const reason = isRecord(response.incomplete_details) ? String(response.incomplete_details.reason ?? 'incomplete') : 'incomplete';
    reading.finishWith(reason, RESPONSES_INCOMPLETE[reason] ?? 'other');
  } else if (status === 'completed') reading.finishWith('completed', 'stop');
  else if (status === 'failed') {
    reading.finishWith('failed', 'other');
    reading.facts.failed = true;
    reading.facts.streamError ||= reading.facts.streamed;
  }
  const usage = response.usage;
  if (isRecord(usage)) {
    const input = num(usage.input_tokens) ?? 0;
    const cached = num(isRecord(usage.input_tokens_details) ? usage.input_tokens_details.cached_tokens : undefined) ?? 0;
    reading.usage({ input: Math.max(0, input - cached), cachedInput: cached, output: num(usage.output_tokens) ?? 0 });
  }
}

const openaiResponses: ApiReader = {
  body: responsesObject,
  event(reading, json) {
    if (!isRecord(json)) return;
    if (json.type === 'error') reading.facts.streamError = true;
    if (json.type === 'response.refusal.delta' || json.type === 'response.refusal.done') reading.facts.refused = true;
    if (json.type === 'response.output_item.added' && isRecord(json.item) && (json.item.type === 'function_call' || json.item.type === 'custom_tool_call'))
      reading.call(String(json.item.call_id ?? json.item.id ?? json.output_index));
    if (json.type === 'response.completed' || json.type === 'response.incomplete' || json.type === 'response.failed') responsesObject(reading, json.response);
  },
};

// ---- Anthropic Messages ----

const ANTHROPIC_FINISH: Record<string, Finish> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'other',
  tool_use: 'tool-calls',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  refusal: 'refusal',
};

function anthropicUsage(reading: Reading, usage: unknown): void {
  if (!isRecord(usage)) return;
  reading.usage({
    input: num(usage.input_tokens),
    cachedInput: num(usage.cache_read_input_tokens),
    cacheWrite: num(usage.cache_creation_input_tokens),
    output: num(usage.output_tokens),
  });
}

function anthropicStop(reading: Reading, reason: unknown): void {
  if (typeof reason !== 'string') return;
  reading.finishWith(reason, ANTHROPIC_FINISH[reason] ?? 'other');
  if (reason === 'refusal') reading.facts.refused = true;
}

const anthropicMessages: ApiReader = {
  body(reading, json) {
    if (!isRecord(json)) return;
    for (const block of Array.isArray(json.content) ? json.content : []) {
      // Only a client tool is the code's to call: a server tool (web search) ran at Anthropic.
      if (isRecord(block) && block.type === 'tool_use') reading.call(String(block.id ?? reading.calls.size));
    }
    anthropicStop(reading, json.stop_reason);
    anthropicUsage(reading, json.usage);
  },
  event(reading, json) {
    if (!isRecord(json)) return;
    switch (json.type) {
      case 'message_start':
        if (isRecord(json.message)) anthropicUsage(reading, json.message.usage);
        return;
      case 'content_block_start':
        if (isRecord(json.content_block) && json.content_block.type === 'tool_use') reading.call(String(json.content_block.id ?? json.index));
        return;
      case 'message_delta':
        if (isRecord(json.delta)) anthropicStop(reading, json.delta.stop_reason);
        anthropicUsage(reading, json.usage);
        return;
      case 'error':
        reading.facts.streamError = true;
        return;
    }
  },
};

// ---- Gemini generateContent ----

const GEMINI_FINISH: Record<string, Finish> = {
  STOP: 'stop',
  MAX_TOKENS: 'length',
  SAFETY: 'content-filter',
  RECITATION: 'content-filter',
  BLOCKLIST: 'content-filter',
  PROHIBITED_CONTENT: 'content-filter',
  SPII: 'content-filter',
  IMAGE_SAFETY: 'content-filter',
  MALFORMED_FUNCTION_CALL: 'other',
};

function geminiChunk(reading: Reading, json: unknown): void {
  if (!isRecord(json)) return;
  if (json.error !== undefined) reading.facts.streamError = true;
  if (isRecord(json.promptFeedback) && typeof json.promptFeedback.blockReason === 'string') {
    reading.facts.refused = true;
    reading.finishWith(json.promptFeedback.blockReason, 'refusal');
  }
  const candidate = Array.isArray(json.candidates) ? json.candidates[0] : undefined;
  if (isRecord(candidate)) {
    const parts = isRecord(candidate.content) && Array.isArray(candidate.content.parts) ? candidate.content.parts : [];
    for (const part of parts) if (isRecord(part) && isRecord(part.functionCall)) reading.call(`${reading.calls.size}`);
    if (typeof candidate.finishReason === 'string') reading.finishWith(candidate.finishReason, GEMINI_FINISH[candidate.finishReason] ?? 'other');
  }
  const usage = json.usageMetadata;
  if (isRecord(usage)) {
    const prompt = num(usage.promptTokenCount) ?? 0;
    const cached = num(usage.cachedContentTokenCount) ?? 0;
    reading.usage({
      input: Math.max(0, prompt - cached),
      cachedInput: cached,
      output: (num(usage.candidatesTokenCount) ?? 0) + (num(usage.thoughtsTokenCount) ?? 0),
    });
  }
}

const geminiGenerate: ApiReader = { body: geminiChunk, event: (reading, json) => geminiChunk(reading, json) };

// ---- Ollama chat and generate ----

const OLLAMA_FINISH: Record<string, Finish> = { stop: 'stop', length: 'length', load: 'other', unload: 'other' };

function ollamaChunk(reading: Reading, json: unknown): void {
  if (!isRecord(json)) return;
  if (json.error !== undefined) reading.facts.streamError = true;
  if (isRecord(json.message) && Array.isArray(json.message.tool_calls)) for (const _call of json.message.tool_calls) reading.call(`${reading.calls.size}`);
  if (json.done === true) {
    if (typeof json.done_reason === 'string') reading.finishWith(json.done_reason, OLLAMA_FINISH[json.done_reason] ?? 'other');
    reading.usage({ input: num(json.prompt_eval_count) ?? 0, output: num(json.eval_count) ?? 0 });
  }
}

const ollama: ApiReader = { body: ollamaChunk, event: (reading, json) => ollamaChunk(reading, json) };

// ---- Bedrock: Converse, and InvokeModel with a Claude (Anthropic Messages) or Nova (Converse's shape) body ----

const CONVERSE_FINISH: Record<string, Finish> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool-calls',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  content_filtered: 'content-filter',
  guardrail_intervened: 'content-filter',
};

// A Converse body (or Nova's, or a ConverseStream assembled into one), read by providers/.
function converseBody(reading: Reading, json: unknown): void {
  const answer = readConverseAnswer(json);
  if ('problem' in answer) return;
  for (const call of answer.toolCalls) reading.call(call.id);
  // Only a stop reason the answer wrote: a stream cut before its messageStop has none.
  if (isRecord(json) && typeof json.stopReason === 'string') reading.finishWith(json.stopReason, CONVERSE_FINISH[json.stopReason] ?? 'other');
  if (answer.usageReported)
    reading.usage({ input: answer.usage.input, cachedInput: answer.cache.read, cacheWrite: answer.cache.write, output: answer.usage.output });
}

// Bedrock's own token counts, where the model's body reports none (Llama's, Titan's): InvokeModel's
// `x-amzn-bedrock-input-token-count` headers, a stream's last chunk's `amazon-bedrock-invocationMetrics`.
function bedrockCounts(reading: Reading, input: unknown, output: unknown): void {
  const count = (value: unknown): number | undefined => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : num(value));
  if (reading.facts.usage !== undefined || (count(input) === undefined && count(output) === undefined)) return;
  reading.usage({ input: count(input) ?? 0, output: count(output) ?? 0 });
}

function bedrockAnswer(reading: Reading, api: 'bedrock-converse' | 'bedrock-invoke', response: RecordedResponse): void {
  if (response.stream === undefined) {
    const body = response.body;
    const json = body === undefined ? undefined : 'json' in body ? body.json : 'text' in body ? parseJson(body.text) : undefined;
    if (json === undefined || response.status < 200 || response.status > 299) return;
    if (api === 'bedrock-invoke' && isRecord(json) && Array.isArray(json.content)) anthropicMessages.body(reading, json);
    else converseBody(reading, json);
    if (api === 'bedrock-invoke')
      bedrockCounts(reading, response.headers['x-amzn-bedrock-input-token-count'], response.headers['x-amzn-bedrock-output-token-count']);
    return;
  }
  const messages = eventStreamMessagesOf(response) ?? [];
  if (messages.some((message) => message.exception)) reading.facts.streamError = true;
  const events = messages.filter((message) => !message.exception);
  if (api === 'bedrock-converse') {
    converseBody(reading, assembleConverseStream(events.map((message) => ({ type: message.event, payload: message.json }))).body);
    return;
  }
  if (events.some((message) => isRecord(message.json) && typeof message.json.type === 'string')) {
    for (const message of events) anthropicMessages.event(reading, message.json, undefined);
  } else {
    const converse = events.map((message) => converseEventOfChunk(message.json)).filter((event) => event !== undefined);
    if (converse.length > 0) converseBody(reading, assembleConverseStream(converse).body);
  }
  for (const message of events) {
    const metrics = isRecord(message.json) ? message.json['amazon-bedrock-invocationMetrics'] : undefined;
    if (isRecord(metrics)) bedrockCounts(reading, metrics.inputTokenCount, metrics.outputTokenCount);
  }
}

// ---- Embeddings: usage only ----

const openaiEmbeddings: ApiReader = {
  body(reading, json) {
    if (isRecord(json) && isRecord(json.usage)) reading.usage({ input: num(json.usage.prompt_tokens) ?? 0 });
  },
  event() {},
};

const ollamaEmbed: ApiReader = {
  body(reading, json) {
    if (isRecord(json) && num(json.prompt_eval_count) !== undefined) reading.usage({ input: num(json.prompt_eval_count)! });
  },
  event() {},
};

const READERS: Partial<Record<WireApi, ApiReader>> = {
  'openai-chat': openaiChat,
  'openai-responses': openaiResponses,
  'openai-embeddings': openaiEmbeddings,
  'anthropic-messages': anthropicMessages,
  'gemini-generate': geminiGenerate,
  'ollama-chat': ollama,
  'ollama-generate': ollama,
  'ollama-embed': ollamaEmbed,
};
