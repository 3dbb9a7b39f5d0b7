import { bodyFamilyOf, invokeFamilyOf, readInvokeRequest, refuseInvokeRequest, type AskedTurn } from '../../providers/internal.js';
import { contentBlocks as messagesBlocks, outputTokens, stopReason as messagesStopReason, streamBlocks } from '../anthropic-messages/messages-surface.js';
import { refuseForeignThinking } from '../anthropic-messages/thinking.js';
import type { Answer } from '../answer.js';
import { chunkMessage, chunkMessageOfJson, eventStreamResponse } from '../bedrock-event-stream.js';
import { contentBlocks as converseBlocks, LATENCY_MS, stopReasonOf as converseStopReason } from '../bedrock-converse/converse-surface.js';
import { cutArguments } from '../chunking.js';
import { errorResponse } from '../provider-errors.js';
import { scriptedPiecesJson } from '../scripted-json.js';
import { answerText, argumentsJson, fakeModel, refusalResponse, type RenderContext, type StreamFailure, type Surface } from '../surface.js';
import { countTokens } from '../usage.js';
import { jsonResponse, type WireResponse } from '../wire-response.js';

/**
 * Bedrock Runtime's InvokeModel: `POST /model/{modelId}/invoke` answers the model's own JSON,
 * `…/invoke-with-response-stream` an AWS event stream of `chunk` messages, each carrying one of
 * the model's own stream events, JSON in base64, under `bytes`. Two model families are answered,
 * by the model the path names (else the body's shape): Anthropic Claude, whose body and answer are
 * Anthropic Messages' (Bedrock's subset: no `ping`, `amazon-bedrock-invocationMetrics` on
 * `message_stop`), and Amazon Nova, whose body and answer are Converse's shape (its stream's chunks
 * Converse's events, each under its type's key). The shapes follow the captures in
 * test/fixtures/bedrock/.
 */
export const bedrockInvokeSurface: Surface = {
  provider: 'bedrock',
  api: 'bedrock-invoke',

  refuse(body, options, context, route) {
    const model = route?.model;
    if (invokeFamilyOf(model, body) === undefined)
      return errorResponse(
        'bedrock',
        {
          status: 400,
          type: 'ValidationException',
          message:
            `Malformed input request: the modeltape FakeProvider answers InvokeModel for Anthropic Claude bodies (with anthropic_version) and Amazon Nova bodies (with messages) only, and model ${model ?? '(none)'} was sent neither. ` +
            'Ask through Converse (/converse), which the FakeProvider answers for any model, or replay a recording of this model with FakeProvider.fromTape.',
        },
        context,
      );
    return refusalResponse('bedrock', refuseInvokeRequest(body, options, model) ?? refuseForeignThinking(body), context);
  },
  ask: readInvokeRequest,

  respond(turn, answer, context, failure) {
    return bodyFamilyOf(turn.body) === 'anthropic-claude' ? respondAsClaude(turn, answer, context, failure) : respondAsNova(turn, answer, context, failure);
  },
};

// --- Anthropic Claude ----------------------------------------------------------------------------

/**
 * The model name a Claude answer carries: Bedrock's model id without its region prefix, vendor and
 * version (`us.anthropic.claude-3-5-haiku-20241022-v1:0` answers `claude-3-5-haiku-20241022`, as
 * the captures show), marked fake.
 */
function claudeModel(modelId: string): string {
  const name = modelId
    .split('/')
    .at(-1)!
    .replace(/^([a-z]+\.)?anthropic\./, '')
    .replace(/-v\d+(:\d+)?$/, '');
  return fakeModel(name);
}

/** Claude's usage on Bedrock: the counts, and the cache's (the fake caches nothing). */
function claudeUsage(inputTokens: number, outputTokens: number): Record<string, unknown> {
  return {
    input_tokens: inputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    output_tokens: outputTokens,
  };
}

/** The counts Bedrock puts in the headers of an InvokeModel answer. */
function invocationHeaders(inputTokens: number, outputTokens: number, nova: boolean): Record<string, string> {
  return {
    'x-amzn-bedrock-invocation-latency': String(LATENCY_MS),
    ...(nova ? { 'x-amzn-bedrock-cache-write-input-token-count': '0', 'x-amzn-bedrock-cache-read-input-token-count': '0' } : {}),
    'x-amzn-bedrock-output-token-count': String(outputTokens),
    'x-amzn-bedrock-input-token-count': String(inputTokens),
  };
}

/** What the last chunk of a stream carries: Bedrock's own counts of the invocation. */
function invocationMetrics(inputTokens: number, outputTokens: number, nova: boolean): Record<string, number> {
  return {
    inputTokenCount: inputTokens,
    outputTokenCount: outputTokens,
    invocationLatency: LATENCY_MS,
    firstByteLatency: LATENCY_MS,
    ...(nova ? { cacheReadInputTokenCount: 0, cacheWriteInputTokenCount: 0 } : {}),
  };
}

const STREAM_HEADERS = { 'x-amzn-bedrock-content-type': 'application/json' };

function respondAsClaude(turn: AskedTurn, answer: Answer, context: RenderContext, failure: StreamFailure | undefined): WireResponse {
  const blocks = messagesBlocks(turn, answer, context);
  const output = outputTokens(blocks, answer);
  const message = {
    id: context.newId('msg'),
    type: 'message',
    role: 'assistant',
    model: claudeModel(turn.model),
    content: blocks,
    stop_reason: messagesStopReason(blocks, context),
    stop_sequence: context.finish?.stopSequence ?? null,
    usage: claudeUsage(context.promptTokens, output),
  };
  if (!turn.stream) return jsonResponse(200, message, { ...context.headers, ...invocationHeaders(context.promptTokens, output, false) });
  // Anthropic's stream events, each in a chunk: no ping, and Bedrock's metrics on message_stop. The
  // text deltas, most of the events, are written as JSON text around each piece's.
  const frames: Uint8Array[] = [];
  const emit = (type: string, fields: Record<string, unknown> = {}): void => void frames.push(chunkMessage({ type, ...fields }));
  emit('message_start', { message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: claudeUsage(context.promptTokens, 1) } });
  const textDelta = (index: number, text: string): void =>
    void frames.push(chunkMessageOfJson(`{"type":"content_block_delta","index":${index},"delta":{"type":"text_delta","text":${JSON.stringify(text)}}}`));
  streamBlocks(blocks, context, emit, { ping: false, textDelta });
  emit('message_delta', { delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence }, usage: { output_tokens: output } });
  emit('message_stop', { 'amazon-bedrock-invocationMetrics': invocationMetrics(context.promptTokens, output, false) });
  return eventStreamResponse(frames, { ...context.headers, ...STREAM_HEADERS }, failure);
}

// --- Amazon Nova ---------------------------------------------------------------------------------

const NOVA_MESSAGE_START = JSON.stringify({ messageStart: { role: 'assistant' } });

function respondAsNova(turn: AskedTurn, answer: Answer, context: RenderContext, failure: StreamFailure | undefined): WireResponse {
  const blocks = converseBlocks(answer, context);
  const stopReason = converseStopReason(blocks, context);
  const input = context.promptTokens;
  const output = countTokens(answerText(answer));
  const cache = { cacheReadInputTokenCount: 0, cacheWriteInputTokenCount: 0 };
  if (!turn.stream) {
    const body = {
      output: { message: { role: 'assistant', content: blocks } },
      stopReason,
      usage: { inputTokens: input, outputTokens: output, totalTokens: input + output, ...cache },
    };
    return jsonResponse(200, body, { ...context.headers, ...invocationHeaders(input, output, true) });
  }
  // Converse's events, each under its type's key in a chunk. Nova streams each piece of text as a
  // block of its own, a delta then its stop (as the capture in test/fixtures/bedrock shows); a
  // tool use starts with its id and name, then its input as JSON text in pieces.
  // The text's events are written as JSON text around each piece's, which is encoded once (scripted-json.ts).
  const frames: Uint8Array[] = [chunkMessageOfJson(NOVA_MESSAGE_START)];
  let contentBlockIndex = 0;
  for (const block of blocks) {
    if (typeof block.text === 'string') {
      for (const text of scriptedPiecesJson(block.text, context.chunking)) {
        frames.push(chunkMessageOfJson(`{"contentBlockDelta":{"delta":{"text":${text}},"contentBlockIndex":${contentBlockIndex}}}`));
        frames.push(chunkMessageOfJson(`{"contentBlockStop":{"contentBlockIndex":${contentBlockIndex}}}`));
        contentBlockIndex++;
      }
      continue;
    }
    const use = block.toolUse as Record<string, unknown>;
    frames.push(chunkMessage({ contentBlockStart: { start: { toolUse: { toolUseId: use.toolUseId, name: use.name } }, contentBlockIndex } }));
    for (const input of cutArguments(argumentsJson(use.input), context.chunking))
      frames.push(chunkMessage({ contentBlockDelta: { delta: { toolUse: { input } }, contentBlockIndex } }));
    frames.push(chunkMessage({ contentBlockStop: { contentBlockIndex } }));
    contentBlockIndex++;
  }
  frames.push(chunkMessage({ messageStop: { stopReason } }));
  frames.push(
    chunkMessage({
      metadata: { usage: { inputTokens: input, outputTokens: output, ...cache }, metrics: {}, trace: {} },
      'amazon-bedrock-invocationMetrics': invocationMetrics(input, output, true),
    }),
  );
  return eventStreamResponse(frames, { ...context.headers, ...STREAM_HEADERS }, failure);
}
