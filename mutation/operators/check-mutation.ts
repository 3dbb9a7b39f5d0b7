// What every mutant must be, checked as the rest of modeltape would check it: a line the tape
// reader takes, a JSON body whose bytes hash to its sha256, a stream its API's grammar accepts
// (but for the operators that break the stream on purpose). Used by the operators' tests; `modeltape
// mutate` can run it on a mutant before serving it.
import {
  checkChatStreamGrammar,
  checkConverseStreamGrammar,
  checkGenerateStreamGrammar,
  checkInvokeStreamGrammar,
  checkMessagesStreamGrammar,
  checkOllamaChatStreamGrammar,
  checkOllamaGenerateStreamGrammar,
  checkResponsesStreamGrammar,
  type GrammarEvent,
  type TurnApi,
} from '../../providers/internal.js';
import {
  FrameSplitter,
  createHeader,
  decodeBody,
  defaultKeyRules,
  encodeBody,
  encodeEventStreamEvent,
  eventStreamMessagesOf,
  readEventStreamMessage,
  frameBytes,
  parseTape,
  serializeTape,
  sha256Hex,
  type Exchange,
  type RecordedResponse,
  type StreamFormat,
} from '../../recordings/internal.js';
import type { Mutation } from '../mutation.js';
import { sseFields } from './stream-frames.js';

/** The wire APIs whose answers are mutated: the turn APIs (Bedrock's Converse and InvokeModel among them). */
export type MutatedApi = TurnApi;

/** The operators whose stream breaks its API's grammar on purpose. */
const BREAKS_GRAMMAR = new Set(['stream-truncated', 'stream-error']);

/** What is wrong with `mutation` of `exchange`, one line each; empty when nothing is. */
export function mutationProblems(exchange: Exchange, mutation: Mutation, api: MutatedApi): string[] {
  const mutant: Exchange = { ...exchange, response: mutation.response };
  const problems: string[] = [];
  let tape: string;
  try {
    tape = serializeTape(createHeader(defaultKeyRules()), [mutant]);
  } catch (error) {
    return [`does not serialize: ${String(error)}`];
  }
  const read = parseTape(tape, 'mutant.jsonl');
  for (const problem of read.problems) problems.push(`tape: ${problem.field ?? ''} ${problem.message}`);
  const body = mutation.response.body;
  if (body !== undefined && 'json' in body) {
    const bytes = decodeBody(body);
    if (body.sha256 !== sha256Hex(bytes)) problems.push(`body: sha256 ${String(body.sha256)} is not the sha256 of its bytes (${sha256Hex(bytes)})`);
  }
  if (mutation.response.stream?.format === 'eventstream') {
    for (const problem of eventFrameProblems(mutation.response)) problems.push(`stream: ${problem}`);
  }
  if (mutation.response.stream !== undefined && !BREAKS_GRAMMAR.has(mutation.operator)) {
    for (const violation of streamGrammarViolations(mutation.response, api)) problems.push(`stream: ${violation}`);
  }
  return problems;
}

/** The stream's violations of its API's grammar. */
export function streamGrammarViolations(response: RecordedResponse, api: MutatedApi): string[] {
  if (response.stream?.format === 'eventstream') return eventStreamGrammarViolations(response, api);
  const text = streamText(response);
  switch (api) {
    case 'openai-chat':
      return checkChatStreamGrammar(sseEvents(text));
    case 'openai-responses':
      return checkResponsesStreamGrammar(sseEvents(text));
    case 'anthropic-messages':
      return checkMessagesStreamGrammar(sseEvents(text));
    case 'gemini-generate':
      return checkGenerateStreamGrammar(sseEvents(text));
    case 'ollama-chat':
      return checkOllamaChatStreamGrammar(ndjsonLines(text));
    case 'ollama-generate':
      return checkOllamaGenerateStreamGrammar(ndjsonLines(text));
    case 'bedrock-converse':
    case 'bedrock-invoke':
      return [`a ${api} stream is an AWS event stream, not ${response.stream?.format ?? 'no stream'}`];
    case 'openai-realtime':
      // A Realtime session is not one stream but events per client event; no operator edits one.
      return [`${api} sessions are not mutated`];
  }
}

/**
 * What keeps an event stream's frames from replaying as written: a frame that is not a readable
 * `event` (replay would serve it, but no editor reads it back), or an event whose encoding does not
 * read back as the same event (the recorder would have kept its bytes as base64).
 */
export function eventFrameProblems(response: RecordedResponse): string[] {
  const problems: string[] = [];
  (response.stream?.frames ?? []).forEach((frame, index) => {
    if (!('event' in frame)) {
      problems.push(`frame ${index} is not an event`);
      return;
    }
    const read = readEventStreamMessage(encodeEventStreamEvent(frame.event));
    if (JSON.stringify(read) !== JSON.stringify(frame.event)) problems.push(`frame ${index} does not read back as the event it encodes`);
  });
  return problems;
}

/** A Bedrock event stream's violations: ConverseStream's grammar, or the grammar of the model events an InvokeModelWithResponseStream's chunks carry. */
function eventStreamGrammarViolations(response: RecordedResponse, api: MutatedApi): string[] {
  const messages = eventStreamMessagesOf(response);
  if (messages === undefined) return ['not every frame is a readable event'];
  const exceptions = messages.filter((message) => message.exception).map((message) => `an exception message (${message.event ?? '?'})`);
  if (exceptions.length > 0) return exceptions;
  if (api === 'bedrock-converse') return checkConverseStreamGrammar(messages.map((message) => ({ type: message.event, payload: message.json })));
  if (api !== 'bedrock-invoke') return [`${api} does not stream an AWS event stream`];
  return checkInvokeStreamGrammar(messages);
}

/** The stream's bytes, its frames concatenated. */
export function streamText(response: RecordedResponse): string {
  return (response.stream?.frames ?? []).map((frame) => ('text' in frame ? frame.text : frameBytes(frame).toString('utf8'))).join('');
}

/** The events of server-sent-event text: each one's `event:` line and its `data:` lines joined. */
export function sseEvents(text: string): GrammarEvent[] {
  const frames = text.split(/\r?\n\r?\n/);
  frames.pop();
  return frames.filter((frame) => frame.trim() !== '').map((frame) => sseFields(frame.split(/\r?\n/)));
}

/** The non-empty lines of NDJSON text. */
export function ndjsonLines(text: string): string[] {
  return text.split('\n').filter((line) => line.trim() !== '');
}

/** What a fixture exchange is made of: a request and the bytes of its answer. */
export interface RecordedBytes {
  upstream: string;
  path: string;
  request: Record<string, unknown>;
  status?: number;
  headers?: Record<string, string>;
  /** A plain answer's bytes. */
  body?: string;
  /** A streamed answer's bytes, and its format. */
  stream?: { text: string; format: StreamFormat };
}

/**
 * An exchange as the recorder writes one from these bytes: the body encoded exactly (its layout
 * and sha256), the stream split into frames, each line of it arriving 5 ms after the one before.
 */
export function recordedExchange(bytes: RecordedBytes): Exchange {
  const requestText = JSON.stringify(bytes.request);
  const contentType =
    bytes.stream === undefined ? 'application/json' : bytes.stream.format === 'sse' ? 'text/event-stream; charset=utf-8' : 'application/x-ndjson';
  const response: RecordedResponse = { status: bytes.status ?? 200, headers: { 'content-type': contentType, ...bytes.headers } };
  if (bytes.body !== undefined) response.body = encodeBody(Buffer.from(bytes.body), contentType, { exact: true })!;
  if (bytes.stream !== undefined) {
    const splitter = new FrameSplitter(bytes.stream.format);
    const lines = bytes.stream.text.split(/(?<=\n)/);
    lines.forEach((line, index) => splitter.push(Buffer.from(line), index * 5));
    response.stream = { format: bytes.stream.format, frames: splitter.finish(lines.length * 5) };
  }
  return {
    key: sha256Hex(`POST ${bytes.path} ${requestText}`),
    ordinal: 0,
    upstream: bytes.upstream,
    source: 'live',
    request: {
      method: 'POST',
      path: bytes.path,
      query: [],
      headers: { 'content-type': 'application/json' },
      body: { json: bytes.request },
      bodySha256: sha256Hex(requestText),
    },
    response,
  };
}
