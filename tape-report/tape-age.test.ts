import { describe, expect, test } from 'vitest';
import { ageLimitOf, daysBetween, parseMaxAge, staleVerdict, staleness } from './tape-age.js';

describe('the age of tapes', () => {
  test('--max-age takes days and weeks, and refuses months with the reason', () => {
    expect(parseMaxAge('90d')).toBe(90);
    expect(parseMaxAge('12w')).toBe(84);
    expect(parseMaxAge('30')).toBe(30);
    expect(parseMaxAge(7)).toBe(7);
    for (const bad of ['3m', '1y', '-5d', 'soon', '', '1.5d']) expect(() => parseMaxAge(bad), bad).toThrow(/write a number of days or weeks, e.g. 90d or 12w/);
  });

  test('--stale needs a max age, and takes only warn or fail', () => {
    expect(ageLimitOf(undefined, undefined)).toBeUndefined();
    expect(ageLimitOf('90d', undefined)).toEqual({ maxAgeDays: 90, stale: 'warn' });
    expect(() => ageLimitOf(undefined, 'fail')).toThrow(/give --max-age too/);
    expect(() => ageLimitOf('90d', 'panic')).toThrow(/warn, fail|"warn"/);
  });

  test('a tape is stale when its oldest exchange is older than the limit, or any exchange is undated', () => {
    expect(daysBetween('2026-01-31', '2026-03-01')).toBe(29);
    const limit = { maxAgeDays: 30, stale: 'fail' as const };
    const dates = { file: 't.jsonl', oldest: '2026-01-01', newest: '2026-02-01', undated: 0, exchanges: 2 };
    expect(staleness(dates, limit, '2026-01-31')).toBeUndefined();
    expect(staleness(dates, limit, '2026-02-01')).toBe('its oldest exchange was recorded on 2026-01-01, 31 days ago (the limit is 30)');
    expect(staleness({ ...dates, undated: 1, oldest: '2026-01-30' }, limit, '2026-01-31')).toMatch(/^1 of its 2 exchanges carries no recording date/);
    const verdict = staleVerdict([dates, { ...dates, file: 'fresh.jsonl', oldest: '2026-01-20' }], limit, '2026-02-05');
    expect(verdict.failed).toBe(true);
    expect(verdict.stale).toBe(1);
    expect(verdict.lines[0]).toBe('modeltape: stale tape t.jsonl: its oldest exchange was recorded on 2026-01-01, 35 days ago (the limit is 30).');
    expect(staleVerdict([dates], { ...limit, stale: 'warn' }, '2026-02-05')).toMatchObject({ failed: false, stale: 1 });
    expect(staleVerdict([dates], limit, '2026-01-02')).toEqual({ lines: [], failed: false, stale: 0 });
  });
});
