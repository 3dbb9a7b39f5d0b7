import { describe, expect, test } from 'vitest';
import { checkRealtimeResponseGrammar } from './event-grammar.js';

let next = 0;
const event = (type: string, fields: Record<string, unknown> = {}): Record<string, unknown> => ({ type, event_id: `event_${next++}`, ...fields });
const at = { response_id: 'resp_1', item_id: 'item_1', output_index: 0, content_index: 0 };
const item = { id: 'item_1', type: 'message', role: 'assistant' };

// One text response as the GA API sends it.
const text = [
  event('response.created', { response: { id: 'resp_1', status: 'in_progress', output: [] } }),
  event('response.output_item.added', { response_id: 'resp_1', output_index: 0, item: { ...item, status: 'in_progress', content: [] } }),
  event('conversation.item.added', { previous_item_id: null, item: { ...item, status: 'in_progress', content: [] } }),
  event('response.content_part.added', { ...at, part: { type: 'text', text: '' } }),
  event('response.output_text.delta', { ...at, delta: 'Hello' }),
  event('response.output_text.delta', { ...at, delta: ' there' }),
  event('response.output_text.done', { ...at, text: 'Hello there' }),
  event('response.content_part.done', { ...at, part: { type: 'text', text: 'Hello there' } }),
  event('response.output_item.done', { response_id: 'resp_1', output_index: 0, item: { ...item, status: 'completed' } }),
  event('conversation.item.done', { previous_item_id: null, item: { ...item, status: 'completed' } }),
  event('response.done', { response: { id: 'resp_1', status: 'completed', output: [item], usage: { total_tokens: 12 } } }),
];

describe('checkRealtimeResponseGrammar', () => {
  test('a text response in the GA grammar holds', () => {
    expect(checkRealtimeResponseGrammar(text)).toEqual([]);
  });

  test('no events, a missing response.done and a response.done that is not last are named', () => {
    expect(checkRealtimeResponseGrammar([])).toEqual(['the response has no events: expected response.created … response.done']);
    expect(checkRealtimeResponseGrammar(text.slice(0, -1))).toEqual(['the response stops after 10 events without response.done']);
    expect(checkRealtimeResponseGrammar([...text, event('response.output_text.delta', { ...at, delta: '!' })])).toEqual([
      'event 11 (response.output_text.delta): comes after response.done',
    ]);
  });

  test('deltas that do not join to their done text, an event for an item never opened, and a reused event id are named', () => {
    const tampered = text.map((one) => ({ ...one }));
    tampered[5] = { ...tampered[5]!, delta: ' world' };
    expect(checkRealtimeResponseGrammar(tampered)).toEqual(['event 6 (response.output_text.done): text "Hello there", but its deltas join to "Hello world"']);
    expect(checkRealtimeResponseGrammar([text[0]!, ...text.slice(3)])).toEqual([
      'event 1 (response.content_part.added): output_index 0 is not an open output item',
      'event 2 (response.output_text.delta): output_index 0 is not an open output item',
      'event 3 (response.output_text.delta): output_index 0 is not an open output item',
      'event 4 (response.output_text.done): output_index 0 is not an open output item',
      'event 5 (response.content_part.done): output_index 0 is not an open output item',
      'event 6 (response.output_item.done): output_index 0 is not an open output item',
      'event 7 (conversation.item.done): item item_1 is done before its response.output_item.done',
    ]);
    const reused = text.map((one, position) => (position === 4 ? { ...one, event_id: text[3]!.event_id } : one));
    expect(checkRealtimeResponseGrammar(reused)).toEqual([`event 4 (response.output_text.delta): event_id ${String(text[3]!.event_id)} sent twice`]);
  });

  test('a completed response with an item still open, or without usage, is named', () => {
    const open = [...text.slice(0, 7), text.at(-1)!];
    expect(checkRealtimeResponseGrammar(open)).toEqual(['event 7 (response.done): completed while output items 0 are still open']);
    const free = [...text.slice(0, -1), event('response.done', { response: { id: 'resp_1', status: 'completed', output: [item] } })];
    expect(checkRealtimeResponseGrammar(free)).toEqual(['event 10 (response.done): a completed response without usage']);
  });
});
