import { formatEscapes, runUnderProxy } from '../proxy/internal.js';
import { buildDriftReport, formatDriftReport, renderDriftHtml } from '../drift-report/internal.js';
import { describeFlags, parseArguments, UsageError, type FlagSpec } from './arguments.js';
import type { ResolvedCommandIo } from './io.js';
import { writeReportFile } from './write-report-file.js';
import { PROXY_FLAGS, proxyOptionsFrom } from './proxy-flags.js';
import { DEFAULT_RUN_TAPE } from './run-command.js';

// Drift only replays: the flags of recording are not its own, and it writes nothing to the tape.
const FLAGS: readonly FlagSpec[] = [
  ...PROXY_FLAGS.filter((flag) => !['mode', 'prune', 'append', 'allow-record-in-ci', 'max-response-body'].includes(flag.name)).map((flag) =>
    flag.name === 'tape' ? { ...flag, description: 'the tape to replay; drift never writes to it' } : flag,
  ),
  { name: 'json', kind: 'boolean', description: 'print the report as JSON on stdout' },
  { name: 'html', kind: 'string', value: 'FILE', description: 'also write the report as a self-contained HTML page' },
];

export const DRIFT_USAGE = `Usage: modeltape drift [--tape FILE] [--json] [--html FILE] -- CMD [ARG]…

Runs CMD against a replay of the tape without stopping at the first miss: a request the tape
does not hold is answered as its nearest recording was, so the run goes on and every drifted
request is collected. Then it reports them: in the terminal grouped by endpoint with the paths
that differ most, as JSON with --json, and as a page to read with --html FILE (each drifted
request beside its nearest recording, differences highlighted). Exits 1 when anything drifted.

${describeFlags(FLAGS)}`;

export async function driftCommand(argv: readonly string[], io: ResolvedCommandIo): Promise<number> {
  const parsed = parseArguments(argv, FLAGS, 'drift');
  if (parsed.flags.help === true) {
    io.stdout.write(`${DRIFT_USAGE}\n`);
    return 0;
  }
  if (parsed.command === undefined || parsed.command.length === 0)
    throw new UsageError('modeltape drift needs a command after --, e.g. modeltape drift --tape tapes/a.jsonl -- npm test');
  if (parsed.positionals.length > 0) throw new UsageError(`Unexpected argument ${JSON.stringify(parsed.positionals[0])} before --. Put the command after --.`);
  const options = {
    ...proxyOptionsFrom(parsed, { tape: DEFAULT_RUN_TAPE, port: 0 }, io.cwd),
    mode: 'replay' as const,
    onMiss: 'nearest' as const,
    log: () => undefined,
  };
  // Without --tape the command may replay from its own tapes (openTape in its tests).
  if (parsed.flags.tape === undefined) options.missingTape = 'empty';
  const json = parsed.flags.json === true;
  const { summary, report: runReport, commandStatus } = await runUnderProxy(options, parsed.command, io, json ? 'stderr' : 'inherit');
  const report = buildDriftReport(summary, [...parsed.command], runReport.sessions);
  const escapes = formatEscapes(summary);
  if (escapes.length > 0) io.stderr.write(`${escapes.join('\n')}\n`);
  if (json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else io.stderr.write(`${formatDriftReport(report)}\n`);
  const html = parsed.flags.html as string | undefined;
  if (html !== undefined) writeReportFile(io, 'drift', html, renderDriftHtml(report));
  if (report.totals.drifted > 0 || summary.escapes.length > 0) return 1;
  return commandStatus;
}
