// OpenAI Chat Completions: `choices[0].message` (content, tool_calls with arguments as JSON text,
// refusal) and `finish_reason`; streamed as `chat.completion.chunk` deltas keyed by choice and
// tool-call `index`, ended by `data: [DONE]`. Only the first choice is changed.
import { isRecord, parseJson } from '../../core/internal.js';
import type { RecordedResponse } from '../../recordings/internal.js';
import type { AnswerEditor, Change, ToolCall } from './answer-editor.js';
import { streamErrorBody } from './failures.js';
import { copyJson, withBody, type JsonAnswer } from './json-text.js';
import { erroredAfter, truncatedBefore } from './stream-cuts.js';
import { frameLike, StreamDraft, withFrames, type StreamEvent } from './stream-frames.js';
import { REFUSAL_TEXT, spreadText } from './text-edits.js';

type Json = Record<string, unknown>;

/** The editor of a plain Chat Completions answer; undefined when it has no `choices[0].message`. */
export function chatBodyEditor(response: RecordedResponse, answer: JsonAnswer): AnswerEditor | undefined {
  if (!isRecord(answer.json) || !Array.isArray(answer.json.choices) || !isRecord(answer.json.choices[0])) return undefined;
  if (!isRecord(answer.json.choices[0].message)) return undefined;
  const message = answer.json.choices[0].message;
  const entries = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
  // A copy of the answer, its first choice and message to change.
  const draft = (): { json: Json; choice: Json; message: Json } => {
    const json = copyJson(answer.json) as Json;
    const choice = (json.choices as Json[])[0]!;
    return { json, choice, message: choice.message as Json };
  };
  const finish = (reason: string): Change => {
    const next = draft();
    const before = String(next.choice.finish_reason);
    next.choice.finish_reason = reason;
    return { response: withBody(response, answer.write(next.json)), before: `finish_reason ${before}`, after: `finish_reason ${reason}` };
  };
  return {
    provider: 'openai',
    texts: typeof message.content === 'string' ? [message.content] : [],
    withTexts([text]) {
      const next = draft();
      next.message.content = text;
      return withBody(response, answer.write(next.json));
    },
    calls: entries.map(callOfEntry),
    withCalls(calls) {
      const next = draft();
      const list = (next.message.tool_calls as Json[]).filter(isRecord).slice(0, calls.length);
      calls.forEach((call, index) => writeEntry(list[index]!, call));
      if (list.length > 0) next.message.tool_calls = list;
      else {
        delete next.message.tool_calls;
        if (next.choice.finish_reason === 'tool_calls') next.choice.finish_reason = 'stop';
      }
      return withBody(response, answer.write(next.json));
    },
    finishLength: () => finish('length'),
    finishContentFilter: () => finish('content_filter'),
    refusal() {
      const next = draft();
      const before = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
      next.message.content = null;
      next.message.refusal = REFUSAL_TEXT;
      delete next.message.tool_calls;
      next.choice.finish_reason = 'stop';
      return {
        response: withBody(response, answer.write(next.json)),
        before: `content ${before}`,
        after: `content null, refusal ${JSON.stringify(REFUSAL_TEXT)}`,
      };
    },
  };
}

/** The editor of a streamed Chat Completions answer; undefined when its frames are not chunks. */
export function chatStreamEditor(response: RecordedResponse, events: StreamEvent[]): AnswerEditor | undefined {
  const chunks = events.filter((event) => isRecord(event.json) && event.json.object === 'chat.completion.chunk');
  if (chunks.length === 0) return undefined;
  const delta = (json: unknown): Json | undefined => {
    const choice = firstChoice(json);
    return choice !== undefined && isRecord(choice.delta) ? choice.delta : undefined;
  };
  const textAt = events.map((event, index) => (typeof delta(event.json)?.content === 'string' ? index : -1)).filter((index) => index >= 0);
  const slots = callSlots(events);
  const finishAt = events.findIndex((event) => {
    const reason = firstChoice(event.json)?.finish_reason;
    return reason !== null && reason !== undefined;
  });
  const doneAt = events.findIndex((event) => event.data === '[DONE]');
  const end = finishAt >= 0 ? finishAt : doneAt >= 0 ? doneAt : events.length;
  const finish = (reason: string): Change | undefined => {
    if (finishAt < 0) return undefined;
    const draft = new StreamDraft(events);
    const choice = firstChoice(draft.json(finishAt))!;
    const before = String(choice.finish_reason);
    choice.finish_reason = reason;
    return { response: withFrames(response, draft.frames()), before: `finish_reason ${before}`, after: `finish_reason ${reason}` };
  };
  return {
    provider: 'openai',
    texts: textAt.map((index) => delta(events[index]!.json)!.content as string),
    withTexts(texts) {
      const draft = new StreamDraft(events);
      textAt.forEach((index, position) => (delta(draft.json(index))!.content = texts[position]));
      return withFrames(response, draft.frames());
    },
    calls: slots.map((slot) => slot.call),
    withCalls(calls) {
      const draft = new StreamDraft(events);
      slots.forEach((slot, position) => {
        const call = calls[position];
        if (call === undefined) {
          removeSlot(draft, slot.index);
          return;
        }
        const entry = (at: { event: number; entry: number }): Json => (delta(draft.json(at.event))!.tool_calls as Json[])[at.entry]!;
        if (slot.id !== undefined && call.id !== undefined) entry(slot.id).id = call.id;
        if (slot.name !== undefined) (entry(slot.name).function as Json).name = call.name;
        const pieces = spreadText(
          slot.argumentPieces.map((at) => (entry(at).function as Json).arguments as string),
          call.argsText ?? JSON.stringify(call.args),
        );
        slot.argumentPieces.forEach((at, index) => ((entry(at).function as Json).arguments = pieces[index]));
      });
      if (calls.length === 0 && finishAt >= 0) {
        const choice = firstChoice(draft.json(finishAt))!;
        if (choice.finish_reason === 'tool_calls') choice.finish_reason = 'stop';
      }
      return withFrames(response, draft.frames());
    },
    finishLength: () => finish('length'),
    finishContentFilter: () => finish('content_filter'),
    refusal() {
      if (textAt.length === 0 || slots.length > 0) return undefined;
      const draft = new StreamDraft(events);
      const pieces = spreadText(
        textAt.map(() => ''),
        REFUSAL_TEXT,
      );
      // The refusal streams in `refusal` deltas where the text streamed in `content` ones.
      textAt.forEach((index, position) => {
        const changed = delta(draft.json(index))!;
        if (position === 0) changed.content = null;
        else delete changed.content;
        changed.refusal = pieces[position];
      });
      return {
        response: withFrames(response, draft.frames()),
        before: `content ${JSON.stringify(textAt.map((index) => delta(events[index]!.json)!.content).join(''))}`,
        after: `refusal ${JSON.stringify(REFUSAL_TEXT)}`,
      };
    },
    truncated: () => truncatedBefore(response, events, end),
    streamError: () => erroredAfter(response, events, end, (_kept, atMs) => [frameLike(events[0]!, 'sse', streamErrorBody('openai'), undefined, atMs)]),
  };
}

/** Where one streamed tool call is: the delta entries with its id, its name and its argument pieces. */
interface CallSlot {
  index: number;
  call: ToolCall;
  id: { event: number; entry: number } | undefined;
  name: { event: number; entry: number } | undefined;
  argumentPieces: Array<{ event: number; entry: number }>;
}

function callSlots(events: readonly StreamEvent[]): CallSlot[] {
  const slots = new Map<number, CallSlot & { text: string; callName: string; callId: string | undefined }>();
  events.forEach((event, eventIndex) => {
    const delta = firstChoice(event.json)?.delta;
    if (!isRecord(delta) || !Array.isArray(delta.tool_calls)) return;
    delta.tool_calls.forEach((entry, entryIndex) => {
      if (!isRecord(entry) || typeof entry.index !== 'number') return;
      let slot = slots.get(entry.index);
      if (slot === undefined) {
        slot = { index: entry.index, call: undefined!, id: undefined, name: undefined, argumentPieces: [], text: '', callName: '', callId: undefined };
        slots.set(entry.index, slot);
      }
      const at = { event: eventIndex, entry: entryIndex };
      if (typeof entry.id === 'string' && slot.id === undefined) {
        slot.id = at;
        slot.callId = entry.id;
      }
      const fn = isRecord(entry.function) ? entry.function : {};
      if (typeof fn.name === 'string' && slot.name === undefined) {
        slot.name = at;
        slot.callName = fn.name;
      }
      if (typeof fn.arguments === 'string') {
        slot.argumentPieces.push(at);
        slot.text += fn.arguments;
      }
    });
  });
  return [...slots.values()]
    .sort((left, right) => left.index - right.index)
    .map((slot) => ({ ...slot, call: { id: slot.callId, name: slot.callName, args: parseJson(slot.text), argsText: slot.text } }));
}

// Takes a call's deltas out of the stream; a chunk left with nothing to say is dropped.
function removeSlot(draft: StreamDraft, index: number): void {
  draft.events.forEach((event, eventIndex) => {
    const delta = firstChoice(event.json)?.delta;
    if (!isRecord(delta) || !Array.isArray(delta.tool_calls) || !delta.tool_calls.some((entry) => isRecord(entry) && entry.index === index)) return;
    const choice = firstChoice(draft.json(eventIndex))!;
    const changed = choice.delta as Json;
    changed.tool_calls = (changed.tool_calls as Json[]).filter((entry) => entry.index !== index);
    if ((changed.tool_calls as Json[]).length > 0) return;
    delete changed.tool_calls;
    if (Object.keys(changed).length === 0 && (choice.finish_reason === null || choice.finish_reason === undefined)) draft.drop(eventIndex);
  });
}

function firstChoice(json: unknown): Json | undefined {
  if (!isRecord(json) || !Array.isArray(json.choices)) return undefined;
  const choice = json.choices.find((entry) => isRecord(entry) && (entry.index === 0 || entry.index === undefined));
  return isRecord(choice) ? choice : undefined;
}

function callOfEntry(entry: Json): ToolCall {
  const fn = isRecord(entry.function) ? entry.function : {};
  const argsText = typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {});
  return { id: typeof entry.id === 'string' ? entry.id : undefined, name: String(fn.name), args: parseJson(argsText), argsText };
}

function writeEntry(entry: Json, call: ToolCall): void {
  if (call.id !== undefined) entry.id = call.id;
  const fn = isRecord(entry.function) ? entry.function : (entry.function = {});
  (fn as Json).name = call.name;
  (fn as Json).arguments = call.argsText ?? JSON.stringify(call.args);
}
