// Running a suite against its mutants: once on the real tapes (it must pass: that run also says
// which exchanges the suite reads), then once per mutant, each with its own tape copy in a private
// folder and its own replay proxy, `jobs` at a time, each bounded in time. What `modeltape mutate`
// runs, and `mutateSuite` from `modeltape/testkit`.
import { EventEmitter } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { ModeltapeError, maskSecrets } from '../core/internal.js';
import { RUN_VARIABLES } from '../guard/internal.js';
import { formatUnused, runUnderProxy, runVerdict, type CommandRunIo, type ProxiedRun, type ProxyOptions, type NetworkOptions } from '../proxy/internal.js';
import { loadTape, serializeLine, type Exchange, type LoadedExchange } from '../recordings/internal.js';
import { chooseMutants, type Mutant, type TapeToMutate } from './choose-mutants.js';
import { buildMutationReport, resultOf, type MutantResult, type MutationReport } from './mutation-report.js';
import type { MutationOperator } from './mutation.js';
import { mutantProblems } from './operators/index.js';

export interface MutateSuiteOptions {
  /** The tapes to mutate, as the suite names them. The proxy the command's clients reach (by the base-URL variables) replays the first. */
  tapes: readonly string[];
  /** The command that runs the suite, e.g. `['npx', 'vitest', 'run']`. It must pass on the real tapes. */
  command: readonly string[];
  /** Where the command runs and relative tapes are found. @default process.cwd() */
  cwd?: string;
  /** The command's environment. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Chooses the mutants under `max`: the same seed, the same mutants. @default '1' */
  seed?: string;
  /** At most this many mutants, each operator in turn. @default all */
  max?: number;
  /** Only these operators. @default all */
  operators?: readonly MutationOperator[];
  /** Mutants run at once. @default the number of cores */
  jobs?: number;
  /** Kill a mutant's command (its whole process group) after this long; the mutant counts as detected. @default 5× the first run + 10 s */
  timeoutMs?: number;
  /** Proxy options for every run (upstreams, normalizers, key headers), as `modeltape run` takes them from its flags and config. */
  proxy?: Omit<ProxyOptions, 'tape' | 'mode'>;
  /** What keeps every run (each a replay) off the network, as `modeltape run --network` takes it. @default the guard */
  network?: NetworkOptions;
  /** Told each mutant's result as it ends, and how many of how many are done. */
  onMutant?: (result: MutantResult, done: number, total: number) => void;
  /** Told what the run does (the first run's time, mutants skipped), one line each. */
  log?: (message: string) => void;
  /** Stops the run: every running command's process group gets SIGTERM, no mutant starts after, and mutateSuite rejects. */
  signal?: AbortSignal;
}

/** The suite failed on the real tapes: its mutants would say nothing. */
export class SuiteFailsOnTapesError extends ModeltapeError {
  /** The end of what the command printed (keys masked), and the replay's summary. */
  readonly output: string;

  constructor(message: string, output: string) {
    super('suite_fails_on_tapes', message);
    // What a command printed may hold anything, a key among it: masked as every message is.
    this.output = maskSecrets(output);
  }
}

interface OpenedTape {
  file: string;
  real: string;
  text: string;
  exchanges: LoadedExchange[];
  byLine: Map<number, Exchange>;
}

/**
 * Runs `command` once on the real tapes, then once per mutant, and reports each mutant's outcome
 * and the score. Throws {@link SuiteFailsOnTapesError} when the first run fails, and a
 * `no_mutants` error when no exchange the suite used admits a mutation.
 */
export async function mutateSuite(options: MutateSuiteOptions): Promise<MutationReport> {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const log = options.log ?? (() => undefined);
  const seed = options.seed ?? '1';
  if (options.tapes.length === 0) throw new ModeltapeError('usage', 'mutateSuite needs the tapes to mutate (tapes: ["tapes/a.jsonl"]).');
  if (options.command.length === 0) throw new ModeltapeError('usage', "mutateSuite needs the command that runs the suite (command: ['npx', 'vitest', 'run']).");
  const tapes: OpenedTape[] = options.tapes.map((file) => {
    const path = resolve(cwd, file);
    const { exchanges } = loadTape(path);
    return {
      file,
      real: realpathSync(path),
      text: readFileSync(path, 'utf8'),
      exchanges,
      byLine: new Map(exchanges.map((loaded) => [loaded.line, loaded.exchange])),
    };
  });
  const proxyOptions: ProxyOptions = { ...options.proxy, tape: resolve(cwd, options.tapes[0]!), mode: 'replay', port: 0 };
  // One source of signals for every run: an abort reaches each running command's process group.
  const signals = new EventEmitter();
  signals.setMaxListeners(0);
  const { signal } = options;
  signal?.throwIfAborted();
  signal?.addEventListener('abort', () => signals.emit('SIGTERM'), { once: true });
  const io = { env, cwd, signals };

  const started = performance.now();
  const network = options.network === undefined ? {} : { network: options.network };
  const baseline = await runCaptured(proxyOptions, options.command, io, network);
  const baselineMs = performance.now() - started;
  signal?.throwIfAborted();
  const verdict = runVerdict(baseline.run.summary, baseline.run.report, {
    allowEmpty: false,
    unused: baseline.run.unused,
    commandStarted: baseline.run.started,
  });
  if (baseline.run.commandStatus !== 0 || baseline.run.timedOut || verdict.failed) {
    const status = baseline.run.commandStatus;
    throw new SuiteFailsOnTapesError(
      `modeltape mutate: the suite does not pass on the real tapes (${status !== 0 ? `${options.command[0]} exited with status ${status}` : 'the replay saw the problems above'}), so its mutants would say nothing. Make \`modeltape run --tape ${options.tapes[0]} -- ${options.command.join(' ')}\` pass first.`,
      `${baseline.output()}\n${verdict.lines.join('\n')}`,
    );
  }
  const toMutate: TapeToMutate[] = tapes.map((tape) => ({ file: tape.file, exchanges: tape.exchanges, used: new Set(linesUsed(baseline.run, tape.real)) }));
  const choice = chooseMutants(toMutate, {
    seed,
    ...(options.max === undefined ? {} : { max: options.max }),
    ...(options.operators ? { operators: options.operators } : {}),
  });
  const byFile = new Map(tapes.map((tape) => [tape.file, tape]));
  // A mutant that would not be a valid recording is an operator's bug: skipped, and said.
  const mutants = choice.mutants.filter((mutant) => {
    const problems = mutantProblems(byFile.get(mutant.tape)!.byLine.get(mutant.line)!, mutant.mutation);
    if (problems.length > 0)
      log(
        `modeltape mutate: skipped ${mutant.id} (${mutant.mutation.operator} at ${mutant.tape}:${mutant.line}): the mutant would not be a valid recording (${problems[0]}). This is a modeltape bug; please report it.`,
      );
    return problems.length === 0;
  });
  if (mutants.length === 0) {
    const used = toMutate.reduce((sum, tape) => sum + tape.used.size, 0);
    throw new ModeltapeError(
      'no_mutants',
      used === 0
        ? `modeltape mutate: the suite passed without reading any exchange of ${options.tapes.join(', ')}, so no mutant would be read either. Check that the command replays these tapes (its clients reach the proxy, or openTape opens them).`
        : `modeltape mutate: none of the ${used} exchange${used === 1 ? '' : 's'} the suite used admits ${options.operators ? `the operators ${options.operators.join(', ')}` : 'a mutation'} (they are not model answers, or recorded errors). A run that mutates nothing checks nothing.`,
    );
  }
  const timeoutMs = options.timeoutMs ?? Math.round(5 * baselineMs + 10_000);
  const jobs = Math.max(1, Math.min(options.jobs ?? availableParallelism(), mutants.length));
  log(
    [
      `modeltape mutate: the suite passed on the real tapes in ${(baselineMs / 1000).toFixed(1)} s; ${mutants.length} mutant${mutants.length === 1 ? '' : 's'} of ${choice.candidates} (seed ${seed}), ${jobs} at a time, each bounded to ${(timeoutMs / 1000).toFixed(1)} s`,
      // What the suite never read is never mutated: said here, as every replay says it.
      ...baseline.run.unused.flatMap((tape) => formatUnused(tape.tape, tape.unused, tape.mode)),
    ].join('\n'),
  );

  const folder = mkdtempSync(join(tmpdir(), 'modeltape-mutate-'));
  const results: MutantResult[] = new Array(mutants.length);
  let done = 0;
  try {
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let index = next++; index < mutants.length && signal?.aborted !== true; index = next++) {
        const mutant = mutants[index]!;
        const result = await runMutant(mutant, byFile.get(mutant.tape)!, { folder, proxyOptions, command: options.command, io, timeoutMs, ...network });
        results[index] = result;
        options.onMutant?.(result, ++done, mutants.length);
      }
    };
    await Promise.all(Array.from({ length: jobs }, worker));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  signal?.throwIfAborted();
  return buildMutationReport({
    command: [...options.command],
    seed,
    tapes: [...options.tapes],
    candidates: choice.candidates,
    unusedExchanges: choice.unusedExchanges,
    unmutable: choice.unmutable,
    mutants: results,
  });
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

/** The command run under the proxy with its output kept in memory (the last 64 KiB), shown only when the first run fails. */
async function runCaptured(
  options: ProxyOptions,
  command: readonly string[],
  io: { env: NodeJS.ProcessEnv; cwd: string; signals: NodeJS.EventEmitter },
  extra: { env?: NodeJS.ProcessEnv; timeoutMs?: number; network?: NetworkOptions },
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
  } as unknown as CommandRunIo['stdout'];
  // Every process of every run replays: none may record, whatever the environment says.
  const env = { ...(extra.env ?? io.env), [RUN_VARIABLES.mode]: 'replay' };
  const run = await runUnderProxy(
    { ...options, env, log: (message) => sink.write(`${message}\n`) },
    command,
    { env, cwd: io.cwd, stdout: sink, stderr: sink, signals: io.signals },
    'inherit',
    { ...(extra.timeoutMs === undefined ? {} : { timeoutMs: extra.timeoutMs }), ...(extra.network === undefined ? {} : { network: extra.network }) },
  );
  return { run, output: () => chunks.join('') };
}

async function runMutant(
  mutant: Mutant,
  tape: OpenedTape,
  context: {
    folder: string;
    proxyOptions: ProxyOptions;
    command: readonly string[];
    io: { env: NodeJS.ProcessEnv; cwd: string; signals: NodeJS.EventEmitter };
    timeoutMs: number;
    network?: NetworkOptions;
  },
): Promise<MutantResult> {
  const exchange = tape.byLine.get(mutant.line)!;
  const lines = tape.text.split('\n');
  lines[mutant.line - 1] = serializeLine({ ...exchange, response: mutant.mutation.response }).slice(0, -1);
  const own = join(context.folder, mutant.id);
  mkdirSync(own, { mode: 0o700 });
  const copy = join(own, basename(tape.file));
  writeFileSync(copy, lines.join('\n'), { mode: 0o600 });
  try {
    // Every process that opens the tape replays the copy; the mutated line answers its retries too.
    const env = { ...context.io.env, [RUN_VARIABLES.tapeSwap]: JSON.stringify({ [tape.real]: { tape: copy, repeatLine: mutant.line } }) };
    const { run } = await runCaptured(context.proxyOptions, context.command, context.io, {
      env,
      timeoutMs: context.timeoutMs,
      ...(context.network === undefined ? {} : { network: context.network }),
    });
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
    if (runVerdict(run.summary, run.report, { allowEmpty: false }).failed)
      return resultOf(mutant, 'killed', 'the command passed, but the replay failed the run');
    return resultOf(mutant, 'survived', 'the command passed');
  } finally {
    rmSync(own, { recursive: true, force: true });
  }
}
