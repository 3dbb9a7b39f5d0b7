import { describe, expect, test } from 'vitest';
import type { RecordedResponse } from '../../recordings/internal.js';
import { jsonAnswerOf } from './json-text.js';
import { changeFirstNumber, negateText, spreadText } from './text-edits.js';

describe('text edits', () => {
  test('negation: removed where there is one, else after the first auxiliary, else before the text', () => {
    expect(negateText("It isn't raining")).toEqual({ text: 'It is raining', before: "isn't", after: 'is' });
    expect(negateText("I can't go")?.text).toBe('I can go');
    expect(negateText('It is not raining')?.text).toBe('It is raining');
    expect(negateText('Paris is sunny')).toEqual({ text: 'Paris is not sunny', before: 'is', after: 'is not' });
    expect(negateText('  Paris')).toEqual({ text: '  not Paris', before: 'Paris', after: 'not Paris' });
    expect(negateText('   ')).toBeUndefined();
  });

  test('the first number is one more', () => {
    expect(changeFirstNumber('It is 9007199254740993 or 2.5')?.text).toBe('It is 9007199254740994 or 2.5');
    expect(changeFirstNumber('none')).toBeUndefined();
  });

  test('a changed text is spread over its pieces: only the pieces over the change move, the count stays', () => {
    expect(spreadText(['Par', 'is is', ' sunny'], 'Paris is not sunny')).toEqual(['Par', 'is is', ' not sunny']);
    expect(spreadText(['', 'a', 'b', 'c'], '')).toEqual(['', '', '', '']);
    expect(spreadText(['ab', 'cd'], 'abcdX')).toEqual(['ab', 'cdX']);
    expect(spreadText(['ab', 'cd'], 'Xabcd')).toEqual(['Xab', 'cd']);
    expect(spreadText(['a', 'bc', 'd'], 'aXd')).toEqual(['a', 'X', 'd']);
    expect(spreadText(['😀', '😀'], '😀😁').join('')).toBe('😀😁');
  });
});

describe('a JSON answer recorded as text', () => {
  test('is parsed, changed and written back compact', () => {
    const response: RecordedResponse = { status: 200, headers: {}, body: { text: '{"a":  1}' } };
    const answer = jsonAnswerOf(response)!;
    expect(answer.json).toEqual({ a: 1 });
    expect(answer.write({ a: 2 })).toEqual({ text: '{"a":2}' });
    expect(jsonAnswerOf({ status: 200, headers: {}, body: { base64: 'AA==' } })).toBeUndefined();
  });
});
