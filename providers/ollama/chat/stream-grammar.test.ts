import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { checkOllamaChatStreamGrammar } from './stream-grammar.js';

const sample = (name: string): string[] =>
  readFileSync(new URL(`../../../test/fixtures/samples/ollama/${name}`, import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
const edited = (lines: string[], index: number, change: (data: Record<string, unknown>) => void) =>
  lines.map((line, position) => {
    if (position !== index) return line;
    const data = JSON.parse(line) as Record<string, unknown>;
    change(data);
    return JSON.stringify(data);
  });

describe('checkOllamaChatStreamGrammar', () => {
  test('the real tool-call stream holds', () => {
    const lines = sample('chat-stream-tool-call.ndjson');
    expect(lines.length).toBe(2);
    expect(checkOllamaChatStreamGrammar(lines)).toEqual([]);
  });

  test('the text sample, from the docs before done_reason existed, is named for lacking it', () => {
    expect(checkOllamaChatStreamGrammar(sample('chat-stream-text.ndjson'))).toEqual(['line 1: the done:true object has no done_reason']);
  });

  test('an empty stream, a missing done:true, a line after it and missing eval counts are named', () => {
    const lines = sample('chat-stream-tool-call.ndjson');
    expect(checkOllamaChatStreamGrammar([])).toEqual(['the stream has no lines: expected done:false objects, then one done:true']);
    expect(checkOllamaChatStreamGrammar(lines.slice(0, 1))).toEqual(['the stream stops after 1 lines without a done:true object']);
    expect(checkOllamaChatStreamGrammar([...lines, lines[1]!])).toEqual(['line 2: comes after the done:true object']);
    expect(checkOllamaChatStreamGrammar(edited(lines, 1, (data) => delete data.eval_count))).toEqual(['line 1: the done:true object has no eval_count']);
    expect(checkOllamaChatStreamGrammar(edited(lines, 0, (data) => delete data.message))).toEqual(['line 0: .message: expected an object']);
    expect(checkOllamaChatStreamGrammar(['not json', lines[1]!])).toEqual(['line 0: is not JSON: not json']);
  });

  test('an error line ends the stream early, and nothing may follow it', () => {
    const lines = sample('chat-stream-tool-call.ndjson');
    const error = JSON.stringify({ error: 'an error was encountered while running the model' });
    expect(checkOllamaChatStreamGrammar([lines[0]!, error])).toEqual([]);
    expect(checkOllamaChatStreamGrammar([lines[0]!, error, lines[1]!])).toEqual(['line 2: comes after the error']);
  });
});
