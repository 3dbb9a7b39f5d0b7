import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { checkChatStreamGrammar, type GrammarEvent } from './stream-grammar.js';

function eventsOf(sse: string): GrammarEvent[] {
  return sse
    .split(/\n\n+/)
    .filter((frame) => frame.trim() !== '')
    .map((frame) => ({ event: /^event: (.*)$/m.exec(frame)?.[1], data: /^data: (.*)$/m.exec(frame)![1]! }));
}

const sample = (name: string): GrammarEvent[] => eventsOf(readFileSync(new URL(`../../../test/fixtures/samples/openai/${name}`, import.meta.url), 'utf8'));

describe('checkChatStreamGrammar', () => {
  test('real streams from openai-python fixtures hold: text, and a tool call', () => {
    for (const name of ['chat-stream-text.sse', 'chat-stream-tool-call.sse']) {
      const events = sample(name);
      expect(events.length).toBeGreaterThan(5);
      expect(events.at(-1)!.data).toBe('[DONE]');
      expect(checkChatStreamGrammar(events), name).toEqual([]);
    }
  });

  test('Azure OpenAI’s first chunk, the prompt annotations alone, goes before the chunks; anywhere else it is no chunk', () => {
    const events = sample('chat-stream-text.sse');
    const annotation = {
      data: JSON.stringify({
        choices: [],
        created: 0,
        id: '',
        model: '',
        object: '',
        prompt_filter_results: [{ prompt_index: 0, content_filter_results: {} }],
      }),
    };
    expect(checkChatStreamGrammar([annotation, ...events])).toEqual([]);
    expect(checkChatStreamGrammar([events[0]!, annotation, ...events.slice(1)])).toContain('event 1: object "", expected "chat.completion.chunk"');
  });

  test('an empty stream, a missing [DONE] and a chunk after [DONE] are named', () => {
    const events = sample('chat-stream-text.sse');
    expect(checkChatStreamGrammar([])).toEqual(['the stream has no events: expected chat.completion.chunk … [DONE]']);
    expect(checkChatStreamGrammar(events.slice(0, -1))).toEqual([`the stream stops after ${events.length - 1} events without data: [DONE]`]);
    expect(checkChatStreamGrammar([...events, events[0]!])).toEqual([`event ${events.length}: comes after [DONE]`]);
    expect(checkChatStreamGrammar([{ data: '[DONE]' }])).toEqual(['event 0: [DONE] before any chunk']);
  });

  test('a chunk of another id, or content after a choice finished, is named', () => {
    const events = sample('chat-stream-text.sse');
    const other = events.map((event, index) => (index === 2 ? { data: event.data.replace(/"id":"[^"]+"/, '"id":"chatcmpl-other"') } : event));
    expect(checkChatStreamGrammar(other)).toEqual(['event 2: id "chatcmpl-other", the stream began as ' + JSON.stringify(JSON.parse(events[0]!.data).id)]);
    const finish = events.findIndex((event) => event.data.includes('"finish_reason":"stop"'));
    const after = [...events.slice(0, finish + 1), events[1]!, ...events.slice(finish + 1)];
    expect(checkChatStreamGrammar(after)).toEqual([`event ${finish + 1}: choice 0 goes on after its finish_reason`]);
  });

  test('an error chunk ends the stream in place of [DONE]', () => {
    const events = sample('chat-stream-text.sse').slice(0, 3);
    expect(checkChatStreamGrammar([...events, { data: JSON.stringify({ error: { message: 'boom', type: 'server_error' } }) }])).toEqual([]);
  });
});
