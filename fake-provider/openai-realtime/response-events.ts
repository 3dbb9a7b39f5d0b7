import type { AskedTurn } from '../../providers/internal.js';
import type { Answer, ResolvedFinish } from '../answer.js';
import { cutArguments, cutIntoChunks } from '../chunking.js';
import type { Chunking } from '../script.js';
import { answerText, argumentsJson, type IdKind } from '../surface.js';
import { countTokens } from '../usage.js';

/** A server event before it is sent: its `type` first, its `event_id` added when it goes out. */
export type RealtimeEvent = { type: string } & Record<string, unknown>;

/** What one Realtime response is made of, besides the answer. */
export interface RealtimeResponsePlan {
  turn: AskedTurn;
  /** The response as `response.created` shows it: `object`, `id`, then the fields after `output` (conversation, modalities, audio, metadata). */
  response: { id: string } & Record<string, unknown>;
  /** Whether the answer is spoken: its text goes out as an audio transcript (the fake sends no audio bytes). */
  audio: boolean;
  /** Whether the items join the session's conversation (`conversation.item.added` / `.done`); not for `conversation: "none"`. */
  inConversation: boolean;
  /** The conversation's last item before the response, which its first item follows. */
  previousItemId: string | null;
  finish: ResolvedFinish | undefined;
  chunking: Chunking | undefined;
  promptTokens: number;
  newId(kind: IdKind): string;
}

/**
 * The server events of a Realtime response in the GA grammar, from `response.created` to
 * `response.done`: per output item `response.output_item.added` and `conversation.item.added`, its
 * content part, the text (`response.output_text.delta`/`.done`) or the spoken transcript
 * (`response.output_audio_transcript.delta`/`.done`, with `response.output_audio.done`), or a
 * call's arguments (`response.function_call_arguments.delta`/`.done`, with its name and call id),
 * then `response.output_item.done` and `conversation.item.done`; `response.done` with the items
 * and the usage (never zero).
 */
export function responseEvents(plan: RealtimeResponsePlan, answer: Answer): RealtimeEvent[] {
  const { response, newId } = plan;
  const responseId = response.id;
  const status = finalStatus(plan.finish);
  const events: RealtimeEvent[] = [{ type: 'response.created', response: responseObject(plan, 'in_progress', [], undefined) }];
  const done: Array<Record<string, unknown>> = [];
  let previous = plan.previousItemId;
  const open = (outputIndex: number, item: Record<string, unknown>): void => {
    events.push({ type: 'response.output_item.added', response_id: responseId, output_index: outputIndex, item });
    if (plan.inConversation) events.push({ type: 'conversation.item.added', previous_item_id: previous, item });
  };
  const close = (outputIndex: number, item: Record<string, unknown>): void => {
    events.push({ type: 'response.output_item.done', response_id: responseId, output_index: outputIndex, item });
    if (plan.inConversation) events.push({ type: 'conversation.item.done', previous_item_id: previous, item });
    previous = String(item.id);
    done.push(item);
  };
  const text = answer.kind === 'text' ? answer.text : answer.kind === 'structured' ? JSON.stringify(answer.value) : answer.text;
  if (text !== undefined) {
    const id = newId('item');
    const outputIndex = done.length;
    const at = { response_id: responseId, item_id: id, output_index: outputIndex, content_index: 0 };
    open(outputIndex, { id, type: 'message', status: 'in_progress', role: 'assistant', content: [] });
    events.push({ type: 'response.content_part.added', ...at, part: plan.audio ? { type: 'audio', transcript: '' } : { type: 'text', text: '' } });
    const deltaType = plan.audio ? 'response.output_audio_transcript.delta' : 'response.output_text.delta';
    for (const delta of cutIntoChunks(text, plan.chunking)) events.push({ type: deltaType, ...at, delta });
    if (plan.audio) {
      // No audio bytes: the audio is done as soon as it starts, and its transcript is the answer.
      events.push({ type: 'response.output_audio.done', ...at });
      events.push({ type: 'response.output_audio_transcript.done', ...at, transcript: text });
    } else events.push({ type: 'response.output_text.done', ...at, text });
    events.push({ type: 'response.content_part.done', ...at, part: plan.audio ? { type: 'audio', transcript: text } : { type: 'text', text } });
    close(outputIndex, {
      id,
      type: 'message',
      status,
      role: 'assistant',
      content: [plan.audio ? { type: 'output_audio', transcript: text } : { type: 'output_text', text }],
    });
  }
  if (answer.kind === 'tool-calls') {
    for (const call of answer.calls) {
      const id = newId('item');
      const callId = call.id ?? newId('call');
      const outputIndex = done.length;
      const argumentsText = argumentsJson(call.arguments);
      const at = { response_id: responseId, item_id: id, output_index: outputIndex, call_id: callId };
      open(outputIndex, { id, type: 'function_call', status: 'in_progress', name: call.name, call_id: callId, arguments: '' });
      for (const delta of cutArguments(argumentsText, plan.chunking)) events.push({ type: 'response.function_call_arguments.delta', ...at, delta });
      events.push({ type: 'response.function_call_arguments.done', ...at, name: call.name, arguments: argumentsText });
      close(outputIndex, { id, type: 'function_call', status, name: call.name, call_id: callId, arguments: argumentsText });
    }
  }
  events.push({ type: 'response.done', response: responseObject(plan, status, done, usageOf(plan, answerText(answer))) });
  return events;
}

/**
 * The `response.done` of a response that ended before its answer did: `failed` (a broken
 * response, with the error) or `cancelled` (the client cancelled it), holding the items it had
 * finished.
 */
export function endedResponse(
  plan: RealtimeResponsePlan,
  ended: { status: 'failed'; error: { type: string; code: string } } | { status: 'cancelled' },
  finished: Array<Record<string, unknown>>,
): RealtimeEvent {
  const details = ended.status === 'failed' ? { type: 'failed', error: ended.error } : { type: 'cancelled', reason: 'client_cancelled' };
  const said = finished.map((item) => JSON.stringify(item.content ?? item.arguments ?? '')).join('');
  return { type: 'response.done', response: responseObject(plan, ended.status, finished, usageOf(plan, said), details) };
}

type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed' | 'cancelled';

function finalStatus(finish: ResolvedFinish | undefined): 'completed' | 'incomplete' {
  return finish?.reason === 'length' || finish?.reason === 'content-filter' ? 'incomplete' : 'completed';
}

// The response resource, in the order the API writes it. `status_details` and `usage` are left
// out until there is something to say: the spec has them as objects, not null.
function responseObject(
  plan: RealtimeResponsePlan,
  status: ResponseStatus,
  output: Array<Record<string, unknown>>,
  usage: Record<string, unknown> | undefined,
  details?: Record<string, unknown>,
): Record<string, unknown> {
  const { id, metadata, ...rest } = plan.response;
  const reason = plan.finish?.reason === 'length' ? 'max_output_tokens' : 'content_filter';
  const statusDetails = details ?? (status === 'incomplete' ? { type: 'incomplete', reason } : undefined);
  return {
    object: 'realtime.response',
    id,
    status,
    ...(statusDetails === undefined ? {} : { status_details: statusDetails }),
    output,
    ...rest,
    ...(usage === undefined ? {} : { usage }),
    metadata: metadata ?? null,
  };
}

/** Usage as the API reports it, counted the fake's way (about four characters a token): never zero. */
function usageOf(plan: RealtimeResponsePlan, said: string): Record<string, unknown> {
  const input = plan.promptTokens;
  const output = countTokens(said);
  return {
    total_tokens: input + output,
    input_tokens: input,
    output_tokens: output,
    input_token_details: {
      text_tokens: input,
      audio_tokens: 0,
      image_tokens: 0,
      cached_tokens: 0,
      cached_tokens_details: { text_tokens: 0, audio_tokens: 0, image_tokens: 0 },
    },
    output_token_details: { text_tokens: output, audio_tokens: 0 },
  };
}
