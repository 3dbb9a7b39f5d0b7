import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { checkOllamaChatStreamGrammar, checkOllamaGenerateStreamGrammar } from './stream-grammar.js';

const sample = (name: string): string[] =>
  readFileSync(new URL(`../../test/fixtures/samples/ollama/${name}`, import.meta.url), 'utf8')
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

// Real answers printed in ollama/ollama docs/api.md (commit 01e52d24bc00defcd9bcc6d995b11df0f08bc6f1,
// MIT), each written on one line as the server writes NDJSON: "Generate request (Streaming)", its
// first and final objects (the final one from before done_reason existed), and "Request
// (Structured outputs)", an answer whose one object is a whole one-line stream.
const streamed = [
  '{"model":"llama3.2","created_at":"2023-08-04T08:52:19.385406455-07:00","response":"The","done":false}',
  '{"model":"llama3.2","created_at":"2023-08-04T19:22:45.499127Z","response":"","done":true,"context":[1,2,3],"total_duration":10706818083,"load_duration":6338219291,"prompt_eval_count":26,"prompt_eval_duration":130079000,"eval_count":259,"eval_duration":4232710000}',
];
const structured =
  '{"model":"llama3.1:8b","created_at":"2024-12-06T00:48:09.983619Z","response":"{\\n  \\"age\\": 22,\\n  \\"available\\": true\\n}","done":true,"done_reason":"stop","context":[1,2,3],"total_duration":1075509083,"load_duration":567678166,"prompt_eval_count":28,"prompt_eval_duration":236000000,"eval_count":16,"eval_duration":269000000}';
const withReason = [streamed[0]!, JSON.stringify({ ...(JSON.parse(streamed[1]!) as object), done_reason: 'stop' })];

describe('checkOllamaGenerateStreamGrammar', () => {
  test('the real structured answer as a one-line stream holds, and the streamed sample with a done_reason', () => {
    expect(checkOllamaGenerateStreamGrammar([structured])).toEqual([]);
    expect(checkOllamaGenerateStreamGrammar(withReason)).toEqual([]);
  });

  test('the streamed sample, from the docs before done_reason existed, is named for lacking it', () => {
    expect(checkOllamaGenerateStreamGrammar(streamed)).toEqual(['line 1: the done:true object has no done_reason']);
  });

  test('an empty stream, a missing done:true, a line after it, a missing response and missing eval counts are named', () => {
    expect(checkOllamaGenerateStreamGrammar([])).toEqual(['the stream has no lines: expected done:false objects, then one done:true']);
    expect(checkOllamaGenerateStreamGrammar(withReason.slice(0, 1))).toEqual(['the stream stops after 1 lines without a done:true object']);
    expect(checkOllamaGenerateStreamGrammar([...withReason, withReason[1]!])).toEqual(['line 2: comes after the done:true object']);
    expect(checkOllamaGenerateStreamGrammar(edited(withReason, 1, (data) => delete data.eval_count))).toEqual([
      'line 1: the done:true object has no eval_count',
    ]);
    expect(checkOllamaGenerateStreamGrammar(edited(withReason, 0, (data) => delete data.response))).toEqual(['line 0: .response: expected a string']);
    // A chat object is not a generate one.
    expect(
      checkOllamaGenerateStreamGrammar(edited(withReason, 0, (data) => ((data.message = { role: 'assistant', content: data.response }), delete data.response))),
    ).toEqual(['line 0: .response: expected a string']);
    expect(checkOllamaGenerateStreamGrammar(['not json', withReason[1]!])).toEqual(['line 0: is not JSON: not json']);
  });

  test('an error line ends the stream early, and nothing may follow it', () => {
    const error = JSON.stringify({ error: 'an error was encountered while running the model' });
    expect(checkOllamaGenerateStreamGrammar([withReason[0]!, error])).toEqual([]);
    expect(checkOllamaGenerateStreamGrammar([withReason[0]!, error, withReason[1]!])).toEqual(['line 2: comes after the error']);
    expect(checkOllamaGenerateStreamGrammar([JSON.stringify({ error: 7 })])).toEqual(['line 0: .error: expected a string']);
  });
});
