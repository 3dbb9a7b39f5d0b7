import { describeChaos } from './chaos.js';
import { describeEscape, sideChannelOf } from '../../guard/internal.js';
import { displayPath } from '../../core/internal.js';
import type { ProxySummary, UnusedRecordings } from './proxy-core.js';

/**
 * The summary a proxy prints when it stops, e.g.
 * `modeltape replay tapes/a.jsonl: 12 hits, 1 miss, 0 recorded, 0 passthrough, 0 refused, 0 upstream connections`
 * followed by one line per problem kept.
 */
export function formatSummary(summary: ProxySummary): string {
  const parts = [
    count(summary.hits, 'hit'),
    count(summary.misses, 'miss', 'misses'),
    describeRecorded(summary),
    `${summary.passthrough} passthrough`,
    `${summary.refused} refused`,
    count(summary.upstreamConnections, 'upstream connection'),
  ];
  if (summary.writeErrors > 0) parts.push(`${count(summary.writeErrors, 'exchange')} lost to write errors`);
  if (summary.upstreamErrors > 0) parts.push(count(summary.upstreamErrors, 'upstream error'));
  if (summary.internalErrors > 0) parts.push(`${count(summary.internalErrors, 'request')} modeltape failed on`);
  if (summary.aborted > 0) parts.push(`${summary.aborted} aborted`);
  if ((summary.unrouted ?? 0) > 0) parts.push(`${count(summary.unrouted!, 'request')} to no upstream`);
  if (summary.escapes.length > 0) parts.push(count(summary.escapes.length, 'escape'));
  const lines = [`modeltape ${summary.mode} ${displayPath(summary.tape)}: ${parts.join(', ')}`];
  if (summary.unused !== undefined) lines.push(...formatUnused(summary.tape, summary.unused, summary.mode));
  // The same problem many times (a full disk refuses every write alike) is one line, counted.
  const times = new Map<string, number>();
  for (const problem of summary.problems) times.set(problem, (times.get(problem) ?? 0) + 1);
  for (const [problem, count] of times) lines.push(`  - ${problem.split('\n').join('\n    ')}${count > 1 ? ` (${count}×)` : ''}`);
  const hidden =
    summary.misses +
    summary.refused +
    summary.writeErrors +
    summary.upstreamErrors +
    summary.internalErrors +
    (summary.unrouted ?? 0) -
    summary.problems.length;
  if (hidden > 0) lines.push(`  … and ${hidden} more`);
  lines.push(...formatEscapes(summary));
  // The chaos schedule, so a failing seed reproduces: every fault, its exchange and whether it fired.
  if (summary.chaos !== undefined) lines.push(describeChaos(summary.chaos, summary.chaos.faults, summary.tape));
  return lines.join('\n');
}

/** `2 recorded`, and in record mode which of them replaced a recording: `2 recorded (1 replaced, 1 new)`. */
export function describeRecorded(counts: { mode: string; recorded: number; replaced?: number }): string {
  if (counts.mode !== 'record' || counts.recorded === 0) return `${counts.recorded} recorded`;
  const replaced = counts.replaced ?? 0;
  return `${counts.recorded} recorded (${replaced} replaced, ${counts.recorded - replaced} new)`;
}

/**
 * The line that says which recordings a replay left unused, or none when it used them all:
 * `  1 of 2 recordings unused: tapes/agent.jsonl:3`. Not a failure: the strict assertions fail on it.
 */
export function formatUnused(tape: string, unused: UnusedRecordings, mode: string): string[] {
  if (unused.count === 0) return [];
  const shown = unused.lines.map((line) => `${displayPath(tape)}:${line}`);
  const more = unused.count - shown.length;
  const where = `${shown.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
  const next = mode === 'auto' ? '--prune drops them' : `modeltape inspect ${displayPath(tape)} --unused -- CMD lists them`;
  return [`  ${unused.count} of ${count(unused.total, 'recording')} unused: ${where} (${next})`];
}

// Microsoft Entra ID's token hosts, in every cloud (public, US Government, China).
const ENTRA_HOSTS = /(?:^|\.)(?:login\.microsoftonline\.(?:com|us)|login\.microsoft\.com|login\.chinacloudapi\.cn)\.?$/i;

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The lines that say what tried to leave the machine (stopped, failing the run) and which other
 * hosts were reached (listed only).
 */
export function formatEscapes(summary: Pick<ProxySummary, 'escapes' | 'outside'>): string[] {
  const lines: string[] = [];
  if (summary.escapes.length > 0) {
    lines.push(
      `  ${summary.escapes.length} connection${summary.escapes.length === 1 ? '' : 's'} to a provider tried to leave the machine and ${summary.escapes.length === 1 ? 'was' : 'were'} stopped before any byte was sent:`,
    );
    const seen = new Map<string, number>();
    for (const escape of summary.escapes) seen.set(describeEscape(escape), (seen.get(describeEscape(escape)) ?? 0) + 1);
    for (const [line, times] of [...seen].slice(0, 20)) lines.push(`    ${line}${times > 1 ? ` (${times}×)` : ''}`);
    if (seen.size > 20) lines.push(`    … and ${seen.size - 20} more`);
    const advice = new Set(summary.escapes.map((escape) => sideChannelOf(escape.host, escape.path)?.advice).filter((text) => text !== undefined));
    for (const text of advice) lines.push(`  ${text}`);
    if (summary.escapes.some((escape) => sideChannelOf(escape.host, escape.path) === undefined)) {
      lines.push(
        '  Point those clients at the proxy by base URL (modeltape run sets OPENAI_BASE_URL and ANTHROPIC_BASE_URL for the command), or give them session.fetch in tests.',
      );
    }
  }
  if (summary.outside.length > 0) {
    lines.push(`  connections to other hosts off this machine (not providers; listed, not failing):`);
    for (const connection of summary.outside.slice(0, 20)) {
      lines.push(
        `    ${connection.via} → ${connection.host}:${connection.port}${connection.process ? ` (${connection.process})` : ''}${connection.count > 1 ? ` ${connection.count}×` : ''}${connection.via === 'proxy' ? ', refused by the proxy' : ''}`,
      );
    }
    if (summary.outside.length > 20) lines.push(`    … and ${summary.outside.length - 20} more`);
    if (summary.outside.some((connection) => ENTRA_HOSTS.test(connection.host)))
      lines.push(
        '  Microsoft Entra ID is where an explicit ClientSecretCredential, ClientCertificateCredential or WorkloadIdentityCredential (@azure/identity) asks for a token: build the credential with DefaultAzureCredential, which modeltape run points at its stand-in managed identity in replay (docs/azure.md, "Entra ID").',
      );
  }
  return lines;
}

/** True when the run should fail: a miss, a refused or failed write, an upstream failure, a request modeltape failed on, or an escape. */
export function summaryFailed(summary: ProxySummary): boolean {
  return (
    summary.misses > 0 ||
    summary.refused > 0 ||
    summary.writeErrors > 0 ||
    summary.upstreamErrors > 0 ||
    summary.internalErrors > 0 ||
    (summary.unrouted ?? 0) > 0 ||
    summary.escapes.length > 0
  );
}
