import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { checkMessagesStreamGrammar, type GrammarEvent } from './stream-grammar.js';

function eventsOf(sse: string): GrammarEvent[] {
  return sse
    .split(/\n\n+/)
    .filter((frame) => frame.trim() !== '')
    .map((frame) => ({ event: /^event: (.*)$/m.exec(frame)?.[1], data: /^data: (.*)$/m.exec(frame)![1]! }));
}

const sample = (name: string): GrammarEvent[] => eventsOf(readFileSync(new URL(`../../../test/fixtures/samples/anthropic/${name}`, import.meta.url), 'utf8'));

describe('checkMessagesStreamGrammar', () => {
  test('real streams from @anthropic-ai/sdk fixtures hold: text, and text then tool use', () => {
    for (const name of ['stream-text.sse', 'stream-tool-use.sse']) {
      const events = sample(name);
      expect(events.length).toBeGreaterThan(5);
      expect(checkMessagesStreamGrammar(events), name).toEqual([]);
    }
  });

  test('an empty stream, a missing message_stop and a block out of order are each named', () => {
    const events = sample('stream-text.sse');
    expect(checkMessagesStreamGrammar([])).toEqual(['the stream has no events: expected message_start … message_stop']);
    expect(checkMessagesStreamGrammar(events.slice(0, -1))).toEqual([`the stream stops after ${events.length - 1} events without message_stop`]);
    const withoutStart = events.filter((event) => event.event !== 'content_block_start');
    expect(checkMessagesStreamGrammar(withoutStart)[0]).toBe('event 2 (content_block_delta): expected content_block_start or message_delta');
  });

  test('a delta that does not fit its block, an event line that lies and an event after the end are named', () => {
    const events = sample('stream-text.sse');
    const delta = events.findIndex((event) => event.event === 'content_block_delta');
    const wrongDelta = events.map((event, index) =>
      index === delta
        ? { ...event, data: JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{' } }) }
        : event,
    );
    expect(checkMessagesStreamGrammar(wrongDelta)).toEqual([`event ${delta} (content_block_delta): a input_json_delta inside a text block`]);
    const lying = events.map((event, index) => (index === delta ? { ...event, event: 'message_delta' } : event));
    expect(checkMessagesStreamGrammar(lying)).toEqual([
      `event ${delta} (content_block_delta): the event line says "message_delta", the data's type "content_block_delta"`,
    ]);
    expect(checkMessagesStreamGrammar([...events, events.at(-1)!])).toEqual([`event ${events.length} (message_stop): comes after the stream ended`]);
  });

  test('an error event ends a stream early', () => {
    const events = sample('stream-text.sse').slice(0, 3);
    const error = { event: 'error', data: JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }) };
    expect(checkMessagesStreamGrammar([...events, error])).toEqual([]);
  });
});
