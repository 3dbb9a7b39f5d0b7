import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { assembleConverseStream, converseEventOfChunk, readConverseAnswer } from './read-answer.js';
import { checkConverseStreamGrammar } from './stream-grammar.js';

const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(`../../../test/fixtures/bedrock/${name}`, import.meta.url), 'utf8'));
const streamEvents = () =>
  (fixture('converse-stream-events.json') as { events: Array<{ headers: Record<string, string>; payload: unknown }> }).events.map((event) => ({
    type: event.headers[':event-type'],
    payload: event.payload,
  }));

describe('readConverseAnswer', () => {
  test('reads the captured Converse answer: text, stop reason, usage with its cache counts, the model from the path', () => {
    expect(readConverseAnswer(fixture('converse-response.json'), 'anthropic.claude-3-5-haiku-20241022-v1:0')).toMatchObject({
      model: 'anthropic.claude-3-5-haiku-20241022-v1:0',
      text: expect.stringContaining('There are **3**'),
      toolCalls: [],
      stopReason: 'end_turn',
      usage: { input: 22, output: 57 },
      cache: { read: 0, write: 0 },
      usageReported: true,
    });
  });

  test('reads a tool use with its name and input, and a Nova InvokeModel body the same way', () => {
    expect(readConverseAnswer(fixture('converse-tool-use-response.json'))).toMatchObject({
      text: null,
      toolCalls: [{ id: 'tool-use-id', name: 'bash', args: { command: 'ls -l' } }],
      stopReason: 'tool_use',
    });
    expect(readConverseAnswer((fixture('invoke-nova-response.json') as { body: unknown }).body)).toMatchObject({
      text: 'Las Vegas is known for its casinos, entertainment, and nightlife.',
      usage: { input: 9, output: 15 },
    });
    expect(readConverseAnswer({ message: 'Too many requests' })).toEqual({ problem: expect.stringContaining('without output.message.content') });
  });
});

describe('assembleConverseStream', () => {
  test("the captured ConverseStream assembles into a Converse answer: its deltas' text joined, messageStop's reason, metadata's usage", () => {
    const { body, exception } = assembleConverseStream(streamEvents());
    expect(exception).toBeUndefined();
    const deltas = streamEvents()
      .filter((event) => event.type === 'contentBlockDelta')
      .map((event) => (event.payload as { delta: { text: string } }).delta.text);
    expect(deltas.length).toBeGreaterThan(3);
    expect(readConverseAnswer(body)).toMatchObject({ text: deltas.join(''), stopReason: 'end_turn', usageReported: true });
    expect(checkConverseStreamGrammar(streamEvents())).toEqual([]);
  });

  test("a tool use's input pieces are joined and parsed; an exception is named", () => {
    const { body, exception } = assembleConverseStream([
      { type: 'messageStart', payload: { role: 'assistant' } },
      { type: 'contentBlockStart', payload: { contentBlockIndex: 0, start: { toolUse: { toolUseId: 't1', name: 'get_weather' } } } },
      { type: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { toolUse: { input: '{"city":' } } } },
      { type: 'contentBlockDelta', payload: { contentBlockIndex: 0, delta: { toolUse: { input: '"Paris"}' } } } },
      { type: 'modelStreamErrorException', payload: { message: 'Model Stream Error' } },
    ]);
    expect(exception).toBe('modelStreamErrorException');
    expect(readConverseAnswer(body)).toMatchObject({ toolCalls: [{ id: 't1', name: 'get_weather', args: { city: 'Paris' } }], usageReported: false });
  });

  test("a Nova chunk's Converse event is the member named after its type", () => {
    expect(converseEventOfChunk({ contentBlockDelta: { delta: { text: 'Hi' } }, 'amazon-bedrock-invocationMetrics': {} })).toEqual({
      type: 'contentBlockDelta',
      payload: { delta: { text: 'Hi' } },
    });
    expect(converseEventOfChunk({ type: 'message_start' })).toBeUndefined();
  });
});

describe('checkConverseStreamGrammar', () => {
  test('names what is out of order: a delta before messageStart, a block skipped, no messageStop', () => {
    const events = streamEvents();
    expect(checkConverseStreamGrammar(events.slice(1))).toEqual(expect.arrayContaining([expect.stringContaining('a content block before messageStart')]));
    expect(checkConverseStreamGrammar(events.slice(0, -2))).toEqual(['the stream ends without messageStop']);
    const skipped = events.map((event) =>
      event.type?.startsWith('contentBlock') ? { ...event, payload: { ...(event.payload as object), contentBlockIndex: 1 } } : event,
    );
    expect(checkConverseStreamGrammar(skipped)[0]).toContain('block 1 opened where block 0 was next');
  });
});
