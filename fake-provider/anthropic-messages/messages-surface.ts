import { readMessagesRequest, refuseMessagesRequest, type AskedTurn } from '../../providers/internal.js';
import type { Answer } from '../answer.js';
import { cutArguments, cutIntoChunks } from '../chunking.js';
import { errorResponse } from '../provider-errors.js';
import { answerText, argumentsJson, fakeModel, refusalResponse, type RenderContext, type StreamFailure, type Surface } from '../surface.js';
import { countTokens } from '../usage.js';
import { eventFrame, jsonResponse, sseResponse, type WireResponse } from '../wire-response.js';
import { refuseForeignThinking, thinkingBlock, thinkingText } from './thinking.js';

type Block = Record<string, unknown>;

/** Anthropic Messages: `POST /v1/messages` (and `/messages`, as @ai-sdk/anthropic builds it). */
export const anthropicMessagesSurface: Surface = {
  provider: 'anthropic',
  api: 'anthropic-messages',

  resolve(body, headers, context) {
    const resolved = context.threads.resolve(body, headers);
    return 'error' in resolved ? { error: errorResponse('anthropic', resolved.error, context) } : resolved;
  },
  refuse: (body, options, context) => refusalResponse('anthropic', refuseMessagesRequest(body, options) ?? refuseForeignThinking(body), context),
  ask: readMessagesRequest,

  respond(turn, answer, context, failure) {
    const blocks = contentBlocks(turn, answer, context);
    const whole = message(turn, answer, context, blocks);
    // A thread keeps a reply only once it is whole: a broken stream leaves the thread where it was.
    if (failure === undefined) context.threads.remember(String(whole.id), turn.body, blocks);
    return turn.stream ? streamMessage(whole, blocks, answer, context, failure) : jsonResponse(200, whole, context.headers);
  },
};

/** An answer's content blocks: its thinking (when asked for), its text, its tool uses. */
export function contentBlocks(turn: AskedTurn, answer: Answer, context: RenderContext): Block[] {
  const blocks: Block[] = [];
  const thinking = thinkingBlock(turn, answer);
  if (thinking !== undefined) blocks.push(thinking);
  const text = answer.kind === 'text' ? answer.text : answer.kind === 'structured' ? JSON.stringify(answer.value) : answer.text;
  // No `citations` key, as the real API sends a text block without citations: the spec marks it
  // required (nullable), but @ai-sdk/anthropic rejects `citations: null`.
  if (text !== undefined) blocks.push({ type: 'text', text });
  if (answer.kind === 'tool-calls') {
    for (const call of answer.calls)
      blocks.push({ type: 'tool_use', id: call.id ?? context.newId('toolu'), name: call.name, input: call.arguments ?? {}, caller: { type: 'direct' } });
  }
  return blocks;
}

function usage(inputTokens: number, outputTokens: number): Record<string, unknown> {
  return {
    input_tokens: inputTokens,
    output_tokens: outputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    server_tool_use: null,
    service_tier: 'standard',
    inference_geo: null,
  };
}

function message(turn: AskedTurn, answer: Answer, context: RenderContext, blocks: Block[]): Record<string, unknown> {
  return {
    id: context.newId('msg'),
    type: 'message',
    role: 'assistant',
    model: fakeModel(turn.model),
    content: blocks,
    stop_reason: stopReason(blocks, context),
    stop_sequence: context.finish?.stopSequence ?? null,
    stop_details: context.finish?.reason === 'refusal' ? { type: 'refusal', category: null, explanation: null } : null,
    container: null,
    usage: usage(context.promptTokens, outputTokens(blocks, answer)),
  };
}

/** The scripted finish in Anthropic's words, else how the answer ends. */
export function stopReason(blocks: readonly Block[], context: RenderContext): string {
  const reason = context.finish?.reason;
  if (reason === 'length') return 'max_tokens';
  if (reason === 'refusal') return 'refusal';
  if (reason === 'stop-sequence') return 'stop_sequence';
  if (reason === 'pause-turn') return 'pause_turn';
  return blocks.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
}

/** Output tokens: the answer's, and its thinking's (which Anthropic bills as output). */
export function outputTokens(blocks: Block[], answer: Answer): number {
  return countTokens(`${thinkingText(blocks.find((block) => block.type === 'thinking' || block.type === 'redacted_thinking'))}${answerText(answer)}`);
}

// message_start, then per block content_block_start → deltas → content_block_stop (a ping after
// the first start, as Anthropic sends one), message_delta with the stop reason, message_stop.
function streamMessage(
  whole: Record<string, unknown>,
  blocks: Block[],
  answer: Answer,
  context: RenderContext,
  failure: StreamFailure | undefined,
): WireResponse {
  const frames: string[] = [];
  const emit = (type: string, fields: Record<string, unknown> = {}): void => {
    frames.push(eventFrame(type, { type, ...fields }));
  };
  emit('message_start', {
    message: { ...whole, content: [], stop_reason: null, stop_sequence: null, stop_details: null, usage: usage(context.promptTokens, 1) },
  });
  streamBlocks(blocks, context, emit, { ping: true });
  emit('message_delta', {
    delta: { stop_reason: whole.stop_reason, stop_sequence: whole.stop_sequence, stop_details: whole.stop_details, container: null },
    // output_tokens is cumulative; the SDK takes input and cache counts from here when present.
    usage: {
      output_tokens: outputTokens(blocks, answer),
      input_tokens: context.promptTokens,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      server_tool_use: null,
    },
  });
  emit('message_stop');
  if (failure?.kind === 'stream-error') {
    const kept = frames.slice(0, Math.min(failure.afterChunks, frames.length));
    kept.push(
      eventFrame('error', {
        type: 'error',
        error: { type: 'overloaded_error', message: failure.message ?? 'Overloaded (modeltape FakeProvider)' },
        request_id: context.requestId,
      }),
    );
    return sseResponse(kept, context.headers);
  }
  if (failure?.kind === 'drop-connection')
    return { ...sseResponse(frames, context.headers), cut: { kind: 'drop', afterFrames: Math.min(failure.afterChunks, frames.length - 1) } };
  return sseResponse(frames, context.headers);
}

/**
 * Each content block as Anthropic streams it: `content_block_start`, its deltas,
 * `content_block_stop`; with `ping`, a ping after the first start, as Anthropic's API sends one
 * (Bedrock sends none). With `textDelta`, each piece of a text block goes to it instead of to
 * `emit` as `content_block_delta` `{ index, delta: { type: 'text_delta', text } }` (Bedrock
 * writes those, most of a stream's events, as JSON text around the piece's).
 */
export function streamBlocks(
  blocks: readonly Block[],
  context: RenderContext,
  emit: (type: string, fields?: Record<string, unknown>) => void,
  options: { ping: boolean; textDelta?: (index: number, text: string) => void },
): void {
  const ping = (index: number): void => {
    if (index === 0 && options.ping) emit('ping');
  };
  for (const [index, block] of blocks.entries()) {
    if (block.type === 'thinking') {
      // As Anthropic streams it: an empty block, the text in thinking_deltas, the signature in one signature_delta.
      emit('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      ping(index);
      if (block.thinking !== '')
        for (const thinking of cutIntoChunks(String(block.thinking), context.chunking))
          emit('content_block_delta', { index, delta: { type: 'thinking_delta', thinking } });
      emit('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } });
    } else if (block.type === 'redacted_thinking') {
      // A redacted block comes whole in its content_block_start, with no deltas.
      emit('content_block_start', { index, content_block: block });
      ping(index);
    } else if (block.type === 'text') {
      emit('content_block_start', { index, content_block: { type: 'text', text: '' } });
      ping(index);
      for (const text of cutIntoChunks(String(block.text), context.chunking))
        if (options.textDelta === undefined) emit('content_block_delta', { index, delta: { type: 'text_delta', text } });
        else options.textDelta(index, text);
    } else {
      emit('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {}, caller: { type: 'direct' } } });
      ping(index);
      emit('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } });
      for (const partial_json of cutArguments(argumentsJson(block.input), context.chunking))
        emit('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
    }
    emit('content_block_stop', { index });
  }
}
