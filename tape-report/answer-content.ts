// What an answer says, beside what answer-facts counts of it: its text, each tool call with its
// name and parsed arguments, and the model the provider says answered. A streamed answer is first
// put back together into the body its API would have sent whole (text deltas joined, a tool call's
// argument fragments joined), then read by the API's own reader under providers/, like a body.
// Bedrock's InvokeModel carries the model's own body: Claude's is Anthropic Messages (its stream's
// chunks Messages events), Nova's is Converse's shape (its chunks Converse events).
import { isRecord, parseJson, type Json } from '../core/internal.js';
import {
  assembleConverseStream,
  converseEventOfChunk,
  guessProvider,
  readChatAnswer,
  readConverseAnswer,
  readGenerateAnswer,
  readMessagesAnswer,
  readOllamaChatAnswer,
  readOllamaGenerateAnswer,
  readResponsesAnswer,
  routeOf,
  withoutProviderPrefix,
  type ModelAnswer,
  type UnreadableAnswer,
  type WireApi,
} from '../providers/internal.js';
import { eventStreamMessagesOf, streamEventsOf, type Body, type Exchange, type RecordedResponse } from '../recordings/internal.js';

/** One tool call of an answer, in the order the answer gave them. */
export interface ContentToolCall {
  name: string;
  /** The parsed arguments; the raw text when they do not parse (then `argumentsError` says why). */
  args: Json;
  argumentsError?: string;
}

/** What an answer says. */
export interface AnswerContent {
  /** The wire APIs whose answers are read here (others give nothing: `read` is false). */
  read: boolean;
  /** The text of the answer (its first choice or candidate); null when it has none. */
  text: string | null;
  toolCalls: ContentToolCall[];
  /** The model the provider says answered (`model`, Gemini's `modelVersion`): `gpt-4o-2024-08-06`. */
  answeredModel: string | undefined;
  /** Why the answer could not be read, when it could not. */
  problem?: string;
}

/** The wire APIs {@link answerContent} reads, streamed and not. */
export const CONTENT_APIS = [
  'openai-chat',
  'openai-responses',
  'anthropic-messages',
  'gemini-generate',
  'ollama-chat',
  'ollama-generate',
  'bedrock-converse',
  'bedrock-invoke',
] as const satisfies readonly WireApi[];
type ContentApi = (typeof CONTENT_APIS)[number];
type Reader = (body: unknown) => ModelAnswer | UnreadableAnswer;

/** Reads what the answer of `exchange` says. Never throws: what cannot be read is said in `problem`. */
export function answerContent(exchange: Exchange): AnswerContent {
  const { request, response } = exchange;
  const route = routeOf(request.method, withoutProviderPrefix(request.path).path, guessProvider(exchange.upstream));
  const api = route?.api;
  const none: AnswerContent = { read: false, text: null, toolCalls: [], answeredModel: undefined };
  if (api === undefined || !(CONTENT_APIS as readonly string[]).includes(api)) return none;
  if (response.status < 200 || response.status > 299) return { ...none, read: true };
  let whole: { body: unknown; read: Reader };
  try {
    whole = wholeAnswer(api as ContentApi, response);
  } catch (error) {
    return { ...none, read: true, problem: `its stream could not be put together: ${(error as Error).message}` };
  }
  const { body } = whole;
  if (body === undefined) return { ...none, read: true, problem: 'it has no JSON body' };
  const answer = whole.read(body);
  const answeredModel = modelOf(api, body);
  if ('problem' in answer) return { ...none, read: true, answeredModel, problem: answer.problem };
  return {
    read: true,
    text: answer.text,
    toolCalls: answer.toolCalls.map((call) => ({
      name: call.name,
      args: call.args,
      ...(call.argumentsError === undefined ? {} : { argumentsError: call.argumentsError }),
    })),
    answeredModel,
  };
}

// The whole answer (a stream put back together) and the reader of its body.
function wholeAnswer(api: ContentApi, response: RecordedResponse): { body: unknown; read: Reader } {
  if (api === 'bedrock-converse' || api === 'bedrock-invoke') return wholeBedrockAnswer(api, response);
  if (response.stream === undefined) return { body: jsonOf(response.body), read: READERS[api] };
  const events = (streamEventsOf(response) ?? []).filter((event) => event.json !== undefined).map((event) => event.json);
  return { body: ASSEMBLERS[api](events), read: READERS[api] };
}

const readConverse: Reader = (body) => readConverseAnswer(body);

// Converse, and InvokeModel's Claude or Nova body; a stream's exception message ends what is read.
function wholeBedrockAnswer(api: 'bedrock-converse' | 'bedrock-invoke', response: RecordedResponse): { body: unknown; read: Reader } {
  if (response.stream === undefined) {
    const json = jsonOf(response.body);
    return { body: json, read: api === 'bedrock-invoke' && isRecord(json) && Array.isArray(json.content) ? readMessagesAnswer : readConverse };
  }
  const messages = eventStreamMessagesOf(response);
  if (messages === undefined) throw new Error('its frames are not all event stream messages');
  const events = messages.filter((message) => !message.exception);
  if (api === 'bedrock-converse')
    return { body: assembleConverseStream(events.map((message) => ({ type: message.event, payload: message.json }))).body, read: readConverse };
  if (events.some((message) => isRecord(message.json) && typeof message.json.type === 'string'))
    return { body: assembleMessages(events.map((message) => message.json)), read: readMessagesAnswer };
  const converse = events.map((message) => converseEventOfChunk(message.json)).filter((event) => event !== undefined);
  return { body: assembleConverseStream(converse).body, read: readConverse };
}

function jsonOf(body: Body | undefined): unknown {
  return body === undefined ? undefined : 'json' in body ? body.json : 'text' in body ? parseJson(body.text) : undefined;
}

const READERS: Record<Exclude<ContentApi, 'bedrock-converse' | 'bedrock-invoke'>, Reader> = {
  'openai-chat': readChatAnswer,
  'openai-responses': readResponsesAnswer,
  'anthropic-messages': readMessagesAnswer,
  'gemini-generate': readGenerateAnswer,
  'ollama-chat': readOllamaChatAnswer,
  'ollama-generate': readOllamaGenerateAnswer,
};

function modelOf(api: WireApi, body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const value = api === 'gemini-generate' ? body.modelVersion : body.model;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

// ---- Streams put back together as the body the API sends whole ----

const ASSEMBLERS: Record<keyof typeof READERS, (events: unknown[]) => unknown> = {
  'openai-chat': assembleChat,
  'openai-responses': assembleResponses,
  'anthropic-messages': assembleMessages,
  'gemini-generate': assembleGenerate,
  'ollama-chat': assembleOllamaChat,
  'ollama-generate': assembleOllamaGenerate,
};

// Ollama streams NDJSON chunks: the message's content pieces joined, its tool calls (each whole
// in one chunk) in order, the last chunk's done_reason and counts.
function assembleOllamaChat(events: unknown[]): unknown {
  let content = '';
  const toolCalls: unknown[] = [];
  let model: unknown;
  let last: Record<string, unknown> = {};
  for (const event of events) {
    if (!isRecord(event)) continue;
    model ??= event.model;
    if (isRecord(event.message)) {
      if (typeof event.message.content === 'string') content += event.message.content;
      if (Array.isArray(event.message.tool_calls)) toolCalls.push(...(event.message.tool_calls as unknown[]));
    }
    if (event.done === true) last = event;
  }
  return { ...last, model, message: { role: 'assistant', content, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) } };
}

function assembleOllamaGenerate(events: unknown[]): unknown {
  let response = '';
  let model: unknown;
  let last: Record<string, unknown> = {};
  for (const event of events) {
    if (!isRecord(event)) continue;
    model ??= event.model;
    if (typeof event.response === 'string') response += event.response;
    if (event.done === true) last = event;
  }
  return { ...last, model, response };
}

function assembleChat(events: unknown[]): unknown {
  let model: unknown;
  let content: string | null = null;
  let refusal: string | null = null;
  let finish: unknown;
  const calls = new Map<number, { id: string; function: { name: string; arguments: string } }>();
  for (const event of events) {
    if (!isRecord(event)) continue;
    if (typeof event.model === 'string') model ??= event.model;
    for (const choice of Array.isArray(event.choices) ? event.choices : []) {
      if (!isRecord(choice) || (choice.index ?? 0) !== 0) continue;
      if (typeof choice.finish_reason === 'string') finish = choice.finish_reason;
      const delta = isRecord(choice.delta) ? choice.delta : {};
      if (typeof delta.content === 'string') content = (content ?? '') + delta.content;
      if (typeof delta.refusal === 'string') refusal = (refusal ?? '') + delta.refusal;
      for (const [position, call] of (Array.isArray(delta.tool_calls) ? delta.tool_calls : []).entries()) {
        if (!isRecord(call)) continue;
        const index = typeof call.index === 'number' ? call.index : position;
        const known = calls.get(index) ?? { id: '', function: { name: '', arguments: '' } };
        if (typeof call.id === 'string') known.id = call.id;
        const fn = isRecord(call.function) ? call.function : {};
        if (typeof fn.name === 'string') known.function.name += fn.name;
        if (typeof fn.arguments === 'string') known.function.arguments += fn.arguments;
        calls.set(index, known);
      }
    }
  }
  const toolCalls = [...calls.entries()].sort(([left], [right]) => left - right).map(([, call]) => call);
  return {
    model,
    choices: [
      { index: 0, message: { role: 'assistant', content, refusal, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) }, finish_reason: finish },
    ],
  };
}

// The Responses stream ends with the whole response object (`response.completed`, `.incomplete`, `.failed`).
function assembleResponses(events: unknown[]): unknown {
  let last: unknown;
  for (const event of events) {
    if (isRecord(event) && typeof event.type === 'string' && /^response\.(completed|incomplete|failed)$/.test(event.type)) last = event.response;
  }
  if (last === undefined) throw new Error('it has no response.completed, response.incomplete or response.failed event');
  return last;
}

function assembleMessages(events: unknown[]): unknown {
  let message: Record<string, unknown> = {};
  const blocks: Record<string, unknown>[] = [];
  const partial = new Map<number, string>();
  for (const event of events) {
    if (!isRecord(event)) continue;
    if (event.type === 'message_start' && isRecord(event.message)) message = { ...event.message };
    else if (event.type === 'content_block_start' && typeof event.index === 'number' && isRecord(event.content_block))
      blocks[event.index] = { ...event.content_block };
    else if (event.type === 'content_block_delta' && typeof event.index === 'number' && isRecord(event.delta)) {
      const block = blocks[event.index];
      if (block === undefined) continue;
      if (event.delta.type === 'text_delta' && typeof event.delta.text === 'string') block.text = String(block.text ?? '') + event.delta.text;
      if (event.delta.type === 'input_json_delta' && typeof event.delta.partial_json === 'string')
        partial.set(event.index, (partial.get(event.index) ?? '') + event.delta.partial_json);
    } else if (event.type === 'message_delta' && isRecord(event.delta)) message = { ...message, ...event.delta };
  }
  for (const [index, text] of partial) {
    const block = blocks[index];
    // An empty input streams no fragment at all; one that does is the whole of it, joined.
    if (block !== undefined && text.trim() !== '') block.input = parseJson(text) ?? text;
  }
  return { ...message, content: blocks.filter((block) => block !== undefined) };
}

function assembleGenerate(events: unknown[]): unknown {
  let modelVersion: unknown;
  let finishReason: unknown;
  let promptFeedback: unknown;
  const parts: Record<string, unknown>[] = [];
  for (const event of events) {
    if (!isRecord(event)) continue;
    if (typeof event.modelVersion === 'string') modelVersion ??= event.modelVersion;
    if (event.promptFeedback !== undefined) promptFeedback = event.promptFeedback;
    const candidate = Array.isArray(event.candidates) ? event.candidates[0] : undefined;
    if (!isRecord(candidate)) continue;
    if (typeof candidate.finishReason === 'string') finishReason = candidate.finishReason;
    for (const part of isRecord(candidate.content) && Array.isArray(candidate.content.parts) ? candidate.content.parts : []) {
      if (!isRecord(part)) continue;
      const previous = parts[parts.length - 1];
      // Text arrives in pieces: consecutive text parts of one kind (thought or not) are one part.
      if (typeof part.text === 'string' && previous !== undefined && typeof previous.text === 'string' && previous.thought === part.thought)
        previous.text += part.text;
      else parts.push({ ...part });
    }
  }
  return {
    modelVersion,
    ...(promptFeedback === undefined ? {} : { promptFeedback }),
    candidates: parts.length === 0 && finishReason === undefined ? [] : [{ content: { role: 'model', parts }, finishReason }],
  };
}
