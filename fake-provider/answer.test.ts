import { describe, expect, test } from 'vitest';
import type { AskedTurn } from '../providers/internal.js';
import { fakeThought, finishFor, finishesOf } from './answer.js';

const turn = (index: number) => ({ index }) as AskedTurn;

describe('fakeThought', () => {
  test('says what the fake will answer, its call, and that it is fake, for each kind of answer', () => {
    expect([
      fakeThought(turn(0), { kind: 'text', text: 'Hi.' }),
      fakeThought(turn(3), {
        kind: 'tool-calls',
        calls: [
          { name: 'a', arguments: {} },
          { name: 'b', arguments: {} },
        ],
      }),
      fakeThought(turn(7), { kind: 'structured', value: {} }),
    ]).toEqual([
      'Thinking (modeltape FakeProvider, call 0): I will answer in text.',
      'Thinking (modeltape FakeProvider, call 3): I will call a, b.',
      'Thinking (modeltape FakeProvider, call 7): I will answer with the requested JSON.',
    ]);
  });
});

describe('finishFor', () => {
  test("Gemini's own names resolve to neutral ones on Gemini only; Ollama has length and stop sequences", () => {
    expect(['MAX_TOKENS', 'SAFETY', 'RECITATION', 'MALFORMED_FUNCTION_CALL'].map((name) => finishFor('gemini-generate', name as 'SAFETY'))).toEqual([
      'length',
      'content-filter',
      'content-filter',
      'content-filter',
    ]);
    expect(finishFor('openai-chat', 'SAFETY')).toBeUndefined();
    expect(finishFor('anthropic-messages', 'MAX_TOKENS')).toBeUndefined();
    expect(finishesOf('ollama-generate')).toEqual(['stop', 'length', 'stop-sequence']);
    expect(finishFor('ollama-chat', 'content-filter')).toBeUndefined();
  });
});
