import { describe, expect, test } from 'vitest';
import { BoundedHistory, checkHistoryLimit } from './bounded-history.js';

describe('BoundedHistory', () => {
  test('keeps the latest entries, in order, and counts the dropped ones', () => {
    const history = new BoundedHistory<number>(3);
    for (let n = 0; n < 1000; n++) history.push(n);
    expect(history.entries()).toEqual([997, 998, 999]);
    expect([history.size, history.dropped, history.entries().dropped]).toEqual([3, 997, 997]);
  });

  test('keeps the first entries when told to', () => {
    const history = new BoundedHistory<string>(2, 'first');
    for (const entry of ['a', 'b', 'c', 'd']) history.push(entry);
    expect(history.entries()).toEqual(['a', 'b']);
    expect(history.dropped).toBe(2);
  });

  test('a limit of 0 keeps nothing, Infinity keeps everything; .dropped is not an element', () => {
    const none = new BoundedHistory<number>(0);
    const all = new BoundedHistory<number>(Number.POSITIVE_INFINITY);
    for (let n = 0; n < 500; n++) (none.push(n), all.push(n));
    expect([none.size, none.dropped, all.size, all.dropped]).toEqual([0, 500, 500, 0]);
    expect(Object.keys(all.entries())).toHaveLength(500);
    expect(all.entries()).toEqual(Array.from({ length: 500 }, (_, n) => n));
  });

  test('refuses a limit that is not a whole number of entries', () => {
    for (const limit of [-1, 1.5, Number.NaN])
      expect(() => checkHistoryLimit(limit)).toThrow(
        `Invalid historyLimit ${limit}: expected a whole number of entries (0 or more), or Infinity to keep every one.`,
      );
    expect([checkHistoryLimit(0), checkHistoryLimit(Number.POSITIVE_INFINITY)]).toEqual([0, Number.POSITIVE_INFINITY]);
  });
});
