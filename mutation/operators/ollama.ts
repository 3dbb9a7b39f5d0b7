// Ollama's native API: /api/chat (`message.content`, `message.tool_calls` with `arguments` as an
// object) and /api/generate (`response` text), `done_reason`; streamed as NDJSON, the last line
// `done: true`. Ollama's only finish word is `length`: no content filter, no refusal.
import { isRecord } from '../../core/internal.js';
import type { RecordedResponse } from '../../recordings/internal.js';
import type { AnswerEditor, Change, ToolCall } from './answer-editor.js';
import { streamErrorBody } from './failures.js';
import { copyJson, withBody, type JsonAnswer } from './json-text.js';
import { erroredAfter, truncatedBefore } from './stream-cuts.js';
import { frameLike, StreamDraft, withFrames, type StreamEvent } from './stream-frames.js';

type Json = Record<string, unknown>;
type OllamaApi = 'ollama-chat' | 'ollama-generate';

/** The editor of a plain /api/chat or /api/generate answer; undefined when it holds no answer. */
export function ollamaBodyEditor(response: RecordedResponse, answer: JsonAnswer, api: OllamaApi): AnswerEditor | undefined {
  if (!isRecord(answer.json) || !holdsAnswer(answer.json, api)) return undefined;
  let draft: Json = {};
  return editor(
    [answer.json],
    api,
    () => {
      draft = copyJson(answer.json) as Json;
    },
    () => draft,
    () => withBody(response, answer.write(draft)),
    0,
  );
}

/** The editor of a streamed answer; undefined when its lines hold no answer. */
export function ollamaStreamEditor(response: RecordedResponse, events: StreamEvent[], api: OllamaApi): AnswerEditor | undefined {
  if (!events.some((event) => isRecord(event.json) && holdsAnswer(event.json, api))) return undefined;
  const doneAt = events.findIndex((event) => isRecord(event.json) && event.json.done === true);
  const end = doneAt >= 0 ? doneAt : events.length;
  let draft = new StreamDraft(events);
  const base = editor(
    events.map((event) => event.json),
    api,
    () => {
      draft = new StreamDraft(events);
    },
    (index) => draft.json(index),
    () => withFrames(response, draft.frames()),
    doneAt,
  );
  return {
    ...base,
    truncated: () => truncatedBefore(response, events, end),
    streamError: () => erroredAfter(response, events, end, (_kept, atMs) => [frameLike(events[0]!, 'ndjson', streamErrorBody('ollama'), undefined, atMs)]),
  };
}

/** The shared editor over one document (a body) or one per line (a stream). */
function editor(
  documents: readonly unknown[],
  api: OllamaApi,
  start: () => void,
  target: (index: number) => Json,
  write: () => RecordedResponse,
  doneAt: number,
): AnswerEditor {
  const textAt: number[] = [];
  const callAt: Array<{ line: number; entry: number }> = [];
  documents.forEach((document, line) => {
    if (!isRecord(document)) return;
    if (api === 'ollama-generate') {
      if (typeof document.response === 'string') textAt.push(line);
      return;
    }
    if (!isRecord(document.message)) return;
    if (typeof document.message.content === 'string') textAt.push(line);
    if (Array.isArray(document.message.tool_calls)) document.message.tool_calls.forEach((_, entry) => callAt.push({ line, entry }));
  });
  const text = (document: unknown): string => String(api === 'ollama-generate' ? (document as Json).response : ((document as Json).message as Json).content);
  const entryOf = (document: unknown, at: { entry: number }): Json => (((document as Json).message as Json).tool_calls as Json[])[at.entry]!;
  // A chat stream's tool call lines may carry no text; a text piece is one line's content.
  const lengthFinish = (): Change | undefined => {
    if (doneAt < 0) return undefined;
    start();
    const done = target(doneAt);
    const before = String(done.done_reason);
    done.done_reason = 'length';
    return { response: write(), before: `done_reason ${before}`, after: 'done_reason length' };
  };
  return {
    provider: 'ollama',
    texts: textAt.map((line) => text(documents[line])),
    withTexts(texts) {
      start();
      textAt.forEach((line, position) => {
        const document = target(line);
        if (api === 'ollama-generate') document.response = texts[position];
        else (document.message as Json).content = texts[position];
      });
      return write();
    },
    calls: callAt.map((at): ToolCall => {
      const entry = entryOf(documents[at.line], at);
      const fn = isRecord(entry.function) ? entry.function : {};
      return { id: typeof entry.id === 'string' ? entry.id : undefined, name: String(fn.name), args: fn.arguments ?? {}, argsText: undefined };
    }),
    withCalls(calls) {
      start();
      callAt.forEach((at, position) => {
        const call = calls[position];
        if (call === undefined) return;
        const entry = entryOf(target(at.line), at);
        if (call.id !== undefined) entry.id = call.id;
        Object.assign(entry.function as Json, { name: call.name, arguments: call.args });
      });
      for (const at of callAt.slice(calls.length).reverse()) {
        const message = target(at.line).message as Json;
        (message.tool_calls as Json[]).splice(at.entry, 1);
        if ((message.tool_calls as Json[]).length === 0) delete message.tool_calls;
      }
      return write();
    },
    finishLength: lengthFinish,
  };
}

function holdsAnswer(json: Json, api: OllamaApi): boolean {
  return api === 'ollama-generate' ? typeof json.response === 'string' : isRecord(json.message);
}
