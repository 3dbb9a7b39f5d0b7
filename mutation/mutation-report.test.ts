import { describe, expect, test } from 'vitest';
import { buildMutationReport, diffLines, formatMutationReport, renderMutationHtml, type MutantResult } from './mutation-report.js';

const result = (id: string, outcome: MutantResult['outcome'], extra: Partial<MutantResult> = {}): MutantResult => ({
  id,
  tape: 'tapes/a.jsonl',
  line: 2,
  endpoint: 'POST /v1/chat/completions (openai)',
  operator: 'text-negated',
  variant: '',
  description: 'text "is" → "is not"',
  before: 'It is <b>sunny</b>.',
  after: 'It is not <b>sunny</b>.',
  outcome,
  detail: '',
  ...extra,
});

describe('the mutation report', () => {
  const run = { command: ['npm', 'test'], seed: '1', tapes: ['tapes/a.jsonl'], candidates: 9, unusedExchanges: 2, unmutable: 0 };

  test('scores detected over reached: killed, killed by the replay and timed out count; not reached is left out', () => {
    const report = buildMutationReport({
      ...run,
      mutants: [
        result('m1', 'killed'),
        result('m2', 'killed-by-replay'),
        result('m3', 'timeout'),
        result('m4', 'survived'),
        result('m5', 'not-reached'),
        result('m6', 'survived'),
      ],
    });
    expect(report.counts).toEqual({ killed: 1, 'killed-by-replay': 1, survived: 2, timeout: 1, 'not-reached': 1 });
    expect(report.score).toBe(60);
    expect(buildMutationReport({ ...run, mutants: [result('m1', 'not-reached')] }).score).toBeNull();
  });

  test('the terminal report names each survivor with its diff, and what was not mutated', () => {
    const text = formatMutationReport(buildMutationReport({ ...run, mutants: [result('m1', 'killed'), result('m2', 'survived', { variant: 'call 1' })] }));
    expect(text).toContain('mutation score 50% (1 of 2 detected)');
    expect(text).toContain(
      '  m2 tapes/a.jsonl:2 POST /v1/chat/completions (openai): text-negated (call 1): text "is" → "is not"\n      - It is <b>sunny</b>.\n      + It is not <b>sunny</b>.',
    );
    expect(text).not.toContain('m1 tapes');
    expect(text).toContain('2 exchanges no test used were not mutated');
    expect(diffLines('', 'a\nb')).toEqual(['- (empty)', '+ a', '+ b']);
  });

  test('the page escapes what the tape holds', () => {
    const html = renderMutationHtml(buildMutationReport({ ...run, mutants: [result('m1', 'survived', { tape: 'tapes/<x>.jsonl' })] }));
    expect(html).toContain('- It is &lt;b&gt;sunny&lt;/b&gt;.');
    expect(html).toContain('tapes/&lt;x&gt;.jsonl:2');
    expect(html).not.toContain('<b>sunny');
    expect(html).toContain('<span id="score">0%</span>');
  });
});
