// Gemini generateContent: `candidates[0].content.parts` (text parts, thoughts aside, and
// functionCall parts with `args` as an object) and `finishReason`; streamed (`alt=sse`) as whole
// GenerateContentResponse frames, the last with the finishReason. Gemini's words are MAX_TOKENS
// and SAFETY; it has no refusal of its own beyond SAFETY, so there is no refusal mutation.
import { isRecord } from '../../core/internal.js';
import type { RecordedResponse } from '../../recordings/internal.js';
import type { AnswerEditor, Change, ToolCall } from './answer-editor.js';
import { streamErrorBody } from './failures.js';
import { copyJson, withBody, type JsonAnswer } from './json-text.js';
import { erroredAfter, truncatedBefore } from './stream-cuts.js';
import { frameLike, StreamDraft, withFrames, type StreamEvent } from './stream-frames.js';

type Json = Record<string, unknown>;

/** Where a part is: the frame (0 for a plain body) and its position in `parts`. */
interface PartAt {
  frame: number;
  part: number;
}

/** The editor of a plain generateContent answer; undefined when it has no `candidates[0].content`. */
export function geminiBodyEditor(response: RecordedResponse, answer: JsonAnswer): AnswerEditor | undefined {
  if (partsOf(answer.json) === undefined) return undefined;
  const documents = [answer.json];
  const write = (changed: unknown[]): RecordedResponse => withBody(response, answer.write(changed[0]));
  return editor(documents, () => [copyJson(answer.json)], write, 0);
}

/** The editor of a streamed answer; undefined when its frames are not GenerateContentResponses. */
export function geminiStreamEditor(response: RecordedResponse, events: StreamEvent[]): AnswerEditor | undefined {
  if (!events.some((event) => partsOf(event.json) !== undefined)) return undefined;
  const finishAt = events.findIndex((event) => typeof firstCandidate(event.json)?.finishReason === 'string');
  const end = finishAt >= 0 ? finishAt : events.length;
  let draft = new StreamDraft(events);
  const base = editor(
    events.map((event) => event.json),
    // A change starts a new draft: only the frames it asks for are copied (and rewritten).
    () => {
      draft = new StreamDraft(events);
      return [];
    },
    () => withFrames(response, draft.frames()),
    finishAt,
    (index) => draft.json(index),
  );
  return {
    ...base,
    truncated: () => truncatedBefore(response, events, end),
    streamError: () => erroredAfter(response, events, end, (_kept, atMs) => [frameLike(events[0]!, 'sse', streamErrorBody('gemini'), undefined, atMs)]),
  };
}

/**
 * The shared editor over one or more GenerateContentResponse documents (one for a plain body, one
 * per frame for a stream): `copy` starts a change, `target(i)` is document i being changed, `write`
 * gives the response once they are.
 */
function editor(
  documents: readonly unknown[],
  copy: () => unknown[],
  write: (changed: unknown[]) => RecordedResponse,
  finishAt: number,
  target?: (index: number) => Json,
): AnswerEditor {
  const textAt: PartAt[] = [];
  const callAt: PartAt[] = [];
  documents.forEach((document, frame) => {
    (partsOf(document) ?? []).forEach((part, index) => {
      if (!isRecord(part)) return;
      if (typeof part.text === 'string' && part.thought !== true) textAt.push({ frame, part: index });
      if (isRecord(part.functionCall)) callAt.push({ frame, part: index });
    });
  });
  const partOf = (document: unknown, at: PartAt): Json => partsOf(document)![at.part] as Json;
  // Each change: copies, the parts written through `target` (a stream) or into the copies (a body).
  const change = (edit: (documentAt: (frame: number) => Json) => void): RecordedResponse => {
    const copies = copy();
    edit((frame) => (target === undefined ? (copies[frame] as Json) : target(frame)));
    return write(copies);
  };
  const finish = (reason: string): Change | undefined => {
    if (finishAt < 0) return undefined;
    const before = String(firstCandidate(documents[finishAt])!.finishReason);
    const response = change((documentAt) => (firstCandidate(documentAt(finishAt))!.finishReason = reason));
    return { response, before: `finishReason ${before}`, after: `finishReason ${reason}` };
  };
  return {
    provider: 'gemini',
    texts: textAt.map((at) => partOf(documents[at.frame], at).text as string),
    withTexts: (texts) =>
      change((documentAt) =>
        textAt.forEach((at, position) => {
          partOf(documentAt(at.frame), at).text = texts[position];
        }),
      ),
    calls: callAt.map((at): ToolCall => {
      const call = partOf(documents[at.frame], at).functionCall as Json;
      return { id: typeof call.id === 'string' ? call.id : undefined, name: String(call.name), args: call.args ?? {}, argsText: undefined };
    }),
    withCalls: (calls) =>
      change((documentAt) => {
        callAt.forEach((at, position) => {
          const call = calls[position];
          if (call === undefined) return;
          const functionCall = partOf(documentAt(at.frame), at).functionCall as Json;
          functionCall.name = call.name;
          functionCall.args = call.args;
          if (call.id !== undefined) functionCall.id = call.id;
        });
        // The calls past the end go, last first so the positions before them hold.
        for (const at of callAt.slice(calls.length).reverse()) partsOf(documentAt(at.frame))!.splice(at.part, 1);
      }),
    finishLength: () => finish('MAX_TOKENS'),
    finishContentFilter: () => finish('SAFETY'),
  };
}

function firstCandidate(json: unknown): Json | undefined {
  if (!isRecord(json) || !Array.isArray(json.candidates) || !isRecord(json.candidates[0])) return undefined;
  return json.candidates[0];
}

function partsOf(json: unknown): unknown[] | undefined {
  const candidate = firstCandidate(json);
  return candidate !== undefined && isRecord(candidate.content) && Array.isArray(candidate.content.parts) ? candidate.content.parts : undefined;
}
