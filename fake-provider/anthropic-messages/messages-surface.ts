import { readMessagesRequest, refuseMessagesRequest, type AskedTurn } from '../../providers/internal.js';
import type { Answer } from '../answer.js';
import { cutArguments, cutIntoChunks } from '../chunking.js';
import { answerText, argumentsJson, fakeModel, refusalResponse, type RenderContext, type StreamFailure, type Surface } from '../surface.js';
import { countTokens } from '../usage.js';
import { eventFrame, jsonResponse, sseResponse, type WireResponse } from '../wire-response.js';

type Block = Record<string, unknown>;

/** Anthropic Messages: `POST /v1/messages` (and `/messages`, as @ai-sdk/anthropic builds it). */
export const anthropicMessagesSurface: Surface = {
  provider: 'anthropic',
  api: 'anthropic-messages',

  refuse: (body, options, context) => refusalResponse('anthropic', refuseMessagesRequest(body, options), context),
  ask: readMessagesRequest,

  respond(turn, answer, context, failure) {
    return turn.stream ? streamMessage(turn, answer, context, failure) : jsonResponse(200, message(turn, answer, context), context.headers);
  },
};

function contentBlocks(answer: Answer, context: RenderContext): Block[] {
  const blocks: Block[] = [];
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

function message(turn: AskedTurn, answer: Answer, context: RenderContext, content?: Block[]): Record<string, unknown> {
  const blocks = content ?? contentBlocks(answer, context);
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
    usage: usage(context.promptTokens, countTokens(answerText(answer))),
  };
}

/** The scripted finish in Anthropic's words, else how the answer ends. */
function stopReason(blocks: readonly Block[], context: RenderContext): string {
  const reason = context.finish?.reason;
  if (reason === 'length') return 'max_tokens';
  if (reason === 'refusal') return 'refusal';
  if (reason === 'stop-sequence') return 'stop_sequence';
  if (reason === 'pause-turn') return 'pause_turn';
  return blocks.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
}

// message_start, then per block content_block_start → deltas → content_block_stop (a ping after
// the first start, as Anthropic sends one), message_delta with the stop reason, message_stop.
function streamMessage(turn: AskedTurn, answer: Answer, context: RenderContext, failure: StreamFailure | undefined): WireResponse {
  const blocks = contentBlocks(answer, context);
  const whole = message(turn, answer, context, blocks);
  const frames: string[] = [];
  const emit = (type: string, fields: Record<string, unknown> = {}): void => {
    frames.push(eventFrame(type, { type, ...fields }));
  };
  emit('message_start', {
    message: { ...whole, content: [], stop_reason: null, stop_sequence: null, stop_details: null, usage: usage(context.promptTokens, 1) },
  });
  for (const [index, block] of blocks.entries()) {
    if (block.type === 'text') {
      emit('content_block_start', { index, content_block: { type: 'text', text: '' } });
      if (index === 0) emit('ping');
      for (const text of cutIntoChunks(String(block.text), context.chunking)) emit('content_block_delta', { index, delta: { type: 'text_delta', text } });
    } else {
      emit('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {}, caller: { type: 'direct' } } });
      if (index === 0) emit('ping');
      emit('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } });
      for (const partial_json of cutArguments(argumentsJson(block.input), context.chunking))
        emit('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
    }
    emit('content_block_stop', { index });
  }
  const outputTokens = countTokens(answerText(answer));
  emit('message_delta', {
    delta: { stop_reason: whole.stop_reason, stop_sequence: whole.stop_sequence, stop_details: whole.stop_details, container: null },
    // output_tokens is cumulative; the SDK takes input and cache counts from here when present.
    usage: {
      output_tokens: outputTokens,
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
