import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { ModeltapeError, checkChoice } from '../core/internal.js';
import {
  MUTATION_OPERATORS,
  buildMutationReport,
  mutantProblems,
  chooseMutants,
  formatMutationReport,
  renderMutationHtml,
  resultOf,
  type Mutant,
  type MutantResult,
  type MutationOperator,
  type TapeToMutate,
} from '../mutation/internal.js';
import { RUN_VARIABLES } from '../guard/internal.js';
import { loadTape, serializeLine, type Exchange } from '../recordings/internal.js';
import type { ProxyOptions } from '../proxy/internal.js';
import { describeFlags, parseArguments, UsageError, type FlagSpec } from './arguments.js';
import type { ResolvedCommandIo } from './io.js';
import { PROXY_FLAGS, proxyOptionsFrom } from './proxy-flags.js';
import { runUnderProxy, type ProxiedRun } from './run-under-proxy.js';
import { runVerdict } from './run-summary.js';
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
];

export const MUTATE_USAGE = `Usage: modeltape mutate --tape FILE… [--max N] [--seed SEED] [--jobs N] -- CMD [ARG]…

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

${describeFlags(FLAGS)}`;

export async function mutateCommand(argv: readonly string[], io: ResolvedCommandIo): Promise<number> {
  const parsed = parseArguments(argv, FLAGS, 'mutate');
  if (parsed.flags.help === true) {
    io.stdout.write(`${MUTATE_USAGE}\n`);
    return 0;
  }
  if (parsed.command === undefined || parsed.command.length === 0)
    throw new UsageError('modeltape mutate needs the command that runs the suite, after --: modeltape mutate --tape tapes/a.jsonl -- npm test');
  if (parsed.positionals.length > 0)
    throw new UsageError(`Unexpected argument ${JSON.stringify(parsed.positionals[0])} before --. Name tapes with --tape FILE, and put the command after --.`);
  const patterns = (parsed.flags.tape as string[] | undefined) ?? [];
  if (patterns.length === 0)
    throw new UsageError("modeltape mutate needs the tapes to mutate: --tape FILE (repeatable, or a quoted glob: --tape 'tapes/**/*.jsonl').");
  const options = mutateOptions(parsed.flags);
  const files = expandTapeArguments(patterns, io.cwd, 'mutate', 'nothing was run');
  const command = parsed.command;
  const tapes = files.map((file) => {
    const path = resolve(io.cwd, file);
    const tape = loadTape(path);
    return { file, real: realpathSync(path), text: readFileSync(path, 'utf8'), exchanges: tape.exchanges };
  });
  // The proxy CMD's clients reach (by the base-URL variables) replays the first tape, as `run --tape` does.
  const proxyOptions: ProxyOptions = { ...proxyOptionsFrom(parsed, { tape: files[0]!, port: 0 }, io.cwd), tape: resolve(io.cwd, files[0]!), mode: 'replay' };

  // The first run, on the real tapes: it must pass, and it says which exchanges the suite reads.
  const started = performance.now();
  const baseline = await runCaptured(proxyOptions, command, io, {});
  const baselineMs = performance.now() - started;
  const baselineVerdict = runVerdict(baseline.run.summary, baseline.run.report, { allowEmpty: false });
  if (baseline.run.commandStatus !== 0 || baseline.run.timedOut || baselineVerdict.failed) {
    io.stderr.write(`${baseline.output()}\n${baselineVerdict.lines.join('\n')}\n`);
    io.stderr.write(
      `modeltape mutate: the suite does not pass on the real tapes (${baseline.run.commandStatus !== 0 ? `${command[0]} exited with status ${baseline.run.commandStatus}` : 'the replay saw the problems above'}), so its mutants would say nothing. Make \`modeltape run --tape ${files[0]} -- ${command.join(' ')}\` pass first.\n`,
    );
    return 1;
  }
  const toMutate: TapeToMutate[] = tapes.map((tape) => ({ file: tape.file, exchanges: tape.exchanges, used: new Set(linesUsed(baseline.run, tape.real)) }));
  const choice = chooseMutants(toMutate, {
    seed: options.seed,
    ...(options.max === undefined ? {} : { max: options.max }),
    ...(options.operators ? { operators: options.operators } : {}),
  });
  // A mutant that would not be a valid recording is an operator's bug: skipped, and said.
  const exchangeAt = new Map(tapes.map((tape) => [tape.file, new Map(tape.exchanges.map((loaded) => [loaded.line, loaded.exchange]))]));
  const valid = choice.mutants.filter((mutant) => {
    const problems = mutantProblems(exchangeAt.get(mutant.tape)!.get(mutant.line)!, mutant.mutation);
    if (problems.length > 0)
      io.stderr.write(
        `modeltape mutate: skipped ${mutant.id} (${mutant.mutation.operator} at ${mutant.tape}:${mutant.line}): the mutant would not be a valid recording (${problems[0]}). This is a modeltape bug; please report it.\n`,
      );
    return problems.length === 0;
  });
  choice.mutants = valid;
  if (choice.mutants.length === 0) {
    const used = toMutate.reduce((sum, tape) => sum + tape.used.size, 0);
    throw new ModeltapeError(
      'no_mutants',
      used === 0
        ? `modeltape mutate: the suite passed without reading any exchange of ${files.join(', ')}, so no mutant would be read either. Check that CMD replays these tapes (its clients reach the proxy, or openTape opens them).`
        : `modeltape mutate: none of the ${used} exchange${used === 1 ? '' : 's'} the suite used admits ${options.operators ? `the operators ${options.operators.join(', ')}` : 'a mutation'} (they are not model answers, or recorded errors). A run that mutates nothing checks nothing.`,
    );
  }
  const timeoutMs = options.timeoutMs ?? Math.round(5 * baselineMs + 10_000);
  const jobs = Math.max(1, Math.min(options.jobs ?? availableParallelism(), choice.mutants.length));
  io.stderr.write(
    `modeltape mutate: the suite passed on the real tapes in ${(baselineMs / 1000).toFixed(1)} s; ${choice.mutants.length} mutant${choice.mutants.length === 1 ? '' : 's'} of ${choice.candidates} (seed ${options.seed}), ${jobs} at a time, each bounded to ${(timeoutMs / 1000).toFixed(1)} s\n`,
  );

  const folder = mkdtempSync(join(tmpdir(), 'modeltape-mutate-'));
  const results: MutantResult[] = new Array(choice.mutants.length);
  const progress = mutantProgress(io, choice.mutants.length);
  try {
    const byFile = new Map(tapes.map((tape) => [tape.file, tape]));
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let index = next++; index < choice.mutants.length; index = next++) {
        const mutant = choice.mutants[index]!;
        const tape = byFile.get(mutant.tape)!;
        const exchange = exchangeAt.get(mutant.tape)!.get(mutant.line)!;
        const result = await runMutant(mutant, exchange, tape, { folder, proxyOptions, command, io, timeoutMs });
        results[index] = result;
        progress(result);
      }
    };
    await Promise.all(Array.from({ length: jobs }, worker));
  } finally {
    progress.end();
    rmSync(folder, { recursive: true, force: true });
  }
  const elapsedMs = performance.now() - started;
  const report = buildMutationReport({
    command: [...command],
    seed: options.seed,
    tapes: files,
    candidates: choice.candidates,
    unusedExchanges: choice.unusedExchanges,
    unmutable: choice.unmutable,
    mutants: results,
  });
  if (parsed.flags.json === true) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else io.stdout.write(`${formatMutationReport(report)}\n`);
  io.stderr.write(
    `modeltape mutate: ${results.length} mutant${results.length === 1 ? '' : 's'} in ${(elapsedMs / 1000).toFixed(1)} s (${((results.length / elapsedMs) * 60_000).toFixed(1)} a minute)\n`,
  );
  const html = parsed.flags.html as string | undefined;
  if (html !== undefined) {
    mkdirSync(dirname(resolve(io.cwd, html)), { recursive: true });
    writeFileSync(resolve(io.cwd, html), renderMutationHtml(report));
    io.stderr.write(`modeltape: wrote ${html}\n`);
  }
  if (options.minScore !== undefined && (report.score ?? 0) < options.minScore) {
    io.stderr.write(`modeltape mutate: the mutation score ${report.score ?? 'n/a'}% is below --min-score ${options.minScore}.\n`);
    return 1;
  }
  return 0;
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

// The tape lines a run answered from, of the tape at `real`: its own proxy's, when it served that
// tape, and every session's that opened it.
function linesUsed(run: ProxiedRun, real: string): number[] {
  const lines: number[] = [];
  const proxyTape = run.proxy.options.swappedFrom ?? safeRealpath(run.proxy.options.tape);
  if (proxyTape === real) lines.push(...(run.proxy.engine?.usedLines() ?? []));
  for (const session of run.report.sessions) if (session.path === real) lines.push(...(session.used ?? []));
  return lines;
}

function safeRealpath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return resolve(file);
  }
}

/** The command's output kept in memory (its last 64 KiB), shown only when the first run fails. */
async function runCaptured(
  options: ProxyOptions,
  command: readonly string[],
  io: ResolvedCommandIo,
  extra: { env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<{ run: ProxiedRun; output: () => string }> {
  const chunks: string[] = [];
  let size = 0;
  const sink = {
    write(chunk: string | Uint8Array): boolean {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      chunks.push(text);
      size += text.length;
      while (size > 65_536 && chunks.length > 1) size -= chunks.shift()!.length;
      return true;
    },
  } as unknown as ResolvedCommandIo['stdout'];
  const env = { ...(extra.env ?? io.env), [RUN_VARIABLES.mode]: 'replay' };
  const run = await runUnderProxy(
    { ...options, env, log: (message) => sink.write(`${message}\n`) },
    command,
    { ...io, env, stdout: sink, stderr: sink },
    'inherit',
    extra.timeoutMs === undefined ? {} : { timeoutMs: extra.timeoutMs },
  );
  return { run, output: () => chunks.join('') };
}

async function runMutant(
  mutant: Mutant,
  exchange: Exchange,
  tape: { file: string; real: string; text: string },
  context: { folder: string; proxyOptions: ProxyOptions; command: readonly string[]; io: ResolvedCommandIo; timeoutMs: number },
): Promise<MutantResult> {
  const lines = tape.text.split('\n');
  lines[mutant.line - 1] = serializeLine({ ...exchange, response: mutant.mutation.response }).slice(0, -1);
  const own = join(context.folder, mutant.id);
  mkdirSync(own, { mode: 0o700 });
  const copy = join(own, basename(tape.file));
  writeFileSync(copy, lines.join('\n'), { mode: 0o600 });
  try {
    const env = { ...context.io.env, [RUN_VARIABLES.tapeSwap]: JSON.stringify({ [tape.real]: { tape: copy, repeatLine: mutant.line } }) };
    const { run } = await runCaptured(context.proxyOptions, context.command, context.io, { env, timeoutMs: context.timeoutMs });
    if (run.timedOut) return resultOf(mutant, 'timeout', `killed after ${(context.timeoutMs / 1000).toFixed(1)} s`);
    const reached = linesUsed(run, tape.real).includes(mutant.line);
    const misses = run.summary.misses + run.report.sessions.reduce((sum, session) => sum + session.misses, 0);
    if (misses > 0) {
      const problem = [...run.summary.problems, ...run.report.sessions.flatMap((session) => session.problems)][0] ?? '';
      return resultOf(mutant, 'killed-by-replay', `${misses} request${misses === 1 ? '' : 's'} missed: ${problem.split('\n')[0]}`);
    }
    if (!reached)
      return resultOf(
        mutant,
        'not-reached',
        run.commandStatus === 0 ? 'the command passed without asking for it' : `the command exited ${run.commandStatus} before asking for it`,
      );
    if (run.commandStatus !== 0) return resultOf(mutant, 'killed', `${context.command[0]} exited with status ${run.commandStatus}`);
    const verdict = runVerdict(run.summary, run.report, { allowEmpty: false });
    if (verdict.failed) return resultOf(mutant, 'killed', 'the command passed, but the replay failed the run');
    return resultOf(mutant, 'survived', 'the command passed');
  } finally {
    rmSync(own, { recursive: true, force: true });
  }
}

// One line a mutant on a terminal (rewritten in place); one line per mutant in a log.
function mutantProgress(io: ResolvedCommandIo, total: number): ((result: MutantResult) => void) & { end(): void } {
  const tty = io.stderr.isTTY === true;
  let done = 0;
  let killed = 0;
  let survived = 0;
  const report = ((result: MutantResult) => {
    done++;
    if (result.outcome === 'survived') survived++;
    else if (result.outcome !== 'not-reached') killed++;
    if (tty) {
      const width = 24;
      const filled = Math.round((done / total) * width);
      io.stderr.write(`\r\u001b[2Kmutants [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}: ${killed} detected, ${survived} survived`);
    } else {
      io.stderr.write(
        `modeltape mutate: [${done}/${total}] ${result.id} ${result.outcome}: ${result.tape}:${result.line} ${result.operator}${result.variant === '' ? '' : ` (${result.variant})`}\n`,
      );
    }
  }) as ((result: MutantResult) => void) & { end(): void };
  report.end = () => {
    if (tty && done > 0) io.stderr.write('\r\u001b[2K');
  };
  return report;
}
