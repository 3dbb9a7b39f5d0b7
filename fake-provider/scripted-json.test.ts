import { describe, expect, test } from 'vitest';
import { cutIntoChunks } from './chunking.js';
import { scriptedJson, scriptedPiecesJson } from './scripted-json.js';

const TEXTS = [
  '',
  'plain',
  'Quotes " and \\ backslashes',
  'Control \u0000\u0001\n\t and line separators \u2028\u2029',
  'Non-ASCII é 😀 and a lone surrogate \ud800',
  'x'.repeat(70 * 1024),
];

describe('scriptedJson', () => {
  test('is JSON.stringify of the text, the first time and every time after', () => {
    for (const text of TEXTS) expect([scriptedJson(text), scriptedJson(text)]).toEqual([JSON.stringify(text), JSON.stringify(text)]);
  });

  test('stays JSON.stringify after far more texts than it keeps', () => {
    for (let index = 0; index < 1000; index++) expect(scriptedJson(`text ${index} "quoted"`)).toBe(JSON.stringify(`text ${index} "quoted"`));
  });
});

describe('scriptedPiecesJson', () => {
  test("is each piece's JSON.stringify, cut by words, by size or by the pieces given", () => {
    let checked = 0;
    for (const text of TEXTS)
      for (const chunking of [undefined, 'words', { size: 1 }, { size: 7 }] as const) {
        const expected = cutIntoChunks(text, chunking).map((piece) => JSON.stringify(piece));
        expect([scriptedPiecesJson(text, chunking), scriptedPiecesJson(text, chunking)]).toEqual([expected, expected]);
        checked++;
      }
    expect(checked).toBe(TEXTS.length * 4);
  });

  test('pieces given explicitly are read on every call: a changed array is cut as it now is', () => {
    const chunking = { pieces: ['ab', 'cd'] };
    expect(scriptedPiecesJson('abcd', chunking)).toEqual(['"ab"', '"cd"']);
    chunking.pieces = ['a', 'bcd'];
    expect(scriptedPiecesJson('abcd', chunking)).toEqual(['"a"', '"bcd"']);
  });

  test('a cut that does not fit throws on every call, never answered from what was kept', () => {
    for (let attempt = 0; attempt < 2; attempt++) {
      expect(() => scriptedPiecesJson('abcd', { size: 0 })).toThrow(/Invalid chunk size 0/);
      expect(() => scriptedPiecesJson('abcd', { pieces: ['ab', 'x'] })).toThrow(/do not join to the text/);
    }
  });
});
