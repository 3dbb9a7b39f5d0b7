import { describe, expect, test } from 'vitest';
import { patternExample } from './pattern-example.js';
import { seededRandom } from './seeded-random.js';

function example(pattern: string, minLength = 0, maxLength = Number.POSITIVE_INFINITY, seed = 0): string {
  const result = patternExample(pattern, { random: seededRandom(seed), minLength, maxLength });
  if (!result.ok) throw new Error(`no example for ${pattern}: ${result.reason}`);
  return result.text;
}

describe('patternExample', () => {
  test('writes text matching the patterns tool schemas commonly use', () => {
    const patterns = [
      '^[A-Z]{3}$',
      '^[a-z0-9_-]{3,16}$',
      '^\\d{5}(-\\d{4})?$',
      '^\\+[1-9]\\d{6,14}$',
      '^(foo|bar)\\.(json|ya?ml)$',
      '^#[0-9a-fA-F]{6}$',
      '^[^\\s@]+@[^\\s@]+\\.[a-z]{2,}$',
      '^v\\d+\\.\\d+\\.\\d+(?:-[a-z]+)?$',
      '^[\\u4e00-\\u9fff]+$',
      '^\\S+$',
      '[.]txt',
      '^\\w+\\s\\w+$',
      '^(?<year>\\d{4})-(?<month>0[1-9]|1[0-2])$',
      '^[a-zA-Z0-9_-]{21}$',
    ];
    for (const pattern of patterns) for (const seed of [0, 1, 2]) expect(example(pattern, 0, Number.POSITIVE_INFINITY, seed)).toMatch(new RegExp(pattern, 'u'));
    expect(patterns).toHaveLength(14);
  });

  test('keeps within the length bounds it is given', () => {
    const long = example('^[a-z]+$', 40, 40);
    expect(long).toHaveLength(40);
    expect(example('^[a-z]{2,30}$', 0, 3).length).toBeLessThanOrEqual(3);
    expect(example('x', 6)).toHaveLength(6);
  });

  test('varies the text with the random source', () => {
    const texts = new Set([0, 1, 2, 3, 4].map((seed) => example('^[A-Z]{6}$', 0, 16, seed)));
    expect(texts.size).toBeGreaterThan(1);
  });

  test('refuses syntax it cannot write text for, and says which', () => {
    const cases: Array<[string, string]> = [
      ['^\\p{Lu}+$', 'Unicode property escape'],
      ['^(a)\\1$', 'backreference'],
      ['[', 'not a valid regular expression'],
    ];
    for (const [pattern, reason] of cases) {
      const result = patternExample(pattern, { random: seededRandom(0), minLength: 0, maxLength: 10 });
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason).toContain(reason);
    }
    expect(cases).toHaveLength(3);
  });

  test('says so when no text of the allowed length matches', () => {
    const result = patternExample('^[a-z]{5}$', { random: seededRandom(0), minLength: 0, maxLength: 3 });
    expect(result).toEqual({ ok: false, reason: 'no string of 0 to 3 characters matching it was found' });
  });
});
