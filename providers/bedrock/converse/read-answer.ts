// Reading a Bedrock Converse answer: the body of `/converse`, or the events of `/converse-stream`
// assembled into that body. Amazon Nova's InvokeModel answer has the same shape (its body is a
// Converse body, its stream's chunks carry Converse's events, each under its type's key), so the
// invoke route reads Nova through here too.
import { excerpt, isRecord, parseJson, type Json } from '../../../core/internal.js';
import type { ModelAnswer, UnreadableAnswer } from '../../model-call.js';
import { checkArgumentsValue } from '../../tool-arguments.js';

/** The events of a ConverseStream (its `:event-type` header), in the order they come. */
export const CONVERSE_STREAM_EVENTS = ['messageStart', 'contentBlockStart', 'contentBlockDelta', 'contentBlockStop', 'messageStop', 'metadata'] as const;
export type ConverseStreamEventType = (typeof CONVERSE_STREAM_EVENTS)[number];

/** One event of a ConverseStream: its type and its payload. */
export interface ConverseStreamEvent {
  type: string | undefined;
  payload: unknown;
}

/** A Converse answer: the runtime's {@link ModelAnswer}, the model it came from, and the usage as Bedrock bills it. */
export interface ConverseAnswer extends ModelAnswer {
  /** The model the path named (`anthropic.claude-3-5-haiku-20241022-v1:0`, an inference profile, an ARN); the answer names none. */
  model: string | undefined;
  /** Input tokens read from the prompt cache and written to it (`cacheReadInputTokens`, `cacheWriteInputTokens`). */
  cache: { read: number; write: number };
  /** The answer reported its usage (a stream that broke off before its `metadata` did not). */
  usageReported: boolean;
}

/**
 * Reads a Converse body, `{output: {message: {content: [{text} | {toolUse: {toolUseId, name,
 * input}} | {reasoningContent} …]}}, stopReason, usage: {inputTokens, outputTokens,
 * cacheReadInputTokens, cacheWriteInputTokens}}`: its text blocks joined, its tool uses, its stop
 * reason (`end_turn`, `tool_use`, `max_tokens`, `stop_sequence`, `guardrail_intervened`,
 * `content_filtered`…). `model` is the model id from the path.
 */
export function readConverseAnswer(body: unknown, model?: string): ConverseAnswer | UnreadableAnswer {
  const message = isRecord(body) && isRecord(body.output) ? body.output.message : undefined;
  if (!isRecord(message) || !Array.isArray(message.content))
    return { problem: `answered without output.message.content: ${excerpt(JSON.stringify(body), 200)}` };
  const blocks = message.content.filter(isRecord);
  const texts = blocks.filter((block) => typeof block.text === 'string').map((block) => block.text as string);
  const usage = isRecord(body) && isRecord(body.usage) ? body.usage : undefined;
  return {
    model,
    text: texts.length > 0 ? texts.join('') : null,
    toolCalls: blocks
      .map((block) => block.toolUse)
      .filter(isRecord)
      .map((toolUse, index) => {
        const args = (toolUse.input ?? {}) as Json;
        const problem = typeof args === 'string' ? `the tool input is not JSON: ${excerpt(args, 80)}` : checkArgumentsValue(args);
        return {
          id: typeof toolUse.toolUseId === 'string' ? toolUse.toolUseId : `bedrock-tool-use-${index}`,
          name: String(toolUse.name),
          args,
          ...(problem === undefined ? {} : { argumentsError: problem }),
        };
      }),
    stopReason: isRecord(body) && typeof body.stopReason === 'string' ? body.stopReason : 'end_turn',
    usage: { input: count(usage?.inputTokens), output: count(usage?.outputTokens) },
    cache: { read: count(usage?.cacheReadInputTokens), write: count(usage?.cacheWriteInputTokens) },
    usageReported: usage !== undefined,
  };
}

/**
 * A ConverseStream's events assembled into the Converse body the same answer has unstreamed: the
 * text deltas of a block joined, a tool use's `input` pieces joined and parsed (kept as the text
 * when it does not parse), the `messageStop`'s stop reason, the `metadata`'s usage and metrics.
 * `exception` is the type of the exception the stream broke off with (`modelStreamErrorException`),
 * when it did.
 */
export function assembleConverseStream(events: readonly ConverseStreamEvent[]): { body: Record<string, unknown>; exception: string | undefined } {
  const blocks = new Map<number, { text?: string; toolUse?: { toolUseId: unknown; name: unknown; input: string } }>();
  const body: Record<string, unknown> = {};
  let role: unknown = 'assistant';
  let exception: string | undefined;
  const block = (index: unknown) => {
    const at = typeof index === 'number' ? index : 0;
    if (!blocks.has(at)) blocks.set(at, {});
    return blocks.get(at)!;
  };
  for (const { type, payload } of events) {
    if (!isRecord(payload)) continue;
    switch (type) {
      case 'messageStart':
        role = payload.role ?? role;
        break;
      case 'contentBlockStart': {
        const start = isRecord(payload.start) && isRecord(payload.start.toolUse) ? payload.start.toolUse : undefined;
        if (start !== undefined) block(payload.contentBlockIndex).toolUse = { toolUseId: start.toolUseId, name: start.name, input: '' };
        break;
      }
      case 'contentBlockDelta': {
        const delta = isRecord(payload.delta) ? payload.delta : {};
        const target = block(payload.contentBlockIndex);
        if (typeof delta.text === 'string') target.text = (target.text ?? '') + delta.text;
        if (isRecord(delta.toolUse) && typeof delta.toolUse.input === 'string') {
          target.toolUse ??= { toolUseId: undefined, name: undefined, input: '' };
          target.toolUse.input += delta.toolUse.input;
        }
        break;
      }
      case 'messageStop':
        if (typeof payload.stopReason === 'string') body.stopReason = payload.stopReason;
        break;
      case 'metadata':
        if (isRecord(payload.usage)) body.usage = payload.usage;
        if (isRecord(payload.metrics)) body.metrics = payload.metrics;
        break;
      default:
        // An exception message: its `:exception-type` is its type.
        if (type !== undefined && !(CONVERSE_STREAM_EVENTS as readonly string[]).includes(type)) exception ??= type;
    }
  }
  const content = [...blocks.entries()]
    .sort(([left], [right]) => left - right)
    .flatMap(([, parts]): Array<Record<string, unknown>> => {
      if (parts.toolUse !== undefined) {
        const input = parts.toolUse.input === '' ? {} : (parseJson(parts.toolUse.input) ?? parts.toolUse.input);
        return [{ toolUse: { toolUseId: parts.toolUse.toolUseId, name: parts.toolUse.name, input } }];
      }
      return parts.text === undefined ? [] : [{ text: parts.text }];
    });
  return { body: { output: { message: { role, content } }, ...body }, exception };
}

/**
 * The Converse event a Nova InvokeModelWithResponseStream chunk carries: `{"contentBlockDelta":
 * {…}}` is a `contentBlockDelta` (the chunk's other members, `amazon-bedrock-invocationMetrics`,
 * aside); undefined for a chunk that carries none.
 */
export function converseEventOfChunk(chunk: unknown): ConverseStreamEvent | undefined {
  if (!isRecord(chunk)) return undefined;
  const type = CONVERSE_STREAM_EVENTS.find((name) => isRecord(chunk[name]));
  return type === undefined ? undefined : { type, payload: chunk[type] };
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}
