import { describe, expect, test } from 'vitest';
import { jsonLayout } from './json-layout.js';

const layoutOf = (text: string): unknown => jsonLayout(text, JSON.parse(text));

describe('jsonLayout', () => {
  test('is empty for compact JSON as JSON.stringify writes it', () => {
    expect(layoutOf('{"a":[1,"é",{}],"b":null}')).toEqual({});
    expect(layoutOf('"just a string"')).toEqual({});
  });

  test('finds the indentation, the escaping and the trailing whitespace', () => {
    expect(layoutOf('{\n  "a": [\n    1\n  ]\n}\n')).toEqual({ indent: '  ', trailing: '\n' });
    expect(layoutOf('{\n\t"a": "caf\\u00e9"\n}')).toEqual({ indent: '\t', ascii: true });
    expect(layoutOf('{"a": 1, "b": [1, 2]}\r\n')).toEqual({ spaced: true, trailing: '\r\n' });
  });

  test('reads the spacing of a one-line array from its first comma', () => {
    expect(layoutOf('[1, 2.0, 3]')).toEqual({ spaced: true, literals: { '[1]': '2.0' } });
  });

  test('names each member JavaScript cannot keep as it was written, by its path', () => {
    expect(layoutOf('{"b":{"10":1,"9":2},"a":[{"x":1e-7,"y":1e-07}]}')).toEqual({ keyOrder: { '.b': ['10', '9'] }, literals: { '.a[0].y': '1e-07' } });
    expect(layoutOf('{"odd name":"a\\/b"}')).toEqual({ literals: { '["odd name"]': '"a\\/b"' } });
  });

  test('is undefined when nothing reproduces the text', () => {
    expect(layoutOf('{ "a":1}')).toBeUndefined();
    expect(layoutOf('{"a":1,"a":1}')).toBeUndefined();
    expect(layoutOf('{"\\u0061":1}')).toBeUndefined();
  });

  test('is undefined, not a crash, for nesting deeper than the stack', () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    expect(layoutOf(deep)).toBeUndefined();
  });
});
