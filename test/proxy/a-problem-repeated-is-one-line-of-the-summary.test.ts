import { describe, expect, test } from 'vitest';
import { formatSummary, type ProxySummary } from 'modeltape/proxy';

const full = 'Could not write 1 exchange to tapes/t.jsonl: the disk is full (ENOSPC: no space left on device, write); the tape was left as it was before.';

function summary(problems: string[], writeErrors: number): ProxySummary {
  return {
    tape: 'tapes/t.jsonl',
    mode: 'record',
    hits: 0,
    misses: 0,
    recorded: 2,
    replaced: 0,
    passthrough: 0,
    refused: 0,
    writeErrors,
    upstreamErrors: 0,
    internalErrors: 0,
    aborted: 0,
    upstreamConnections: 1,
    problems,
    missErrors: [],
    pruned: 0,
    escapes: [],
    outside: [],
  };
}

describe('the summary of a proxy that saw one problem many times', () => {
  test('prints it once with how many times, and still counts the ones it did not keep', () => {
    const text = formatSummary(summary([full, full, full, 'Refused to write POST /v1/chat/completions (openai): other'], 25));
    expect(text.split('\n').filter((line) => line.includes('the disk is full'))).toEqual([`  - ${full} (3×)`]);
    expect(text).toContain('Refused to write POST /v1/chat/completions (openai): other');
    expect(text).toContain('25 exchanges lost to write errors');
    expect(text).toContain('… and 21 more');
  });
});
