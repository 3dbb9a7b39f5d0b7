// Bedrock InvokeModel: the body is the model's own. A Claude answer is Anthropic Messages (its
// stream's `chunk` messages carry Anthropic's stream events in their `bytes`), so Anthropic's
// editors change it, speaking as Bedrock where the provider shows (its failures, its stream's
// exception); a Nova answer is Converse's shape, so Converse's editors change it. Other models'
// bodies (Llama's `generation`, Titan's `results`) are not edited.
import { isRecord } from '../../core/internal.js';
import type { RecordedResponse } from '../../recordings/internal.js';
import type { AnswerEditor } from './answer-editor.js';
import { anthropicBodyEditor, anthropicStreamEditor } from './anthropic-messages.js';
import { converseBodyEditor, converseStreamEditor } from './bedrock-converse.js';
import { bedrockStreamErrorFrame } from './failures.js';
import type { JsonAnswer } from './json-text.js';
import { erroredAfter } from './stream-cuts.js';
import type { StreamEvent } from './stream-frames.js';

/** The editor of an InvokeModel answer: Anthropic's for a Messages body, Converse's for a Nova body; undefined for another model's. */
export function invokeBodyEditor(response: RecordedResponse, answer: JsonAnswer): AnswerEditor | undefined {
  if (isRecord(answer.json) && Array.isArray(answer.json.content)) {
    const editor = anthropicBodyEditor(response, answer);
    return editor === undefined ? undefined : { ...editor, provider: 'bedrock' };
  }
  return converseBodyEditor(response, answer);
}

/** The editor of an InvokeModelWithResponseStream answer: its chunks' Anthropic events, or Nova's Converse events. */
export function invokeStreamEditor(response: RecordedResponse, events: StreamEvent[]): AnswerEditor | undefined {
  const anthropic = anthropicStreamEditor(response, events);
  if (anthropic === undefined) return converseStreamEditor(response, events, 'chunk');
  const stopAt = events.findIndex((event) => isRecord(event.json) && (event.json.type === 'message_delta' || event.json.type === 'message_stop'));
  return {
    ...anthropic,
    provider: 'bedrock',
    // Bedrock does not send Anthropic's `error` event: the stream breaks off with its exception message.
    streamError: () => erroredAfter(response, events, stopAt >= 0 ? stopAt : events.length, (_kept, atMs) => [bedrockStreamErrorFrame(atMs)]),
  };
}
