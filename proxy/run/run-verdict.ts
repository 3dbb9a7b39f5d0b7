import { displayPath } from '../../core/internal.js';
import type { RunReport, SessionReport } from '../../guard/internal.js';
import { unretriedFaults } from '../core/chaos.js';
import type { ProxySummary } from '../core/proxy-core.js';
import { describeRecorded, formatSummary, formatUnused, summaryFailed } from '../core/summary.js';
import type { UnusedOnTape } from './unused-recordings.js';
import type { OfflineLayer } from './network-namespace.js';

/** Requests a session or a proxy saw, of any kind: a chaos fault answered one too. */
function traffic(counts: Pick<ProxySummary, 'hits' | 'misses' | 'recorded' | 'passthrough'> & Pick<Partial<ProxySummary>, 'chaos' | 'unrouted'>): number {
  const faults = counts.chaos?.faults.filter((fault) => fault.fired).length ?? 0;
  return counts.hits + counts.misses + counts.recorded + counts.passthrough + faults + (counts.unrouted ?? 0);
}

// Under a replay run a session that recorded or passed through reached a provider.
function sessionFailed(session: SessionReport, replay: boolean): boolean {
  return (
    session.misses > 0 ||
    session.refused > 0 ||
    session.writeErrors > 0 ||
    session.upstreamErrors > 0 ||
    (session.internalErrors ?? 0) > 0 ||
    (replay && (session.recorded > 0 || session.passthrough > 0))
  );
}

/** What a `run` concluded: whether it fails by what the proxies saw, and the lines that say so. */
export interface RunVerdict {
  failed: boolean;
  /** No request reached any tape (the run's or a session's). */
  empty: boolean;
  lines: string[];
}

/**
 * The run's summary: its own proxy's, then the tape sessions opened inside the command
 * (`openTape`), whose traffic counts toward the run, then what left the machine. A replay that
 * no request reached fails unless `allowEmpty`: it proved nothing.
 */
export function runVerdict(
  summary: ProxySummary,
  report: RunReport,
  options: {
    allowEmpty: boolean;
    /** The recordings the run left unused, the run's own tape and its sessions' together (see unusedAcrossRun); its own proxy's alone when not given. */
    unused?: readonly UnusedOnTape[];
    /** False when the command could not be started (exit 127): nothing ran, and that is what the run says. */
    commandStarted?: boolean;
    /** In replay: which layer kept the command off the network. @default the guard */
    offline?: OfflineLayer;
  },
): RunVerdict {
  const { unused: _own, ...withoutUnused } = summary;
  const lines = [formatSummary(options.unused === undefined ? summary : withoutUnused)];
  for (const tape of options.unused ?? []) lines.push(...formatUnused(tape.tape, tape.unused, tape.mode));
  // A fault the client never retried is what a chaos run fails on: say it before anything else does.
  const unretried = summary.chaos === undefined ? [] : unretriedFaults(summary.chaos.faults);
  if (unretried.length > 0) {
    lines.push(
      `  the command did not survive ${unretried.length === 1 ? 'a chaos fault' : `${unretried.length} chaos faults`}: ${unretried.length === 1 ? 'its request was' : 'their requests were'} never sent again, so the client did not retry (a retry is answered from the tape):`,
    );
    for (const fault of unretried.slice(0, 10))
      lines.push(`    ${fault.kind} at ${displayPath(summary.tape)}:${fault.line ?? '?'} ${fault.endpoint} (ordinal ${fault.ordinal})`);
    lines.push('  Give the client retries (the official SDKs retry twice by default; maxRetries: 0 turns that off), or choose other --chaos-kinds.');
  }
  const sessions = report.sessions;
  if (sessions.length > 0) {
    const total = sessions.reduce((sum, session) => sum + traffic(session), 0);
    lines.push(
      `  ${sessions.length} tape session${sessions.length === 1 ? '' : 's'} opened inside the command (openTape): ${total} request${total === 1 ? '' : 's'}`,
    );
    for (const session of sessions.slice(0, 30)) {
      const parts = [
        `${session.hits} hit${session.hits === 1 ? '' : 's'}`,
        `${session.misses} miss${session.misses === 1 ? '' : 'es'}`,
        describeRecorded(session),
      ];
      if (session.refused > 0) parts.push(`${session.refused} refused`);
      if (session.writeErrors > 0) parts.push(`${session.writeErrors} lost to write errors`);
      if (session.upstreamErrors > 0) parts.push(`${session.upstreamErrors} upstream errors`);
      if ((session.internalErrors ?? 0) > 0) parts.push(`${session.internalErrors} requests modeltape failed on`);
      lines.push(`    ${session.mode} ${displayPath(session.tape)}: ${parts.join(', ')}${session.closed ? '' : ' (its process exited before close())'}`);
      for (const problem of session.problems.slice(0, 3)) lines.push(`      - ${problem.split('\n')[0]}`);
    }
    if (sessions.length > 30) lines.push(`    … and ${sessions.length - 30} more`);
  }
  if (report.lost === true)
    lines.push(
      "  the run's report file was removed while the command ran (a clean-up of the temporary folder?): what its processes stopped or saw is unknown, so the run fails.",
    );
  if (report.unreadable > 0)
    lines.push(
      `  ${report.unreadable} report line${report.unreadable === 1 ? '' : 's'} from the command's processes could not be read back (a process killed mid-write, or a disk that filled up mid-line): what they stopped or saw is not all known, so the run fails.`,
    );
  const unreported = report.unreported ?? [];
  if (unreported.length > 0)
    lines.push(
      `  ${unreported.length} record${unreported.length === 1 ? '' : 's'} the command's processes could not write to the run's report (${[...new Set(unreported)].slice(0, 5).join(', ')}): what they stopped or saw is not all known, so the run fails. ` +
        'The report lives in the temporary folder (TMPDIR): free space there, or point TMPDIR at a disk with room.',
    );
  const seen = traffic(summary) + sessions.reduce((sum, session) => sum + traffic(session), 0);
  const empty = summary.mode === 'replay' && seen === 0;
  const started = options.commandStarted !== false;
  let failed =
    summaryFailed(summary) ||
    sessions.some((session) => sessionFailed(session, summary.mode === 'replay')) ||
    report.lost === true ||
    report.unreadable > 0 ||
    unreported.length > 0;
  if (empty && !started) {
    // The command never ran: its own error says why, and no advice about clients applies.
    failed = true;
  } else if (empty) {
    if (options.allowEmpty) lines.push('  no request reached a tape; accepted (--allow-empty).');
    else {
      failed = true;
      lines.push(
        '  no request reached a tape: a replay that replayed nothing proved nothing.\n' +
          "  Check that the command's clients reach the proxy (OPENAI_BASE_URL and ANTHROPIC_BASE_URL are set for it, or give them session.fetch in tests), or pass --allow-empty if this run is meant to make no model call.",
      );
    }
  } else if (summary.mode === 'replay') {
    const answered = summary.hits + sessions.reduce((sum, session) => sum + session.hits, 0);
    // Which layer held: the namespace holds for every process; the guard only for what it sees (a
    // Node process whose NODE_OPTIONS was replaced has none).
    const requests = `${seen} request${seen === 1 ? '' : 's'} reached the tapes (${answered} answered)`;
    const stopped = summary.escapes.length === 0 && report.lost !== true && report.unreadable === 0 && unreported.length === 0;
    const offline = options.offline ?? { layer: 'guard' as const };
    lines.push(
      offline.layer === 'namespace'
        ? `  offline: network namespace. The command had only its own loopback, with the proxy${offline.allowedPorts.length === 0 ? '' : ` and port${offline.allowedPorts.length === 1 ? '' : 's'} ${offline.allowedPorts.join(', ')}`} relayed into it; ${requests}${stopped ? ', and the guard inside stopped nothing' : ''}.`
        : `  offline: guard. ${requests}${stopped ? ', and no guarded process reached a provider' : ''}.`,
    );
  }
  return { failed, empty, lines };
}
