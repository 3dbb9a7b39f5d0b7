/**
 * The order of the server events of one OpenAI Realtime response: `response.created` first and
 * `response.done` last (once, with the same response id); each output item opened
 * (`response.output_item.added`) before the events that name it (`output_index`, `item_id`) and
 * closed (`response.output_item.done`) once; a content part added before its deltas and done
 * after them; the deltas of a text, a transcript or a call's arguments joining to what their
 * `.done` event says; every event with an `event_id` of its own. A completed response has closed
 * every item, and reports usage.
 */
import { isRecord } from '../../../core/internal.js';

const DELTAS: Record<string, { done: string; field: string }> = {
  'response.output_text.delta': { done: 'response.output_text.done', field: 'text' },
  'response.output_audio_transcript.delta': { done: 'response.output_audio_transcript.done', field: 'transcript' },
  'response.function_call_arguments.delta': { done: 'response.function_call_arguments.done', field: 'arguments' },
};
const DONES = new Map(Object.entries(DELTAS).map(([delta, { done, field }]) => [done, { delta, field }]));

/** What in `events` (one response's server events, parsed, in order) breaks the Realtime response grammar, one line each; empty when it holds. */
export function checkRealtimeResponseGrammar(events: readonly unknown[]): string[] {
  const violations: string[] = [];
  if (events.length === 0) return ['the response has no events: expected response.created … response.done'];
  let responseId: unknown;
  let ended = false;
  const eventIds = new Set<unknown>();
  const open = new Map<number, unknown>();
  const closed = new Set<number>();
  const closedIds = new Set<unknown>();
  const parts = new Set<string>();
  const streamed = new Map<string, string>();
  events.forEach((event, position) => {
    if (!isRecord(event)) {
      violations.push(`event ${position}: not a JSON object`);
      return;
    }
    const type = typeof event.type === 'string' ? event.type : '(no type)';
    const at = `event ${position} (${type})`;
    if (typeof event.event_id !== 'string' || event.event_id === '') violations.push(`${at}: no event_id`);
    else if (eventIds.has(event.event_id)) violations.push(`${at}: event_id ${event.event_id} sent twice`);
    eventIds.add(event.event_id);
    if (ended) {
      violations.push(`${at}: comes after response.done`);
      return;
    }
    const response = isRecord(event.response) ? event.response : undefined;
    if (position === 0) {
      if (type !== 'response.created') violations.push(`${at}: expected response.created first`);
      responseId = response?.id;
      if (typeof responseId !== 'string') violations.push(`${at}: the response has no id`);
      return;
    }
    if (type === 'response.created') violations.push(`${at}: a second response.created`);
    if (type === 'response.done') {
      ended = true;
      if (response?.id !== responseId) violations.push(`${at}: response ${String(response?.id)}, expected ${String(responseId)}`);
      if (response?.status === 'completed') {
        if (open.size > 0) violations.push(`${at}: completed while output items ${[...open.keys()].join(', ')} are still open`);
        if (!isRecord(response.usage) || !(Number(response.usage.total_tokens) > 0)) violations.push(`${at}: a completed response without usage`);
      }
      return;
    }
    // The response's items join the conversation: added while open, done once closed.
    if (type === 'conversation.item.added' || type === 'conversation.item.done') {
      const id = isRecord(event.item) ? event.item.id : undefined;
      if (type === 'conversation.item.added' && ![...open.values()].includes(id)) violations.push(`${at}: item ${String(id)} is not an open output item`);
      if (type === 'conversation.item.done' && !closedIds.has(id)) violations.push(`${at}: item ${String(id)} is done before its response.output_item.done`);
      return;
    }
    if (event.response_id !== responseId) violations.push(`${at}: response_id ${String(event.response_id)}, expected ${String(responseId)}`);
    const index = typeof event.output_index === 'number' ? event.output_index : undefined;
    if (type === 'response.output_item.added') {
      if (index === undefined || open.has(index) || closed.has(index)) violations.push(`${at}: output_index ${String(index)} opened twice or without an index`);
      else open.set(index, isRecord(event.item) ? event.item.id : undefined);
      return;
    }
    if (index === undefined || !open.has(index)) {
      violations.push(`${at}: output_index ${String(index)} is not an open output item`);
      return;
    }
    if (event.item_id !== undefined && event.item_id !== open.get(index))
      violations.push(`${at}: item_id ${String(event.item_id)} is not output item ${index} (${String(open.get(index))})`);
    const part = `${index}:${String(event.content_index ?? '')}`;
    if (type === 'response.content_part.added') {
      if (parts.has(part)) violations.push(`${at}: content part ${String(event.content_index)} of output item ${index} added twice`);
      parts.add(part);
      return;
    }
    if (type === 'response.output_item.done') {
      closedIds.add(open.get(index));
      open.delete(index);
      closed.add(index);
      return;
    }
    const delta = DELTAS[type];
    if (delta !== undefined) {
      if (type !== 'response.function_call_arguments.delta' && !parts.has(part))
        violations.push(`${at}: content part ${String(event.content_index)} was not added`);
      if (typeof event.delta !== 'string') violations.push(`${at}: delta is not a string`);
      streamed.set(`${type}/${part}`, (streamed.get(`${type}/${part}`) ?? '') + String(event.delta));
      return;
    }
    const done = DONES.get(type);
    if (done !== undefined) {
      const sent = streamed.get(`${done.delta}/${part}`) ?? '';
      if (event[done.field] !== sent)
        violations.push(`${at}: ${done.field} ${JSON.stringify(event[done.field])}, but its deltas join to ${JSON.stringify(sent)}`);
    }
  });
  if (!ended) violations.push(`the response stops after ${events.length} events without response.done`);
  return violations;
}
