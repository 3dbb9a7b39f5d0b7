/**
 * The order of an OpenAI Responses stream: `response.created` first, `sequence_number` 0, 1, 2, …
 * on every event, each output item opened (`response.output_item.added`) before the events that
 * name it (`item_id` or `output_index`) and closed (`…output_item.done`) once, and exactly one
 * terminal event last: `response.completed`, `response.incomplete` or `response.failed` (an
 * `error` event may come just before `response.failed`, or end the stream alone). Each event's
 * `event:` line names its JSON `type`.
 */
import type { GrammarEvent } from '../chat/stream-grammar.js';

const TERMINAL = ['response.completed', 'response.incomplete', 'response.failed'];

/** What in `events` breaks the Responses stream grammar, one line each; empty when it holds. */
export function checkResponsesStreamGrammar(events: readonly GrammarEvent[]): string[] {
  const violations: string[] = [];
  if (events.length === 0) return ['the stream has no events: expected response.created … response.completed'];
  let ended: string | undefined;
  const open = new Map<number, string | undefined>();
  const closed = new Set<number>();
  events.forEach((frame, position) => {
    let data: Record<string, unknown>;
    try {
      data = JSON.parse(frame.data) as Record<string, unknown>;
    } catch {
      violations.push(`event ${position}: data is not JSON: ${frame.data.slice(0, 80)}`);
      return;
    }
    const type = typeof data.type === 'string' ? data.type : '(no type)';
    const at = `event ${position} (${type})`;
    if (frame.event !== undefined && frame.event !== type) violations.push(`${at}: the event line says "${frame.event}", the data's type "${type}"`);
    if (data.sequence_number !== position) violations.push(`${at}: sequence_number ${String(data.sequence_number)}, expected ${position}`);
    if (ended !== undefined && !(ended === 'error' && type === 'response.failed')) {
      violations.push(`${at}: comes after ${ended}`);
      return;
    }
    if (position === 0 && type !== 'response.created' && type !== 'error') violations.push(`${at}: expected response.created first`);
    if (position > 0 && type === 'response.created') violations.push(`${at}: a second response.created`);
    if (type === 'error' || TERMINAL.includes(type)) {
      ended = type;
      return;
    }
    const index = typeof data.output_index === 'number' ? data.output_index : undefined;
    if (type === 'response.output_item.added') {
      if (index === undefined || open.has(index) || closed.has(index)) violations.push(`${at}: output_index ${String(index)} opened twice or without an index`);
      else open.set(index, (data.item as Record<string, unknown> | undefined)?.id as string | undefined);
      return;
    }
    if (index !== undefined && !open.has(index)) violations.push(`${at}: output_index ${index} is not an open output item`);
    if (typeof data.item_id === 'string' && index !== undefined && open.has(index) && open.get(index) !== data.item_id)
      violations.push(`${at}: item_id ${data.item_id} is not output item ${index} (${String(open.get(index))})`);
    if (type === 'response.output_item.done' && index !== undefined && open.has(index)) {
      open.delete(index);
      closed.add(index);
    }
  });
  if (ended === undefined) violations.push(`the stream stops after ${events.length} events without response.completed, response.incomplete or response.failed`);
  else if (ended === 'response.completed' && open.size > 0)
    violations.push(`response.completed while output items ${[...open.keys()].join(', ')} are still open`);
  return violations;
}
