import { readConverseRequest, refuseConverseRequest } from '../../providers/internal.js';
import type { Answer } from '../answer.js';
import { eventMessage, eventStreamResponse } from '../bedrock-event-stream.js';
import { cutArguments, cutIntoChunks } from '../chunking.js';
import { answerText, argumentsJson, refusalResponse, type RenderContext, type StreamFailure, type Surface } from '../surface.js';
import { countTokens } from '../usage.js';
import { jsonResponse, type WireResponse } from '../wire-response.js';

type Block = Record<string, unknown>;

/**
 * Bedrock Runtime's Converse API: `POST /model/{modelId}/converse` answers one JSON body,
 * `…/converse-stream` an AWS event stream of `messageStart`, per block `contentBlockStart` (a tool
 * use's id and name), `contentBlockDelta`s and `contentBlockStop`, then `messageStop` and
 * `metadata`, each message with the `:event-type`, `:content-type` and `:message-type` headers.
 */
export const bedrockConverseSurface: Surface = {
  provider: 'bedrock',
  api: 'bedrock-converse',

  refuse: (body, options, context) => refusalResponse('bedrock', refuseConverseRequest(body, options), context),
  ask: readConverseRequest,

  respond(turn, answer, context, failure) {
    const blocks = contentBlocks(answer, context);
    const stopReason = stopReasonOf(blocks, context);
    const usage = usageOf(context, answer);
    if (!turn.stream) {
      const body = { output: { message: { role: 'assistant', content: blocks } }, stopReason, usage, metrics: { latencyMs: LATENCY_MS } };
      return jsonResponse(200, body, context.headers);
    }
    return streamConverse(blocks, stopReason, usage, context, failure);
  },
};

/** The answer's latency: the fake answers at once, and says so as Bedrock would (never zero, as no call is free). */
export const LATENCY_MS = 1;

/** The answer's content blocks: its text (a structured value as JSON text), then each tool use. */
export function contentBlocks(answer: Answer, context: RenderContext): Block[] {
  const blocks: Block[] = [];
  const text = answer.kind === 'text' ? answer.text : answer.kind === 'structured' ? JSON.stringify(answer.value) : answer.text;
  if (text !== undefined) blocks.push({ text });
  if (answer.kind === 'tool-calls')
    for (const call of answer.calls) blocks.push({ toolUse: { toolUseId: call.id ?? context.newId('tooluse'), name: call.name, input: call.arguments ?? {} } });
  return blocks;
}

/**
 * The scripted finish in Bedrock's words (`max_tokens`, `stop_sequence`, `content_filtered`, or
 * `guardrail_intervened` when scripted so), else how the answer ends: `tool_use` or `end_turn`.
 */
export function stopReasonOf(blocks: readonly Block[], context: RenderContext): string {
  const finish = context.finish;
  if (finish?.scripted === 'guardrail_intervened') return 'guardrail_intervened';
  if (finish?.reason === 'length') return 'max_tokens';
  if (finish?.reason === 'stop-sequence') return 'stop_sequence';
  if (finish?.reason === 'content-filter') return 'content_filtered';
  return blocks.some((block) => block.toolUse !== undefined) ? 'tool_use' : 'end_turn';
}

function usageOf(context: RenderContext, answer: Answer): Record<string, number> {
  const outputTokens = countTokens(answerText(answer));
  return { inputTokens: context.promptTokens, outputTokens, totalTokens: context.promptTokens + outputTokens };
}

// Text streams as deltas with no contentBlockStart (as Bedrock streams it); a tool use starts
// with its id and name, then its input as JSON text in pieces.
function streamConverse(
  blocks: Block[],
  stopReason: string,
  usage: Record<string, number>,
  context: RenderContext,
  failure: StreamFailure | undefined,
): WireResponse {
  const frames: Uint8Array[] = [eventMessage('messageStart', { role: 'assistant' })];
  for (const [contentBlockIndex, block] of blocks.entries()) {
    if (typeof block.text === 'string') {
      for (const text of cutIntoChunks(block.text, context.chunking)) frames.push(eventMessage('contentBlockDelta', { delta: { text }, contentBlockIndex }));
    } else {
      const use = block.toolUse as Record<string, unknown>;
      frames.push(eventMessage('contentBlockStart', { start: { toolUse: { toolUseId: use.toolUseId, name: use.name } }, contentBlockIndex }));
      for (const input of cutArguments(argumentsJson(use.input), context.chunking))
        frames.push(eventMessage('contentBlockDelta', { delta: { toolUse: { input } }, contentBlockIndex }));
    }
    frames.push(eventMessage('contentBlockStop', { contentBlockIndex }));
  }
  frames.push(eventMessage('messageStop', { stopReason }));
  frames.push(eventMessage('metadata', { usage, metrics: { latencyMs: LATENCY_MS } }));
  return eventStreamResponse(frames, context.headers, failure);
}
