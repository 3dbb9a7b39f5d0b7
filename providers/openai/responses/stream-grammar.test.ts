import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import type { GrammarEvent } from '../chat/stream-grammar.js';
import { checkResponsesStreamGrammar } from './stream-grammar.js';

// The vercel/ai fixture holds the data payloads only; each event's type stands in for its event line.
const failed: GrammarEvent[] = readFileSync(new URL('../../../test/fixtures/samples/openai/responses-stream-error.data.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line !== '')
  .map((data) => ({ event: (JSON.parse(data) as { type: string }).type, data }));

const event = (type: string, sequence: number, fields: Record<string, unknown> = {}): GrammarEvent => ({
  event: type,
  data: JSON.stringify({ type, sequence_number: sequence, ...fields }),
});

const text: GrammarEvent[] = [
  event('response.created', 0, { response: {} }),
  event('response.in_progress', 1, { response: {} }),
  event('response.output_item.added', 2, { output_index: 0, item: { id: 'msg_1', type: 'message' } }),
  event('response.output_text.delta', 3, { output_index: 0, item_id: 'msg_1', content_index: 0, delta: 'Hi' }),
  event('response.output_item.done', 4, { output_index: 0, item: { id: 'msg_1', type: 'message' } }),
  event('response.completed', 5, { response: {} }),
];

describe('checkResponsesStreamGrammar', () => {
  test('a real failed stream (error, then response.failed) and a text stream hold', () => {
    expect(failed.map((item) => item.event)).toEqual(['response.created', 'response.in_progress', 'error', 'response.failed']);
    expect(checkResponsesStreamGrammar(failed)).toEqual([]);
    expect(checkResponsesStreamGrammar(text)).toEqual([]);
  });

  test('an empty stream, a missing terminal event and a gap in sequence numbers are named', () => {
    expect(checkResponsesStreamGrammar([])).toEqual(['the stream has no events: expected response.created … response.completed']);
    expect(checkResponsesStreamGrammar(text.slice(0, -1))).toEqual([
      'the stream stops after 5 events without response.completed, response.incomplete or response.failed',
    ]);
    expect(checkResponsesStreamGrammar([...text.slice(0, 3), ...text.slice(4)])).toEqual([
      'event 3 (response.output_item.done): sequence_number 4, expected 3',
      'event 4 (response.completed): sequence_number 5, expected 4',
    ]);
  });

  test('an event for an item never opened, an item left open and an event after the end are named', () => {
    const unopened = [text[0]!, text[1]!, { ...text[3]!, data: text[3]!.data.replace('"sequence_number":3', '"sequence_number":2') }];
    expect(checkResponsesStreamGrammar(unopened)[0]).toBe('event 2 (response.output_text.delta): output_index 0 is not an open output item');
    const open = [...text.slice(0, 4), event('response.completed', 4, { response: {} })];
    expect(checkResponsesStreamGrammar(open)).toEqual(['response.completed while output items 0 are still open']);
    expect(checkResponsesStreamGrammar([...text, event('response.output_text.delta', 6, { output_index: 0 })])).toEqual([
      'event 6 (response.output_text.delta): comes after response.completed',
    ]);
  });
});
