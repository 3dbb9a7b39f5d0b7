// Bedrock Converse: `output.message.content` blocks (`{text}`, `{toolUse: {toolUseId, name,
// input}}` with `input` an object) and `stopReason`; streamed (ConverseStream, an AWS event
// stream) as messageStart, each block's contentBlockStart? / contentBlockDelta* /
// contentBlockStop (a tool use's `input` as JSON text in pieces), messageStop (the stop reason),
// metadata (usage). Amazon Nova's InvokeModel answers the same shapes (its stream's chunks carry
// these events, each under its type's key), so the invoke route edits Nova here too. Converse's
// words are `max_tokens` and `content_filtered`; it has no refusal of its own, so there is no
// refusal mutation. A stream breaks off with an exception message, not an error event.
import { isRecord, parseJson } from '../../core/internal.js';
import { converseEventOfChunk, type ConverseStreamEvent } from '../../providers/internal.js';
import type { RecordedResponse } from '../../recordings/internal.js';
import type { AnswerEditor, Change, ToolCall } from './answer-editor.js';
import { bedrockStreamErrorFrame } from './failures.js';
import { copyJson, renderLike, withBody, type JsonAnswer } from './json-text.js';
import { erroredAfter, truncatedBefore } from './stream-cuts.js';
import { StreamDraft, withFrames, type StreamEvent } from './stream-frames.js';
import { spreadText } from './text-edits.js';

type Json = Record<string, unknown>;

/** The editor of a Converse body (or a Nova InvokeModel body); undefined when it has no `output.message.content` array. */
export function converseBodyEditor(response: RecordedResponse, answer: JsonAnswer): AnswerEditor | undefined {
  const contentOf = (json: unknown): Json[] | undefined =>
    isRecord(json) && isRecord(json.output) && isRecord(json.output.message) && Array.isArray(json.output.message.content)
      ? (json.output.message.content as Json[])
      : undefined;
  const recorded = contentOf(answer.json);
  if (recorded === undefined) return undefined;
  const textAt = recorded.map((block, index) => (isRecord(block) && typeof block.text === 'string' ? index : -1)).filter((index) => index >= 0);
  const toolAt = recorded.map((block, index) => (isRecord(block) && isRecord(block.toolUse) ? index : -1)).filter((index) => index >= 0);
  const before = String((answer.json as Json).stopReason);
  const stop = (reason: string): Change => {
    const json = copyJson(answer.json) as Json;
    json.stopReason = reason;
    return { response: withBody(response, answer.write(json)), before: `stopReason ${before}`, after: `stopReason ${reason}` };
  };
  return {
    provider: 'bedrock',
    texts: textAt.map((index) => recorded[index]!.text as string),
    withTexts(texts) {
      const json = copyJson(answer.json);
      const content = contentOf(json)!;
      textAt.forEach((index, position) => (content[index]!.text = texts[position]));
      return withBody(response, answer.write(json));
    },
    calls: toolAt.map((index) => {
      const toolUse = recorded[index]!.toolUse as Json;
      return {
        id: typeof toolUse.toolUseId === 'string' ? toolUse.toolUseId : undefined,
        name: String(toolUse.name),
        args: toolUse.input ?? {},
        argsText: undefined,
      };
    }),
    withCalls(calls) {
      const json = copyJson(answer.json) as Json;
      const content = contentOf(json)!;
      toolAt.forEach((index, position) => {
        const call = calls[position];
        if (call === undefined) return;
        const toolUse = content[index]!.toolUse as Json;
        toolUse.name = call.name;
        toolUse.input = call.args;
        if (call.id !== undefined) toolUse.toolUseId = call.id;
      });
      const removed = new Set(toolAt.slice(calls.length));
      (json.output as { message: Json }).message.content = content.filter((_, index) => !removed.has(index));
      if (calls.length === 0 && json.stopReason === 'tool_use') json.stopReason = 'end_turn';
      return withBody(response, answer.write(json));
    },
    finishLength: () => stop('max_tokens'),
    finishContentFilter: () => stop('content_filtered'),
  };
}

/** How a stream's events carry Converse's: each message itself (ConverseStream), or under its type's key in a chunk (Nova's InvokeModelWithResponseStream). */
export type ConverseCarrier = 'message' | 'chunk';

/** The editor of a ConverseStream, or of Nova's InvokeModelWithResponseStream; undefined when it carries no messageStart. */
export function converseStreamEditor(response: RecordedResponse, events: StreamEvent[], carrier: ConverseCarrier): AnswerEditor | undefined {
  const read = (event: StreamEvent): ConverseStreamEvent | undefined => {
    if (carrier === 'chunk') return converseEventOfChunk(event.json);
    return 'exception' in event && !event.exception ? { type: event.event, payload: event.json } : undefined;
  };
  const converse = events.map(read);
  if (!converse.some((event) => event?.type === 'messageStart')) return undefined;
  const kind = (index: number): string | undefined => converse[index]?.type;
  const payload = (index: number): Json => converse[index]!.payload as Json;
  // The payload of event `index` in the draft: the message's JSON, or the chunk's member.
  const edit = (draft: StreamDraft, index: number): Json => {
    const json = draft.json(index);
    return carrier === 'chunk' ? (json[kind(index)!] as Json) : json;
  };
  const delta = (index: number): Json | undefined => {
    const value = payload(index).delta;
    return isRecord(value) ? value : undefined;
  };
  const textAt = converse
    .map((_, index) => (kind(index) === 'contentBlockDelta' && typeof delta(index)?.text === 'string' ? index : -1))
    .filter((index) => index >= 0);
  const slots = toolSlots(converse);
  const stopAt = converse.findIndex((event) => event?.type === 'messageStop');
  const end = stopAt >= 0 ? stopAt : events.length;
  const stop = (reason: string): Change | undefined => {
    if (stopAt < 0) return undefined;
    const draft = new StreamDraft(events);
    const changed = edit(draft, stopAt);
    const before = String(changed.stopReason);
    changed.stopReason = reason;
    return { response: withFrames(response, draft.frames()), before: `stopReason ${before}`, after: `stopReason ${reason}` };
  };
  return {
    provider: 'bedrock',
    texts: textAt.map((index) => String(delta(index)!.text)),
    withTexts(texts) {
      const draft = new StreamDraft(events);
      textAt.forEach((index, position) => ((edit(draft, index).delta as Json).text = texts[position]));
      return withFrames(response, draft.frames());
    },
    calls: slots.map((slot) => slot.call),
    withCalls(calls) {
      const draft = new StreamDraft(events);
      slots.forEach((slot, position) => {
        const call = calls[position];
        if (call === undefined) return;
        if (slot.start !== undefined) {
          const toolUse = (edit(draft, slot.start).start as Json).toolUse as Json;
          toolUse.name = call.name;
          if (call.id !== undefined) toolUse.toolUseId = call.id;
        }
        if (JSON.stringify(call.args) === JSON.stringify(slot.call.args) || slot.pieces.length === 0) return;
        const pieces = spreadText(
          slot.pieces.map((index) => String((delta(index)!.toolUse as Json).input)),
          renderLike(slot.text || '{}', call.args),
        );
        slot.pieces.forEach((index, piece) => (((edit(draft, index).delta as Json).toolUse as Json).input = pieces[piece]));
      });
      // The calls past the end go, with their blocks; the blocks after them take their indexes.
      const removed = slots.slice(calls.length).map((slot) => slot.block);
      converse.forEach((event, index) => {
        if (event === undefined || !isRecord(event.payload) || typeof event.payload.contentBlockIndex !== 'number') return;
        const block = event.payload.contentBlockIndex;
        if (removed.includes(block)) draft.drop(index);
        else {
          const shift = removed.filter((gone) => gone < block).length;
          if (shift > 0) edit(draft, index).contentBlockIndex = block - shift;
        }
      });
      if (calls.length === 0 && stopAt >= 0 && payload(stopAt).stopReason === 'tool_use') edit(draft, stopAt).stopReason = 'end_turn';
      return withFrames(response, draft.frames());
    },
    finishLength: () => stop('max_tokens'),
    finishContentFilter: () => stop('content_filtered'),
    truncated: () => truncatedBefore(response, events, end),
    streamError: () => erroredAfter(response, events, end, (_kept, atMs) => [bedrockStreamErrorFrame(atMs)]),
  };
}

interface ToolSlot {
  block: number;
  /** The contentBlockStart event (which names the tool), and the deltas carrying its input. */
  start: number | undefined;
  pieces: number[];
  text: string;
  call: ToolCall;
}

function toolSlots(events: ReadonlyArray<ConverseStreamEvent | undefined>): ToolSlot[] {
  const slots: ToolSlot[] = [];
  events.forEach((event, index) => {
    if (event === undefined || !isRecord(event.payload)) return;
    const { payload } = event;
    const block = payload.contentBlockIndex;
    if (event.type === 'contentBlockStart' && isRecord(payload.start) && isRecord(payload.start.toolUse)) {
      const toolUse = payload.start.toolUse;
      slots.push({
        block: Number(block),
        start: index,
        pieces: [],
        text: '',
        call: { id: typeof toolUse.toolUseId === 'string' ? toolUse.toolUseId : undefined, name: String(toolUse.name), args: {}, argsText: undefined },
      });
      return;
    }
    const slot = slots.find((candidate) => candidate.block === block);
    if (slot !== undefined && event.type === 'contentBlockDelta' && isRecord(payload.delta) && isRecord(payload.delta.toolUse)) {
      const input = payload.delta.toolUse.input;
      if (typeof input !== 'string') return;
      slot.pieces.push(index);
      slot.text += input;
    }
  });
  for (const slot of slots) slot.call.args = slot.text === '' ? {} : parseJson(slot.text);
  return slots;
}
