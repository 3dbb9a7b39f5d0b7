import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { checkGenerateStreamGrammar } from './stream-grammar.js';

// The sample holds the `data:` payloads of a real stream, one a line.
const sample = readFileSync(new URL('../../test/fixtures/samples/gemini/stream-text.data.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((data) => ({ data }));
const edited = (index: number, change: (data: Record<string, unknown>) => void) =>
  sample.map((event, position) => {
    if (position !== index) return event;
    const data = JSON.parse(event.data) as Record<string, unknown>;
    change(data);
    return { data: JSON.stringify(data) };
  });

describe('checkGenerateStreamGrammar', () => {
  test('the real stream holds', () => {
    expect(sample.length).toBe(3);
    expect(checkGenerateStreamGrammar(sample)).toEqual([]);
  });

  test('an empty stream, a missing finishReason and a frame after it are named', () => {
    expect(checkGenerateStreamGrammar([])).toEqual(['the stream has no events: expected GenerateContentResponse frames, the last with finishReason']);
    expect(checkGenerateStreamGrammar(sample.slice(0, -1))).toEqual(['the stream stops after 2 events without a finishReason']);
    expect(checkGenerateStreamGrammar([...sample, sample[0]!])).toEqual(['event 3: comes after the frame with finishReason']);
  });

  test('a final frame without usageMetadata, a frame without candidates and an event line are named', () => {
    expect(checkGenerateStreamGrammar(edited(2, (data) => delete data.usageMetadata))).toEqual(['event 2: the frame with finishReason has no usageMetadata']);
    expect(checkGenerateStreamGrammar(edited(1, (data) => (data.candidates = [])))).toEqual(['event 1: .candidates: expected a non-empty array']);
    expect(checkGenerateStreamGrammar(sample.map((event, index) => (index === 0 ? { ...event, event: 'message' } : event)))).toEqual([
      'event 0: has an event line "message"; Gemini frames have none',
    ]);
  });

  test('an error frame ends the stream early, and nothing may follow it', () => {
    const error = { data: JSON.stringify({ error: { code: 500, message: 'Internal error', status: 'INTERNAL' } }) };
    expect(checkGenerateStreamGrammar([sample[0]!, error])).toEqual([]);
    expect(checkGenerateStreamGrammar([sample[0]!, error, sample[2]!])).toEqual(['event 2: comes after the error']);
  });
});
