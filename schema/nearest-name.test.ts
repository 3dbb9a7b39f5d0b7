import { describe, expect, test } from 'vitest';
import { editDistance, nearestName } from './nearest-name.js';

describe('editDistance', () => {
  test('counts the insertions, deletions and substitutions between two strings', () => {
    expect(editDistance('', '')).toBe(0);
    expect(editDistance('ordinal', 'ordinal')).toBe(0);
    expect(editDistance('ordinl', 'ordinal')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abc', '')).toBe(3);
  });

  test('is symmetric', () => {
    const pairs: Array<[string, string]> = [
      ['bodySha265', 'bodySha256'],
      ['writenBy', 'writtenBy'],
      ['flaw', 'lawn'],
    ];
    for (const [a, b] of pairs) expect(editDistance(a, b)).toBe(editDistance(b, a));
    expect(pairs).toHaveLength(3);
  });
});

describe('nearestName', () => {
  test('suggests the known field a typo was meant to be', () => {
    expect(nearestName('ordinl', ['key', 'ordinal', 'upstream', 'source'])).toBe('ordinal');
    expect(nearestName('bodySha265', ['method', 'path', 'query', 'headers', 'body', 'bodySha256'])).toBe('bodySha256');
    expect(nearestName('writenBy', ['schemaVersion', 'writtenBy', 'keyRules'])).toBe('writtenBy');
    expect(nearestName('respnse', ['request', 'response'])).toBe('response');
  });

  test('ignores case when comparing but returns the candidate as written', () => {
    expect(nearestName('BODYSHA256', ['bodySha256', 'body'])).toBe('bodySha256');
    expect(nearestName('keyrules', ['schemaVersion', 'keyRules'])).toBe('keyRules');
  });

  test('makes no suggestion for a name unrelated to every candidate', () => {
    expect(nearestName('temperature', ['key', 'ordinal', 'upstream', 'source', 'request', 'response'])).toBeUndefined();
    expect(nearestName('zzz', ['key', 'ordinal'])).toBeUndefined();
    expect(nearestName('completely_different', ['schemaVersion', 'writtenBy', 'keyRules'])).toBeUndefined();
  });

  test('makes no suggestion for a short name that shares no letter with the candidate', () => {
    // The contract: no suggestion when more than half the name would have to change.
    // "id" -> "ok" changes all of it.
    expect(nearestName('id', ['ok'])).toBeUndefined();
    expect(nearestName('xyz', ['abz'])).toBeUndefined();
  });

  test('makes no suggestion when there are no candidates', () => {
    expect(nearestName('ordinal', [])).toBeUndefined();
  });

  test('prefers the first of equally near candidates', () => {
    expect(nearestName('bat', ['cat', 'hat'])).toBe('cat');
  });
});
