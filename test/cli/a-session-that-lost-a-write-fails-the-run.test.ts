import { describe, expect, it } from 'vitest';
import type { SessionReport } from '../../guard/internal.js';
import { runVerdict, type ProxySummary } from '../../proxy/internal.js';

const runProxy: ProxySummary = {
  tape: 'tapes/run.jsonl',
  mode: 'record',
  hits: 0,
  misses: 0,
  recorded: 0,
  replaced: 0,
  passthrough: 0,
  refused: 0,
  writeErrors: 0,
  upstreamErrors: 0,
  internalErrors: 0,
  aborted: 0,
  upstreamConnections: 0,
  problems: [],
  missErrors: [],
  pruned: 0,
  escapes: [],
  outside: [],
};

function session(overrides: Partial<SessionReport>): SessionReport {
  return {
    tape: 'tapes/session.jsonl',
    mode: 'record',
    process: 'node test.mjs (pid 1)',
    hits: 0,
    misses: 0,
    recorded: 2,
    replaced: 0,
    passthrough: 0,
    refused: 0,
    writeErrors: 0,
    upstreamErrors: 0,
    upstreamConnections: 1,
    problems: [],
    drifts: [],
    closed: true,
    ...overrides,
  };
}

describe('a run whose openTape session lost a write', () => {
  it('passes when every exchange of the session reached its tape', () => {
    const verdict = runVerdict(runProxy, { escapes: [], outside: [], sessions: [session({})], unreadable: 0 }, { allowEmpty: false });
    expect(verdict.failed).toBe(false);
  });

  it('fails, and its summary says how many exchanges were lost', () => {
    const lost = session({ writeErrors: 1, problems: ['Could not write 1 exchange to tapes/session.jsonl: ENOSPC no space left on device'] });
    const verdict = runVerdict(runProxy, { escapes: [], outside: [], sessions: [lost], unreadable: 0 }, { allowEmpty: false });
    expect(verdict.failed).toBe(true);
    expect(verdict.lines.join('\n')).toContain('1 lost to write errors');
    expect(verdict.lines.join('\n')).toContain('ENOSPC');
  });
});
