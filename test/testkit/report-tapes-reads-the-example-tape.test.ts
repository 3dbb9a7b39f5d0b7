import { fileURLToPath } from 'node:url';
import { formatTapeReport, parseMaxAge, reportTapes } from 'modeltape/testkit';
import { describe, expect, test } from 'vitest';

// reportTapes, from the package: the example tape (a tool call, then a streamed answer, recorded
// on 2025-11-30) read as a test would read it, to hold a suite to a budget or an age.
const TAPE = fileURLToPath(new URL('../../examples/tapes/weather.jsonl', import.meta.url));

describe('reportTapes from modeltape/testkit', () => {
  test('reads coverage, tokens, cost and age from the example tape', () => {
    const report = reportTapes([TAPE], { now: new Date('2026-02-28T00:00:00Z'), ageLimit: { maxAgeDays: parseMaxAge('90d'), stale: 'fail' }, maxTokens: 1000 });
    expect(report.coverage.behaviours.filter((behaviour) => behaviour.count > 0).map((behaviour) => behaviour.name)).toEqual([
      'streamed',
      'not-streamed',
      'tool-call',
      'finish-stop',
      'finish-tool-calls',
    ]);
    // 64 + 15 tokens for the tool call and 96 + 9 for the stream, of gpt-4.1-mini at $0.40 / $1.60 per million.
    expect(report.totals.tokens).toMatchObject({ output: 24, total: 184 });
    expect(report.totals.costUsd).toBeCloseTo((160 * 0.4 + 24 * 1.6) / 1e6, 12);
    expect(report.tapes[0]).toMatchObject({ oldest: '2025-11-30', ageDays: 90, stale: undefined });
    expect(report.failures).toEqual([]);
    const dayLater = reportTapes([TAPE], { now: new Date('2026-03-01T00:00:00Z'), ageLimit: { maxAgeDays: 90, stale: 'fail' } });
    expect(dayLater.failures).toEqual([expect.stringContaining('91 days ago (the limit is 90)')]);
    expect(formatTapeReport(dayLater)).toContain('modeltape: stale tape');
  });
});
