import type { SessionReport } from '../guard/internal.js';
import { type RecordedRequest } from '../recordings/internal.js';
import { type Difference, formatDifferences, maskSecrets, maskValue } from '../core/internal.js';
import type { ProxySummary } from '../proxy/internal.js';
import { describeMcpCall } from '../providers/internal.js';

/**
 * What `modeltape drift` found: every request of a run that the tape did not hold, each beside
 * its nearest recording with the differences addressed by JSON path. Rendered three ways: the
 * terminal, JSON (`--json`) and a self-contained HTML page (`--html FILE`).
 */
export interface DriftReport {
  /** The tape the run replayed. */
  tape: string;
  /** The command that ran, as given after `--`. */
  command: string[];
  totals: {
    /** Requests that reached the replay (the run's tape and the sessions' inside it). */
    requests: number;
    /** Requests the tape answered. */
    hits: number;
    /** Requests the tape did not hold (drifted), with or without a nearest recording. */
    drifted: number;
  };
  /** Drifted requests grouped by endpoint, most drifted first. */
  endpoints: DriftEndpoint[];
  /** Every drifted request, in the order the run sent them. */
  drifts: DriftItem[];
}

export interface DriftEndpoint {
  /** e.g. `POST /v1/chat/completions (openai)` */
  endpoint: string;
  drifted: number;
  /** The JSON paths that differed most often in this endpoint's drifts, most frequent first. */
  topPaths: Array<{ path: string; count: number }>;
}

/** One side of a drift: a request as sent, or as recorded. */
export interface DriftRequest {
  method: string;
  /** The provider path, e.g. `/v1/messages`. */
  path: string;
  upstream: string;
  query: Array<[string, string]>;
  /** The key headers and content-type. */
  headers: Record<string, string>;
  /** The body: parsed JSON, or text, or a note that it was binary. */
  body: { json: unknown } | { text: string } | { base64: string } | undefined;
}

export interface DriftItem {
  /** 0-based position among the drifts of the run. */
  index: number;
  /** The tape it drifted from, when not the run's own: a tape session opened inside the command. */
  tape?: string;
  /** e.g. `POST /v1/chat/completions (openai)` */
  endpoint: string;
  /** `unrecorded`: no exchange has this key; `exhausted`: called more often than recorded. */
  reason: 'unrecorded' | 'exhausted';
  key: string;
  sent: DriftRequest;
  /** The nearest recording (same method, path and upstream, fewest differing leaves), if any. */
  nearest: { line: number | undefined; key: string; request: DriftRequest } | undefined;
  /** The differing leaves, recorded vs sent (at most 50 kept). */
  differences: Difference[];
  /** How many leaves differ in all. */
  totalDifferences: number;
  /** The miss message the SDK would have seen. */
  message: string;
}

const MAX_DIFFERENCES_KEPT = 50;

// Where a request went: its method and path, or for an MCP call what it calls
// (`MCP tools/call get_weather (docs)`), whose path is the one endpoint of its server.
function endpointOf(upstream: string, request: RecordedRequest): string {
  const call = describeMcpCall(request);
  return call === undefined ? `${request.method} ${request.path} (${upstream})` : `MCP ${call} (${upstream})`;
}

/**
 * The drift report of a run, from what its proxy saw and what the tape sessions opened inside
 * its command (openTape in a test) reported.
 */
export function buildDriftReport(summary: ProxySummary, command: string[], sessions: readonly SessionReport[] = []): DriftReport {
  const own: DriftItem[] = summary.missErrors.map((miss, index) => ({
    index,
    endpoint: endpointOf(miss.upstream, miss.request),
    reason: miss.reason,
    key: miss.key,
    sent: driftRequest(miss.upstream, miss.request),
    nearest: miss.nearestExchange
      ? { line: miss.nearest?.line, key: miss.nearestExchange.key, request: driftRequest(miss.nearestExchange.upstream, miss.nearestExchange.request) }
      : undefined,
    differences: miss.differences.slice(0, MAX_DIFFERENCES_KEPT),
    totalDifferences: miss.totalDifferences,
    message: miss.message,
  }));
  const drifts = [...own, ...sessions.flatMap((session) => session.drifts as DriftItem[])].map((drift, index) => ({ ...drift, index }));
  const byEndpoint = new Map<string, { drifted: number; paths: Map<string, number> }>();
  for (const drift of drifts) {
    let group = byEndpoint.get(drift.endpoint);
    if (group === undefined) {
      group = { drifted: 0, paths: new Map() };
      byEndpoint.set(drift.endpoint, group);
    }
    group.drifted++;
    for (const difference of drift.differences) group.paths.set(generalize(difference.path), (group.paths.get(generalize(difference.path)) ?? 0) + 1);
  }
  const endpoints: DriftEndpoint[] = [...byEndpoint.entries()]
    .map(([endpoint, group]) => ({
      endpoint,
      drifted: group.drifted,
      topPaths: [...group.paths.entries()]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, 5)
        .map(([path, count]) => ({ path, count })),
    }))
    .sort((a, b) => b.drifted - a.drifted || (a.endpoint < b.endpoint ? -1 : 1));
  // Every string of the report masked once, here: a field added later cannot leak a key.
  return maskValue({
    tape: summary.tape,
    command,
    totals: {
      requests: summary.hits + summary.misses + sessions.reduce((sum, session) => sum + session.hits + session.misses, 0),
      hits: summary.hits + sessions.reduce((sum, session) => sum + session.hits, 0),
      drifted: summary.misses + sessions.reduce((sum, session) => sum + session.misses, 0),
    },
    endpoints,
    drifts,
  });
}

/** The report for a terminal: misses grouped by endpoint, with the paths that differ most. */
export function formatDriftReport(report: DriftReport): string {
  const lines = [
    `modeltape drift ${report.tape}: ${report.totals.requests} request${report.totals.requests === 1 ? '' : 's'}, ${report.totals.hits} replayed, ${report.totals.drifted} drifted`,
  ];
  for (const endpoint of report.endpoints) {
    lines.push(`  ${endpoint.endpoint}: ${endpoint.drifted} drifted`);
    for (const path of endpoint.topPaths) lines.push(`    ${path.path}  (${path.count}×)`);
  }
  if (report.drifts.length < report.totals.drifted) {
    lines.push(
      `  (details below for the first ${report.drifts.length}; the other ${report.totals.drifted - report.drifts.length} drifted requests are counted but not kept — fix these and run again)`,
    );
  }
  for (const drift of report.drifts) {
    lines.push('');
    const tape = drift.tape ?? report.tape;
    lines.push(
      `  #${drift.index} ${drift.endpoint}${drift.tape ? ` in ${drift.tape}` : ''} — ${drift.reason === 'exhausted' ? 'called more often than recorded' : drift.nearest ? `nearest recording at ${tape}:${drift.nearest.line ?? '?'}` : 'nothing recorded for this endpoint'}`,
    );
    for (const line of formatDifferences(drift.differences, drift.totalDifferences)) lines.push(`    ${line}`);
  }
  if (report.totals.drifted === 0) lines.push('  no drift: every request was recorded as sent');
  return maskSecrets(lines.join('\n'));
}

// `.messages[3].content` and `.messages[5].content` count as one path in the summary.
function generalize(path: string): string {
  return path.replace(/\[\d+\]/g, '[*]');
}

function driftRequest(upstream: string, request: RecordedRequest): DriftRequest {
  return { method: request.method, path: request.path, upstream, query: request.query, headers: request.headers, body: request.body };
}
