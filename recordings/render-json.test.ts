import { describe, expect, test } from 'vitest';
import { renderJson } from './render-json.js';

const value = { id: 'x', list: [1, { b: true }], empty: [], none: {}, text: 'café 👋\u007f\n' };

describe('renderJson', () => {
  test('writes JSON.stringify output for no layout, an empty one and an indent', () => {
    expect(renderJson(value, undefined)).toBe(JSON.stringify(value));
    expect(renderJson(value, {})).toBe(JSON.stringify(value));
    expect(renderJson(value, { indent: '  ', trailing: '\n' })).toBe(`${JSON.stringify(value, null, 2)}\n`);
    // Past JSON.stringify's limit of 10 characters of indent, written the same way.
    expect(renderJson(value, { indent: ' '.repeat(12) })).toBe(
      JSON.stringify(value, null, 12).replace(/^( {10})+/gm, (run) => ' '.repeat((run.length / 10) * 12)),
    );
  });

  test('escapes every character from U+007F up with ascii, as Python does', () => {
    expect(renderJson({ text: 'café 👋\u007f\n"' }, { ascii: true })).toBe('{"text":"caf\\u00e9 \\ud83d\\udc4b\\u007f\\n\\""}');
    expect(renderJson({ clé: 1 }, { ascii: true, spaced: true })).toBe('{"cl\\u00e9": 1}');
  });

  test('writes members in the recorded order and literals as recorded', () => {
    expect(renderJson({ '2': 'b', '10': 'a', id: 1 }, { keyOrder: { '': ['10', '2', 'id'] }, literals: { '.id': '1.0' } })).toBe('{"10":"a","2":"b","id":1.0}');
  });

  test('ignores a literal or key order the value no longer fits, so an edit is written as edited', () => {
    expect(renderJson({ id: 2 }, { literals: { '.id': '1.0' } })).toBe('{"id":2}');
    expect(renderJson({ '2': 'b', '10': 'a', c: 3 }, { keyOrder: { '': ['10', '2'] } })).toBe('{"2":"b","10":"a","c":3}');
    expect(renderJson({ id: { nested: true } }, { literals: { '.id': '{}' } })).toBe('{"id":{"nested":true}}');
  });
});
