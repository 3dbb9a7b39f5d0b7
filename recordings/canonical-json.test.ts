import { describe, expect, test } from 'vitest';
import { canonicalJson } from './canonical-json.js';

describe('canonicalJson', () => {
  test('gives the same string whatever order the keys were built in, at every depth', () => {
    const first = { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], options: { b: 2, a: { y: 1, x: 0 } } };
    const second = { options: { a: { x: 0, y: 1 }, b: 2 }, messages: [{ content: 'hi', role: 'user' }], model: 'gpt-4o' };
    expect(canonicalJson(first)).toBe(canonicalJson(second));
    expect(canonicalJson(first)).toBe('{"messages":[{"content":"hi","role":"user"}],"model":"gpt-4o","options":{"a":{"x":0,"y":1},"b":2}}');
  });

  test('keeps array order', () => {
    expect(canonicalJson([2, 1])).toBe('[2,1]');
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
  });

  test('writes no whitespace and keeps non-ASCII text as it is', () => {
    expect(canonicalJson({ text: 'héllo 👋 "quoted"\n' })).toBe('{"text":"héllo 👋 \\"quoted\\"\\n"}');
  });

  test('parses back to an equal value', () => {
    const value = { z: [1, { b: null, a: true }], a: -2.5e-7, s: 'ü' };
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
  });
});
