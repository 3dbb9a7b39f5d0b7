import type { ProxySummary } from './proxy-server.js';

/**
 * The summary a proxy prints when it stops, e.g.
 * `modeltape replay tapes/a.jsonl: 12 hits, 1 miss, 0 recorded, 0 passthrough, 0 refused, 0 upstream connections`
 * followed by one line per problem kept.
 */
export function formatSummary(summary: ProxySummary): string {
  const count = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
  const parts = [
    count(summary.hits, 'hit'),
    count(summary.misses, 'miss', 'misses'),
    `${summary.recorded} recorded`,
    `${summary.passthrough} passthrough`,
    `${summary.refused} refused`,
    count(summary.upstreamConnections, 'upstream connection'),
  ];
  if (summary.upstreamErrors > 0) parts.push(count(summary.upstreamErrors, 'upstream error'));
  if (summary.aborted > 0) parts.push(`${summary.aborted} aborted`);
  const lines = [`modeltape ${summary.mode} ${summary.tape}: ${parts.join(', ')}`];
  for (const problem of summary.problems) lines.push(`  - ${problem.split('\n').join('\n    ')}`);
  const hidden = summary.misses + summary.refused + summary.upstreamErrors - summary.problems.length;
  if (hidden > 0) lines.push(`  … and ${hidden} more`);
  return lines.join('\n');
}

/** True when the run should fail: a miss, a refused write, or an upstream failure. */
export function summaryFailed(summary: ProxySummary): boolean {
  return summary.misses > 0 || summary.refused > 0 || summary.upstreamErrors > 0;
}
