import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ModeltapeError, checkChoice } from '../core/internal.js';
import {
  MUTATION_OPERATORS,
  ShardMergeError,
  SuiteFailsOnTapesError,
  formatMutationReport,
  mergeMutationReports,
  mutateSuite,
  readShardReport,
  renderMutationHtml,
  type ShardChoice,
  type MutantResult,
  type MutationOperator,
  type MutationReport,
} from '../mutation/internal.js';
import { describeFlags, parseArguments, UsageError, type FlagSpec, type ParsedArguments } from './arguments.js';
import { writeControl, type ResolvedCommandIo } from './io.js';
import { writeReportFile } from './write-report-file.js';
import { loadConfig } from '../proxy/internal.js';
import { NETWORK_FLAGS, PROXY_FLAGS, networkFrom, proxyOptionsFrom } from './proxy-flags.js';
import { expandTapeArguments } from './tape-globs.js';

const FLAGS: readonly FlagSpec[] = [
  {
    name: 'tape',
    kind: 'list',
    value: 'FILE',
    description: 'a tape to mutate (a glob, quoted, names many); repeatable. The proxy CMD reaches serves the first',
  },
  { name: 'max', kind: 'integer', value: 'N', description: 'try at most N mutants, chosen from --seed, each operator in turn (default all)' },
  { name: 'seed', kind: 'string', value: 'SEED', description: 'chooses the mutants under --max: the same seed gives the same mutants (default 1)' },
  { name: 'operators', kind: 'string', value: 'OPS', description: `a comma list of ${MUTATION_OPERATORS.join(', ')} (default all)` },
  {
    name: 'shard',
    kind: 'string',
    value: 'I/N',
    description:
      'run only shard I of N of the mutants (every shard lists the same ones; a CI matrix runs 1/N to N/N, and --merge puts their --json reports together)',
  },
  {
    name: 'merge',
    kind: 'boolean',
    description: "merge the shards' --json reports named after it into the whole run's report (printed, --json, --html, --min-score as one run); runs nothing",
  },
  {
    name: 'selective',
    kind: 'boolean',
    description:
      'run each mutant with only the tests (or test files) that read its exchange on the real tapes (vitest, jest or node --test commands, tapes opened inside tests); the whole command where that is not known',
  },
  { name: 'jobs', kind: 'integer', value: 'N', description: 'mutants run at once, each with its own proxy and tape copy (default the number of cores)' },
  {
    name: 'timeout',
    kind: 'string',
    value: 'TIME',
    description: 'kill a mutant run after TIME (30s, 2m, 500ms) and count it detected (default 5× the first run + 10s)',
  },
  { name: 'min-score', kind: 'string', value: 'PERCENT', description: 'exit 1 when the mutation score is below PERCENT (0–100)' },
  { name: 'json', kind: 'boolean', description: 'print the report as JSON on stdout' },
  { name: 'html', kind: 'string', value: 'FILE', description: 'also write the report as a self-contained HTML page' },
  ...PROXY_FLAGS.filter((flag) => ['upstream', 'config', 'help'].includes(flag.name)),
  ...NETWORK_FLAGS,
];

export const MUTATE_USAGE = `Usage: modeltape mutate --tape FILE… [--max N] [--seed SEED] [--jobs N] [--shard I/N] [--selective] -- CMD [ARG]…
       modeltape mutate --merge REPORT.json… [--min-score PERCENT] [--json] [--html FILE]

Asks whether a suite notices when the model answers differently. Runs CMD once on the real tapes
(it must pass), then once per mutant: a copy of a tape with exactly one recorded answer changed on
its real bytes — the text negated, emptied or another number, a tool call's argument changed, a
call dropped, renamed or reordered, the finish reason length or content filter, a refusal, a
stream cut short or ending in an error, a structured-output field removed or retyped, or the
provider's 429 / 500 / overloaded — replayed strictly as modeltape run replays.

A mutant is killed when CMD fails (or a later request misses: the code acted on the change), and
survives when CMD passes: each survivor is a place the suite does not look. Only exchanges the
first run used are mutated. CMD reaches the mutant through the proxy (its base-URL variables, as
under modeltape run) or through openTape / FakeProvider.fromTape on any --tape, which open the
mutant copy in place of the tape. Nothing is written to the tapes.

Prints the survivors with the diff of each answer and the mutation score; --json and --html FILE
give the whole report. Exit 1 when the first run fails, no mutant could be made, or the score is
below --min-score.

Over a CI matrix: each job runs --shard I/N --json > report-I.json (the first run on the real
tapes in every job, then every N-th mutant), and one more job runs --merge on the N reports: the
report one whole run would print, byte for byte, and its --min-score. --merge refuses reports of
other runs (seed, tapes, command, mutants, N) and a shard missing or given twice.

${describeFlags(FLAGS)}`;

export async function mutateCommand(argv: readonly string[], io: ResolvedCommandIo): Promise<number> {
  const parsed = parseArguments(argv, FLAGS, 'mutate');
  if (parsed.flags.help === true) {
    io.stdout.write(`${MUTATE_USAGE}\n`);
    return 0;
  }
  if (parsed.flags.merge === true) return mergeCommand(parsed, io);
  if (parsed.command === undefined || parsed.command.length === 0)
    throw new UsageError('modeltape mutate needs the command that runs the suite, after --: modeltape mutate --tape tapes/a.jsonl -- npm test');
  if (parsed.positionals.length > 0)
    throw new UsageError(`Unexpected argument ${JSON.stringify(parsed.positionals[0])} before --. Name tapes with --tape FILE, and put the command after --.`);
  const patterns = (parsed.flags.tape as string[] | undefined) ?? [];
  if (patterns.length === 0)
    throw new UsageError("modeltape mutate needs the tapes to mutate: --tape FILE (repeatable, or a quoted glob: --tape 'tapes/**/*.jsonl').");
  const options = mutateOptions(parsed.flags);
  const shard = parsed.flags.shard === undefined ? undefined : parseShard(parsed.flags.shard as string);
  if (shard !== undefined && options.minScore !== undefined)
    throw new UsageError(
      `--min-score judges the whole run, not shard ${shard.index}/${shard.count}: give it to modeltape mutate --merge with every shard's --json report.`,
    );
  const files = expandTapeArguments(patterns, io.cwd, 'mutate', 'nothing was run');
  const { tape: _tape, mode: _mode, ...proxy } = proxyOptionsFrom(parsed, { tape: files[0]!, port: 0 }, io.cwd);
  const progress = mutantProgress(io);
  // Ctrl-C stops every mutant's process group, not only this process.
  const aborting = new AbortController();
  const onSignal = (): void =>
    aborting.abort(
      new ModeltapeError('mutate_stopped', 'modeltape mutate was stopped (SIGINT or SIGTERM): every running mutant was stopped, and no report was made.'),
    );
  io.signals.on('SIGINT', onSignal);
  io.signals.on('SIGTERM', onSignal);
  const started = performance.now();
  let report: MutationReport;
  try {
    report = await mutateSuite({
      tapes: files,
      command: parsed.command,
      cwd: io.cwd,
      env: io.env,
      seed: options.seed,
      ...(options.max === undefined ? {} : { max: options.max }),
      ...(options.operators === undefined ? {} : { operators: options.operators }),
      ...(options.jobs === undefined ? {} : { jobs: options.jobs }),
      ...(shard === undefined ? {} : { shard }),
      ...(parsed.flags.selective === true ? { selective: true } : {}),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      network: networkFrom(parsed, loadConfig(parsed.flags.config as string | undefined, io.cwd).config, io.env),
      proxy,
      onMutant: progress,
      log: (message) => io.stderr.write(`${message}\n`),
      signal: aborting.signal,
    });
  } catch (error) {
    if (error instanceof SuiteFailsOnTapesError) io.stderr.write(`${error.output}\n`);
    throw error;
  } finally {
    progress.end();
    io.signals.off('SIGINT', onSignal);
    io.signals.off('SIGTERM', onSignal);
  }
  const elapsedMs = performance.now() - started;
  const count = report.mutants.length;
  return printReport(report, parsed.flags, options.minScore, io, () =>
    io.stderr.write(
      `modeltape mutate: ${count} mutant${count === 1 ? '' : 's'} in ${(elapsedMs / 1000).toFixed(1)} s (${((count / elapsedMs) * 60_000).toFixed(1)} a minute)\n`,
    ),
  );
}

// The report as a run prints it (--json or the text on stdout, --html, --min-score's exit status),
// whether the run just ended or its shards were merged: one path, so the two print the same bytes.
function printReport(
  report: MutationReport,
  flags: Record<string, unknown>,
  minScore: number | undefined,
  io: ResolvedCommandIo,
  afterPrint: () => void,
): number {
  if (flags.json === true) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else io.stdout.write(`${formatMutationReport(report)}\n`);
  afterPrint();
  const html = flags.html as string | undefined;
  if (html !== undefined) writeReportFile(io, 'mutate', html, renderMutationHtml(report));
  if (minScore !== undefined && (report.score ?? 0) < minScore) {
    io.stderr.write(`modeltape mutate: the mutation score ${report.score ?? 'n/a'}% is below --min-score ${minScore}.\n`);
    return 1;
  }
  return 0;
}

// What --merge takes: it prints a report, and runs nothing.
const MERGE_FLAGS = ['merge', 'min-score', 'json', 'html', 'help'];

// modeltape mutate --merge REPORT…: the shards' reports, read and checked, as one run's report.
function mergeCommand(parsed: ParsedArguments, io: ResolvedCommandIo): number {
  const running = FLAGS.map((flag) => flag.name).filter((name) => !MERGE_FLAGS.includes(name) && parsed.flags[name] !== undefined);
  if (running.length > 0 || parsed.command !== undefined)
    throw new UsageError(
      `modeltape mutate --merge runs nothing: it takes the shards' reports, --min-score, --json and --html, not ${running.length > 0 ? `--${running[0]}` : 'a command after --'}. Each shard's run had its own: modeltape mutate --merge report-1.json report-2.json.`,
    );
  if (parsed.positionals.length === 0)
    throw new UsageError(
      "modeltape mutate --merge needs the shards' reports: modeltape mutate --merge report-1.json report-2.json (each from modeltape mutate --shard I/N --json).",
    );
  const { minScore } = mutateOptions(parsed.flags);
  const reports = parsed.positionals.map((file) => {
    let text: string;
    try {
      text = readFileSync(resolve(io.cwd, file), 'utf8');
    } catch (error) {
      throw new ShardMergeError(
        'mutation_report_invalid',
        `modeltape mutate --merge: could not read ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'there is no such file' : (error as Error).message}. Name each shard's --json report.`,
        file,
      );
    }
    return { file, report: readShardReport(file, text) };
  });
  return printReport(mergeMutationReports(reports), parsed.flags, minScore, io, () => undefined);
}

/** `--shard I/N`: shard I (1 to N) of N. */
function parseShard(text: string): ShardChoice {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (match === null || !(count >= 1 && index >= 1 && index <= count && Number.isSafeInteger(count)))
    throw new UsageError(`--shard needs I/N, shard I from 1 to N of N (--shard 2/4), got ${JSON.stringify(text)}.`);
  return { index, count };
}

interface MutateOptions {
  seed: string;
  max: number | undefined;
  operators: MutationOperator[] | undefined;
  jobs: number | undefined;
  timeoutMs: number | undefined;
  minScore: number | undefined;
}

function mutateOptions(flags: Record<string, unknown>): MutateOptions {
  const operators =
    flags.operators === undefined
      ? undefined
      : (flags.operators as string)
          .split(',')
          .map((operator) => operator.trim())
          .filter((operator) => operator !== '')
          .map((operator) => checkChoice('mutation operator', operator, MUTATION_OPERATORS));
  if (operators !== undefined && operators.length === 0) throw new UsageError(`--operators needs at least one of ${MUTATION_OPERATORS.join(', ')}.`);
  const max = flags.max as number | undefined;
  if (max === 0) throw new UsageError('--max 0 would try no mutant: give 1 or more, or leave it out for all.');
  const jobs = flags.jobs as number | undefined;
  if (jobs === 0) throw new UsageError('--jobs needs 1 or more.');
  const minScoreText = flags['min-score'] as string | undefined;
  const minScore = minScoreText === undefined ? undefined : Number(minScoreText);
  if (minScore !== undefined && !(minScore >= 0 && minScore <= 100))
    throw new UsageError(`--min-score needs a percentage from 0 to 100, got ${JSON.stringify(minScoreText)}.`);
  const timeout = flags.timeout as string | undefined;
  return {
    seed: (flags.seed as string | undefined) ?? '1',
    max,
    operators,
    jobs,
    timeoutMs: timeout === undefined ? undefined : parseDuration(timeout),
    minScore,
  };
}

/** `500ms`, `30s`, `2m`, or whole milliseconds. */
function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (match === null || Number(match[1]) <= 0) throw new UsageError(`--timeout needs a time above zero such as 30s, 2m or 500ms, got ${JSON.stringify(text)}.`);
  const unit = match[2] ?? 'ms';
  return Math.round(Number(match[1]) * (unit === 'm' ? 60_000 : unit === 's' ? 1000 : 1));
}

// One line a mutant on a terminal (rewritten in place); one line per mutant in a log.
function mutantProgress(io: ResolvedCommandIo): ((result: MutantResult, done: number, total: number) => void) & { end(): void } {
  const tty = io.stderr.isTTY === true;
  let shown = 0;
  let detected = 0;
  let survived = 0;
  const report = ((result: MutantResult, done: number, total: number) => {
    shown = done;
    if (result.outcome === 'survived') survived++;
    else if (result.outcome !== 'not-reached') detected++;
    if (tty) {
      const width = 24;
      const filled = Math.round((done / total) * width);
      writeControl(io.stderr, 'clearLine');
      io.stderr.write(`mutants [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}: ${detected} detected, ${survived} survived`);
    } else {
      io.stderr.write(
        `modeltape mutate: [${done}/${total}] ${result.id} ${result.outcome}: ${result.tape}:${result.line} ${result.operator}${result.variant === '' ? '' : ` (${result.variant})`}\n`,
      );
    }
  }) as ((result: MutantResult, done: number, total: number) => void) & { end(): void };
  report.end = () => {
    if (tty && shown > 0) writeControl(io.stderr, 'clearLine');
  };
  return report;
}
