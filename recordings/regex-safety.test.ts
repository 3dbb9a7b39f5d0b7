import { describe, expect, test } from 'vitest';
import { compileNormalizers } from './normalize-body.js';
import { backtrackingRisk } from './regex-safety.js';

// Each takes seconds to hours on a string of a few dozen characters that almost matches.
const EVIL = [
  '(a+)+$',
  '(a*)*b',
  '(?:a+)+$',
  '(.*)*$',
  '(a|a)*$',
  '(a|aa)+$',
  '(a|ab)*c',
  '(\\w|\\d)+$',
  '(\\w+\\s?)+$',
  '([a-zA-Z]+)*$',
  '(\\d+)*$',
  '(x+x+)+y',
  '(a+b?)+$',
  '([^,]*,?)*$',
  '(.*a){20}',
  '^(([a-z])+.)+[A-Z]([a-z])+$',
  '(A+)+$',
];

// The patterns of the README and tests, and common volatile-field patterns.
const ORDINARY = [
  '\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z',
  '\\d{4}-\\d{2}',
  'req_[A-Za-z0-9]+',
  'chatcmpl-[A-Za-z0-9]+',
  '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}',
  '^\\s*$',
  '\\d+(\\.\\d+)?',
  '[\\w\\s]+',
  '\\w+(?:\\s\\w+)*',
  '(?:ab?)*',
  '(a|b)*',
  '(\\d+,)+',
  '(?:[a-z]+\\.)+com',
  'x{2,5}',
  '[]',
  '[^]',
  'a\\+b',
];

describe('a normalizer pattern that can backtrack catastrophically', () => {
  test.each(EVIL)('%s is refused, fast, with the reason and the rewrite', (pattern) => {
    const started = performance.now();
    expect(backtrackingRisk(pattern)).toBeDefined();
    expect(() => compileNormalizers([{ pattern }])).toThrow(expect.objectContaining({ code: 'unsafe_normalizer', message: expect.stringMatching(/can backtrack catastrophically .*: the repeat ".+" (sits inside another repeat|holds alternatives).*Rewrite it so that/) }));
    expect(performance.now() - started).toBeLessThan(50);
  });

  test('under the i flag, alternatives differing only in case overlap', () => {
    expect(backtrackingRisk('(a|A)+$')).toBeUndefined();
    expect(backtrackingRisk('(a|A)+$', 'i')).toMatch(/"a" and "A"/);
  });

  test.each(ORDINARY)('%s is accepted', (pattern) => {
    expect(backtrackingRisk(pattern)).toBeUndefined();
    expect(() => compileNormalizers([{ pattern }])).not.toThrow();
  });
});
