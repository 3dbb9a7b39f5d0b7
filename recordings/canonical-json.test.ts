import { describe, expect, test } from 'vitest';
import stableStringifyModule from 'fast-json-stable-stringify';
import { canonicalJson, sortKeys, sortLineKeys } from './canonical-json.js';

// The reference: the library serializer canonicalJson must agree with byte for byte.
const stableStringify = stableStringifyModule as unknown as (value: unknown) => string;

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

describe('canonicalJson with integer-like keys', () => {
  test('sorts them as text, like every other key, although V8 lists them first in numeric order', () => {
    expect(canonicalJson({ b: 1, '10': 2, '9': 3, a: { '2': 0, '1': 1 } })).toBe('{"10":2,"9":3,"a":{"1":1,"2":0},"b":1}');
    expect(canonicalJson({ logit_bias: { '50256': -100, '9': 5 } })).toBe('{"logit_bias":{"50256":-100,"9":5}}');
  });

  test('treats "01", "-1" and "4294967295" as ordinary keys', () => {
    expect(canonicalJson({ b: 0, '01': 1, '-1': 2, '4294967295': 3 })).toBe('{"-1":2,"01":1,"4294967295":3,"b":0}');
  });

  test('gives the same bytes on the fast path and the slow one for many generated values', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const names = ['a', 'B', 'zeta', '_note', '0', '7', '12', 'é', 'a b', '$ref'];
    const generate = (depth: number): unknown => {
      const pick = random();
      if (depth > 3 || pick < 0.3) return [null, true, 1.5, -3, 'text', ''][Math.floor(random() * 6)];
      if (pick < 0.5) return Array.from({ length: Math.floor(random() * 4) }, () => generate(depth + 1));
      const object: Record<string, unknown> = {};
      for (let count = Math.floor(random() * 5); count > 0; count--) object[names[Math.floor(random() * names.length)]!] = generate(depth + 1);
      return object;
    };
    let withIntegerKeys = 0;
    for (let round = 0; round < 300; round++) {
      const value = generate(0);
      const text = canonicalJson(value);
      if (/"\d+":/.test(text)) withIntegerKeys++;
      expect(JSON.parse(text)).toEqual(value);
      expect(text).toBe(stableStringify(value));
    }
    expect(withIntegerKeys).toBeGreaterThan(10);
  });
});

describe('sortLineKeys', () => {
  // What a tape line was written from before: sortKeys keeping the two recorded payloads.
  const isPayload = (path: readonly string[]): boolean =>
    path.length === 3 && path[2] === 'json' && path[1] === 'body' && (path[0] === 'request' || path[0] === 'response');

  test('writes what sortKeys keeping request.body.json and response.body.json writes, for many generated lines', () => {
    let seed = 3;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const names = ['request', 'response', 'body', 'json', 'a', 'z', '_note', '0', '12', '9', '__proto__', 'é'];
    const leaves = [null, true, 0, -1.5, 'text', '', undefined, () => 1, new Date(0), Symbol('s')];
    const generate = (depth: number): unknown => {
      const pick = random();
      if (depth > 4 || pick < 0.25) return leaves[Math.floor(random() * leaves.length)];
      if (pick < 0.4) {
        const array: unknown[] = Array.from({ length: Math.floor(random() * 4) }, () => generate(depth + 1));
        if (random() < 0.1) array.length += 2; // holes
        return array;
      }
      const object: Record<string, unknown> = {};
      for (let count = Math.floor(random() * 5); count > 0; count--) {
        const name = names[Math.floor(random() * names.length)]!;
        Object.defineProperty(object, name, { value: generate(depth + 1), enumerable: true, writable: true, configurable: true });
      }
      return object;
    };
    const counts = { kept: 0, unchanged: 0 };
    for (let round = 0; round < 3000; round++) {
      // Lines shaped like exchanges, payloads in their own order, and values of every shape.
      const payload = { z: 1, a: { y: 2, b: 3 }, '10': 0, '9': 1 };
      const value =
        round % 3 === 0
          ? { response: { status: 200, body: { json: payload, sha256: 'x' } }, request: { body: { json: generate(0) }, method: 'POST' }, key: 'k' }
          : generate(0);
      const expected = JSON.stringify(sortKeys(value, isPayload));
      const sorted = sortLineKeys(value);
      expect(JSON.stringify(sorted)).toBe(expected);
      if (round % 3 === 0) {
        expect((sorted as { response: { body: { json: unknown } } }).response.body.json).toBe(payload);
        counts.kept++;
      }
      if (sorted === value && typeof value === 'object' && value !== null) counts.unchanged++;
    }
    expect(counts.kept).toBe(1000);
    // Objects already in order are passed through, not copied.
    expect(counts.unchanged).toBeGreaterThan(50);
  });

  test('keeps a recorded payload in its own order under an array too, as sortKeys does', () => {
    const value = { request: [{ body: { json: { b: 1, a: 2 } } }], other: { body: { json: { b: 1, a: 2 } } } };
    expect(JSON.stringify(sortLineKeys(value))).toBe('{"other":{"body":{"json":{"a":2,"b":1}}},"request":[{"body":{"json":{"b":1,"a":2}}}]}');
    expect(JSON.stringify(sortLineKeys(value))).toBe(JSON.stringify(sortKeys(value, isPayload)));
  });
});
