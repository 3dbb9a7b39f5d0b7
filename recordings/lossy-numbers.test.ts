import { describe, expect, test } from 'vitest';
import { hasLossyNumber } from './lossy-numbers.js';

describe('hasLossyNumber', () => {
  test.each([
    ['{"a":1e400}', true],
    ['{"a":-1e400}', true],
    ['{"a":-0}', true],
    ['{"a":-0.0}', true],
    ['{"a":123456789012345678901234567890}', true],
    ['{"a":9007199254740993}', true],
    ['{"a":0.10000000000000000001}', true],
    ['[1, 2, {"b": [3, -0]}]', true],
    ['{"a":1.0}', false],
    ['{"a":1E5,"b":100000,"c":1.5e-7}', false],
    ['{"a":0,"b":0.0,"c":-1,"d":9007199254740992}', false],
    ['{"a":0.1,"b":-2.5,"c":1e308}', false],
    ['{"text":"1e400 and -0 in a string","n":3}', false],
    ['{"escaped":"quote \\" then 1e400","n":[1,2]}', false],
  ])('%s → %s', (text, lossy) => {
    expect(hasLossyNumber(text)).toBe(lossy);
  });
});
