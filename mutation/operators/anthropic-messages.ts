// Anthropic Messages: `content` blocks (text, tool_use with `input` as an object) and
// `stop_reason`; streamed as message_start, content_block_start/delta/stop per block (indexes 0,
// 1, … in turn), message_delta (the stop reason), message_stop. Anthropic has no words for a
// content filter but its `refusal` stop reason: the content-filter mutation stops there with the
// content kept, the refusal one with no content, as a real refusal comes.
import { isRecord, parseJson } from '../../core/internal.js';
import type { RecordedResponse } from '../../recordings/internal.js';
import type { AnswerEditor, Change, ToolCall } from './answer-editor.js';
import { streamErrorBody } from './failures.js';
import { copyJson, renderLike, withBody, type JsonAnswer } from './json-text.js';
import { erroredAfter, truncatedBefore } from './stream-cuts.js';
import { frameLike, StreamDraft, withFrames, type StreamEvent } from './stream-frames.js';
import { spreadText } from './text-edits.js';

type Json = Record<string, unknown>;

/** The editor of a plain Messages answer; undefined when it has no `content` array. */
export function anthropicBodyEditor(response: RecordedResponse, answer: JsonAnswer): AnswerEditor | undefined {
  if (!isRecord(answer.json) || !Array.isArray(answer.json.content)) return undefined;
  const blocks = answer.json.content.filter(isRecord);
  const textAt = blocks.map((block, index) => (block.type === 'text' && typeof block.text === 'string' ? index : -1)).filter((index) => index >= 0);
  const toolAt = blocks.map((block, index) => (block.type === 'tool_use' ? index : -1)).filter((index) => index >= 0);
  const before = String(answer.json.stop_reason);
  const stop = (reason: string, emptied: boolean): Change => {
    const json = copyJson(answer.json) as Json;
    json.stop_reason = reason;
    if (emptied) json.content = [];
    return {
      response: withBody(response, answer.write(json)),
      before: `stop_reason ${before}`,
      after: `stop_reason ${reason}${emptied ? ', content []' : ''}`,
    };
  };
  return {
    provider: 'anthropic',
    texts: textAt.map((index) => blocks[index]!.text as string),
    withTexts(texts) {
      const json = copyJson(answer.json) as Json;
      const content = (json.content as Json[]).filter(isRecord);
      textAt.forEach((index, position) => (content[index]!.text = texts[position]));
      return withBody(response, answer.write(json));
    },
    calls: toolAt.map((index) => ({ id: String(blocks[index]!.id), name: String(blocks[index]!.name), args: blocks[index]!.input ?? {}, argsText: undefined })),
    withCalls(calls) {
      const json = copyJson(answer.json) as Json;
      const content = (json.content as Json[]).filter(isRecord);
      toolAt.forEach((index, position) => {
        const call = calls[position];
        if (call !== undefined) Object.assign(content[index]!, { id: call.id, name: call.name, input: call.args });
      });
      const removed = new Set(toolAt.slice(calls.length));
      json.content = content.filter((_, index) => !removed.has(index));
      if (calls.length === 0 && json.stop_reason === 'tool_use') json.stop_reason = 'end_turn';
      return withBody(response, answer.write(json));
    },
    finishLength: () => stop('max_tokens', false),
    finishContentFilter: () => stop('refusal', false),
    refusal: () => stop('refusal', true),
  };
}

/** The editor of a streamed Messages answer; undefined when it does not start with message_start. */
export function anthropicStreamEditor(response: RecordedResponse, events: StreamEvent[]): AnswerEditor | undefined {
  const type = (event: StreamEvent): unknown => (isRecord(event.json) ? event.json.type : undefined);
  if (!events.some((event) => type(event) === 'message_start')) return undefined;
  const delta = (json: unknown): Json | undefined => (isRecord(json) && isRecord(json.delta) ? json.delta : undefined);
  const textAt = events
    .map((event, index) => (type(event) === 'content_block_delta' && delta(event.json)?.type === 'text_delta' ? index : -1))
    .filter((index) => index >= 0);
  const slots = toolSlots(events);
  const messageDeltaAt = events.findIndex((event) => type(event) === 'message_delta');
  const stopAt = events.findIndex((event) => type(event) === 'message_stop');
  const end = messageDeltaAt >= 0 ? messageDeltaAt : stopAt >= 0 ? stopAt : events.length;
  const stop = (reason: string, emptied: boolean): Change | undefined => {
    if (messageDeltaAt < 0) return undefined;
    const draft = new StreamDraft(events);
    const changed = delta(draft.json(messageDeltaAt))!;
    const before = String(changed.stop_reason);
    changed.stop_reason = reason;
    if (emptied) events.forEach((event, index) => String(type(event)).startsWith('content_block_') && draft.drop(index));
    return {
      response: withFrames(response, draft.frames()),
      before: `stop_reason ${before}`,
      after: `stop_reason ${reason}${emptied ? ', no content blocks' : ''}`,
    };
  };
  return {
    provider: 'anthropic',
    texts: textAt.map((index) => String(delta(events[index]!.json)!.text)),
    withTexts(texts) {
      const draft = new StreamDraft(events);
      textAt.forEach((index, position) => (delta(draft.json(index))!.text = texts[position]));
      return withFrames(response, draft.frames());
    },
    calls: slots.map((slot) => slot.call),
    withCalls(calls) {
      const draft = new StreamDraft(events);
      slots.forEach((slot, position) => {
        const call = calls[position];
        if (call === undefined) return;
        const block = draft.json(slot.start).content_block as Json;
        block.id = call.id;
        block.name = call.name;
        if (JSON.stringify(call.args) === JSON.stringify(slot.call.args)) return;
        const pieces = spreadText(
          slot.pieces.map((index) => String(delta(events[index]!.json)!.partial_json)),
          renderLike(slot.text || '{}', call.args),
        );
        if (slot.pieces.length === 0) return;
        slot.pieces.forEach((index, piece) => (delta(draft.json(index))!.partial_json = pieces[piece]));
      });
      // The calls past the end go, with their blocks; the blocks after them take their indexes.
      const removed = slots.slice(calls.length).map((slot) => slot.block);
      events.forEach((event, index) => {
        if (!isRecord(event.json) || typeof event.json.index !== 'number') return;
        const block = event.json.index;
        if (removed.includes(block)) draft.drop(index);
        else {
          const shift = removed.filter((gone) => gone < block).length;
          if (shift > 0) draft.json(index).index = block - shift;
        }
      });
      if (calls.length === 0 && messageDeltaAt >= 0 && delta(events[messageDeltaAt]!.json)?.stop_reason === 'tool_use')
        delta(draft.json(messageDeltaAt))!.stop_reason = 'end_turn';
      return withFrames(response, draft.frames());
    },
    finishLength: () => stop('max_tokens', false),
    finishContentFilter: () => stop('refusal', false),
    refusal: () => stop('refusal', true),
    truncated: () => truncatedBefore(response, events, end),
    streamError: () => erroredAfter(response, events, end, (_kept, atMs) => [frameLike(events[0]!, 'sse', streamErrorBody('anthropic'), 'error', atMs)]),
  };
}

interface ToolSlot {
  block: number;
  /** The content_block_start event, and the input_json_delta events. */
  start: number;
  pieces: number[];
  text: string;
  call: ToolCall;
}

function toolSlots(events: readonly StreamEvent[]): ToolSlot[] {
  const slots: ToolSlot[] = [];
  events.forEach((event, index) => {
    const json = event.json;
    if (!isRecord(json)) return;
    if (json.type === 'content_block_start' && isRecord(json.content_block) && json.content_block.type === 'tool_use') {
      const block = json.content_block;
      slots.push({
        block: Number(json.index),
        start: index,
        pieces: [],
        text: '',
        call: { id: String(block.id), name: String(block.name), args: {}, argsText: undefined },
      });
      return;
    }
    const slot = slots.find((candidate) => candidate.block === json.index);
    if (slot !== undefined && json.type === 'content_block_delta' && isRecord(json.delta) && typeof json.delta.partial_json === 'string') {
      slot.pieces.push(index);
      slot.text += json.delta.partial_json;
    }
  });
  for (const slot of slots) slot.call.args = slot.text === '' ? {} : parseJson(slot.text);
  return slots;
}
