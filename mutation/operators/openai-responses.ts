// OpenAI Responses: `output` items (message items with `output_text` parts, function_call items
// with `arguments` as JSON text), `status` and `incomplete_details`; streamed as typed events with
// a rising `sequence_number`, each item opened and closed, the whole response repeated by the
// terminal event (response.completed / incomplete / failed). A changed text or call is written in
// its deltas and in every event that repeats it whole.
import { isRecord, parseJson } from '../../core/internal.js';
import type { RecordedResponse } from '../../recordings/internal.js';
import type { AnswerEditor, Change, ToolCall } from './answer-editor.js';
import { streamFailure } from './failures.js';
import { copyJson, withBody, type JsonAnswer } from './json-text.js';
import { erroredAfter, truncatedBefore } from './stream-cuts.js';
import { frameLike, StreamDraft, withFrames, type StreamEvent } from './stream-frames.js';
import { REFUSAL_TEXT, spreadText } from './text-edits.js';

type Json = Record<string, unknown>;

const TERMINAL = ['response.completed', 'response.incomplete', 'response.failed'];
const INCOMPLETE_REASONS = { length: 'max_output_tokens', contentFilter: 'content_filter' } as const;

/** The editor of a plain Responses answer; undefined when it has no `output` list. */
export function responsesBodyEditor(response: RecordedResponse, answer: JsonAnswer): AnswerEditor | undefined {
  if (!isRecord(answer.json) || !Array.isArray(answer.json.output)) return undefined;
  const items = answer.json.output.filter(isRecord);
  const textAt = textParts(items);
  const callAt = items.map((item, index) => (item.type === 'function_call' ? index : -1)).filter((index) => index >= 0);
  const draft = (): Json[] & { json: Json } => {
    const json = copyJson(answer.json) as Json;
    return Object.assign((json.output as unknown[]).filter(isRecord), { json });
  };
  const incomplete = (reason: string): Change => {
    const { json } = draft();
    const before = String(json.status);
    Object.assign(json, { status: 'incomplete', incomplete_details: { reason } });
    return { response: withBody(response, answer.write(json)), before: `status ${before}`, after: `status incomplete, incomplete_details.reason ${reason}` };
  };
  return {
    provider: 'openai',
    texts: textAt.map((at) => partOf(items, at).text as string),
    withTexts(texts) {
      const output = draft();
      textAt.forEach((at, position) => (partOf(output, at).text = texts[position]));
      return withBody(response, answer.write(output.json));
    },
    calls: callAt.map((index) => callOfItem(items[index]!)),
    withCalls(calls) {
      const output = draft();
      callAt.forEach((index, position) => {
        const call = calls[position];
        if (call !== undefined) writeCall(output[index]!, call);
      });
      const removed = new Set(callAt.slice(calls.length));
      output.json.output = output.filter((_, index) => !removed.has(index));
      return withBody(response, answer.write(output.json));
    },
    finishLength: () => incomplete(INCOMPLETE_REASONS.length),
    finishContentFilter: () => incomplete(INCOMPLETE_REASONS.contentFilter),
    refusal() {
      if (!items.some((item) => item.type === 'message')) return undefined;
      const output = draft();
      for (const item of output) if (item.type === 'message') item.content = [{ type: 'refusal', refusal: REFUSAL_TEXT }];
      output.json.output = output.filter((item) => item.type !== 'function_call');
      return { response: withBody(response, answer.write(output.json)), before: 'output_text parts', after: `a refusal part ${JSON.stringify(REFUSAL_TEXT)}` };
    },
  };
}

/** The editor of a streamed Responses answer; undefined when it does not start as one. */
export function responsesStreamEditor(response: RecordedResponse, events: StreamEvent[]): AnswerEditor | undefined {
  const typeOf = (index: number): string => String((events[index]!.json as Json | undefined)?.type);
  if (!events.some((event) => isRecord(event.json) && event.json.type === 'response.created')) return undefined;
  const json = (index: number): Json => events[index]!.json as Json;
  const terminalAt = events.findIndex((_, index) => TERMINAL.includes(typeOf(index)));
  const end = terminalAt >= 0 ? terminalAt : events.length;
  const textAt = events.map((_, index) => (typeOf(index) === 'response.output_text.delta' ? index : -1)).filter((index) => index >= 0);
  const slots = callSlots(events);

  // Writes each text's whole into the events that repeat it, from its deltas as they now are.
  const syncTexts = (draft: StreamDraft): void => {
    const wholes = new Map<string, string>();
    for (const index of textAt) {
      const delta = draft.json(index);
      const key = `${String(delta.item_id)}/${String(delta.content_index)}`;
      wholes.set(key, (wholes.get(key) ?? '') + String(delta.delta));
    }
    events.forEach((event, index) => {
      const data = event.json;
      if (!isRecord(data)) return;
      const whole = wholes.get(`${String(data.item_id)}/${String(data.content_index)}`);
      if (data.type === 'response.output_text.done' && whole !== undefined) draft.json(index).text = whole;
      else if (data.type === 'response.content_part.done' && whole !== undefined && isRecord(data.part) && typeof data.part.text === 'string') {
        (draft.json(index).part as Json).text = whole;
      } else if (data.type === 'response.output_item.done' && isRecord(data.item)) setItemTexts(() => draft.json(index).item as Json, data.item, wholes);
      else if (TERMINAL.includes(String(data.type)) && isRecord(data.response) && Array.isArray(data.response.output)) {
        data.response.output.forEach((item, position) => {
          if (isRecord(item)) setItemTexts(() => ((draft.json(index).response as Json).output as Json[])[position]!, item, wholes);
        });
      }
    });
  };
  const incomplete = (reason: string): Change | undefined => {
    if (terminalAt < 0 || typeOf(terminalAt) === 'response.failed') return undefined;
    const draft = new StreamDraft(events);
    const terminal = draft.json(terminalAt);
    const before = String(terminal.type);
    terminal.type = 'response.incomplete';
    draft.rename(terminalAt, 'response.incomplete');
    if (isRecord(terminal.response)) Object.assign(terminal.response, { status: 'incomplete', incomplete_details: { reason } });
    return { response: withFrames(response, draft.frames()), before, after: `response.incomplete, incomplete_details.reason ${reason}` };
  };
  return {
    provider: 'openai',
    texts: textAt.map((index) => String(json(index).delta)),
    withTexts(texts) {
      const draft = new StreamDraft(events);
      textAt.forEach((index, position) => (draft.json(index).delta = texts[position]));
      syncTexts(draft);
      return withFrames(response, draft.frames());
    },
    calls: slots.map((slot) => slot.call),
    withCalls(calls) {
      const draft = new StreamDraft(events);
      slots.forEach((slot, position) => {
        const call = calls[position];
        if (call === undefined) return;
        const argsText = call.argsText ?? JSON.stringify(call.args);
        const pieces = spreadText(
          slot.pieces.map((index) => String(json(index).delta)),
          argsText,
        );
        slot.pieces.forEach((index, piece) => (draft.json(index).delta = pieces[piece]));
        writeCall(draft.json(slot.added).item as Json, { ...call, argsText: undefined }, false);
        if (slot.argumentsDone !== undefined) {
          const done = draft.json(slot.argumentsDone);
          done.arguments = argsText;
          if (typeof done.name === 'string') done.name = call.name;
        }
        if (slot.itemDone !== undefined) writeCall(draft.json(slot.itemDone).item as Json, { ...call, argsText });
        if (terminalAt >= 0) {
          const output = (json(terminalAt).response as Json | undefined)?.output;
          const position = Array.isArray(output) ? output.findIndex((item) => isRecord(item) && item.id === slot.itemId) : -1;
          if (position >= 0) writeCall(((draft.json(terminalAt).response as Json).output as Json[])[position]!, { ...call, argsText });
        }
      });
      const removed = slots.slice(calls.length);
      if (removed.length > 0) removeItems(draft, removed, terminalAt);
      return withFrames(response, draft.frames());
    },
    finishLength: () => incomplete(INCOMPLETE_REASONS.length),
    finishContentFilter: () => incomplete(INCOMPLETE_REASONS.contentFilter),
    truncated: () => truncatedBefore(response, events, end),
    streamError: () =>
      erroredAfter(response, events, end, (kept, atMs) => {
        const failure = streamFailure('openai');
        const created = events.find((event) => isRecord(event.json) && event.json.type === 'response.created')!.json as Json;
        const error = { type: 'error', sequence_number: kept, error: { type: failure.type, code: failure.code, message: failure.message, param: null } };
        const failed = {
          type: 'response.failed',
          sequence_number: kept + 1,
          response: { ...(created.response as Json), status: 'failed', error: { code: failure.code, message: failure.message } },
        };
        return [frameLike(events[0]!, 'sse', error, 'error', atMs), frameLike(events[0]!, 'sse', failed, 'response.failed', atMs)];
      }),
  };
}

interface CallSlot {
  itemId: string;
  outputIndex: number;
  added: number;
  pieces: number[];
  argumentsDone: number | undefined;
  itemDone: number | undefined;
  call: ToolCall;
}

function callSlots(events: readonly StreamEvent[]): CallSlot[] {
  const slots: CallSlot[] = [];
  events.forEach((event, index) => {
    const data = event.json;
    if (!isRecord(data)) return;
    if (data.type === 'response.output_item.added' && isRecord(data.item) && data.item.type === 'function_call') {
      slots.push({
        itemId: String(data.item.id),
        outputIndex: Number(data.output_index),
        added: index,
        pieces: [],
        argumentsDone: undefined,
        itemDone: undefined,
        call: callOfItem(data.item),
      });
      return;
    }
    const slot = slots.find((candidate) => candidate.itemId === data.item_id || (isRecord(data.item) && candidate.itemId === data.item.id));
    if (slot === undefined) return;
    if (data.type === 'response.function_call_arguments.delta') slot.pieces.push(index);
    else if (data.type === 'response.function_call_arguments.done') slot.argumentsDone = index;
    else if (data.type === 'response.output_item.done' && isRecord(data.item)) {
      slot.itemDone = index;
      slot.call = callOfItem(data.item);
    }
  });
  // Without an output_item.done, the arguments are their deltas.
  for (const slot of slots) {
    if (slot.itemDone !== undefined) continue;
    const text = slot.pieces.map((index) => String((events[index]!.json as Json).delta)).join('');
    slot.call = { ...slot.call, args: parseJson(text), argsText: text };
  }
  return slots;
}

// Takes function_call items out of the stream: their events, their entry in the terminal
// response; the later items take their output indexes, every event its new sequence number.
function removeItems(draft: StreamDraft, removed: CallSlot[], terminalAt: number): void {
  const ids = new Set(removed.map((slot) => slot.itemId));
  const indexes = removed.map((slot) => slot.outputIndex);
  draft.events.forEach((event, index) => {
    const data = event.json;
    if (!isRecord(data)) return;
    if (ids.has(String(data.item_id)) || (isRecord(data.item) && ids.has(String(data.item.id)))) draft.drop(index);
  });
  if (terminalAt >= 0) {
    const response = draft.json(terminalAt).response;
    if (isRecord(response) && Array.isArray(response.output)) response.output = response.output.filter((item) => !(isRecord(item) && ids.has(String(item.id))));
  }
  draft.kept().forEach((index, position) => {
    const data = draft.events[index]!.json;
    if (!isRecord(data)) return;
    const shift = typeof data.output_index === 'number' ? indexes.filter((gone) => gone < (data.output_index as number)).length : 0;
    if (shift > 0) draft.json(index).output_index = (data.output_index as number) - shift;
    if (typeof data.sequence_number === 'number' && data.sequence_number !== position) draft.json(index).sequence_number = position;
  });
}

function textParts(items: readonly Json[]): Array<{ item: number; part: number }> {
  const found: Array<{ item: number; part: number }> = [];
  items.forEach((item, index) => {
    if (item.type !== 'message' || !Array.isArray(item.content)) return;
    item.content.forEach((part, position) => {
      if (isRecord(part) && part.type === 'output_text' && typeof part.text === 'string') found.push({ item: index, part: position });
    });
  });
  return found;
}

function partOf(items: readonly Json[], at: { item: number; part: number }): Json {
  return (items[at.item]!.content as Json[])[at.part]!;
}

function setItemTexts(target: () => Json, item: Json, wholes: ReadonlyMap<string, string>): void {
  if (!Array.isArray(item.content)) return;
  item.content.forEach((part, position) => {
    const whole = wholes.get(`${String(item.id)}/${position}`);
    if (whole !== undefined && isRecord(part) && typeof part.text === 'string') (target().content as Json[])[position]!.text = whole;
  });
}

function callOfItem(item: Json): ToolCall {
  const argsText = typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? {});
  return { id: typeof item.call_id === 'string' ? item.call_id : undefined, name: String(item.name), args: parseJson(argsText), argsText };
}

function writeCall(item: Json, call: ToolCall, withArguments = true): void {
  if (call.id !== undefined) item.call_id = call.id;
  item.name = call.name;
  if (withArguments) item.arguments = call.argsText ?? JSON.stringify(call.args);
}
