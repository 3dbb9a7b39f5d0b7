// Running a suite against its mutants: once on the real tapes (it must pass: that run also says
// which exchanges the suite reads), then once per mutant, each with its own tape copy in a private
// folder and its own replay proxy, `jobs` at a time, each bounded in time. What `modeltape mutate`
// runs, and `mutateSuite` from `modeltape/testkit`.
import { EventEmitter } from 'node:events';
import { closeSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { ModeltapeError, describeWriteError, maskSecrets } from '../core/internal.js';
import { RUN_VARIABLES } from '../guard/internal.js';
import { formatUnused, runUnderProxy, runVerdict, type CommandRunIo, type NetworkOptions, type ProxiedRun, type ProxyOptions } from '../proxy/internal.js';
import { TapeNotFoundError, copyTapeReplacingLine, loadTape, openTapeFile, serializeLine, type Exchange, type LoadedExchange } from '../recordings/internal.js';
import { chooseMutants, type Mutant, type TapeToMutate } from './choose-mutants.js';
import { buildMutationReport, mutantListDigest, resultOf, type MutantResult, type MutationReport, type MutationShard } from './mutation-report.js';
import type { MutationOperator } from './mutation.js';
import { mutantProblems } from './operators/index.js';
import { mutantsOfShard, type ShardChoice } from './mutant-shards.js';
import { lineReaders, narrowCommand, type LineReaders } from './test-selection.js';

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
  /**
   * Runs only this shard of the mutants: every shard lists the same mutants (each runs the suite on
   * the real tapes first), and the one at position `p` is shard `p % count + 1`'s. The report says
   * which shard it is; {@link mergeMutationReports} puts the shards back together. @default the whole run
   */
  shard?: ShardChoice;
  /**
   * Runs each mutant's command narrowed to the tests that read its exchange in the run on the real
   * tapes (known where the suite opens its tapes inside tests: `tapePerTest()`,
   * `openTape(tapeForCurrentTest())`, `openTape(file, { test: t })` under node:test), or to their
   * files where only the file is known: the files and `-t PATTERN` appended to a `vitest` or `jest`
   * command, or a `node --test` command's files replaced and `--test-name-pattern` added; the whole
   * command where that is not known. Each result says how it ran (`ran`). A narrowed run that does
   * not reach its exchange runs again whole. @default false
   */
  selective?: boolean;
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

// A tape to mutate, as held while mutants run: the exchanges the suite used, not the tape (a
// mutant's copy is streamed from the file).
interface OpenedTape {
  file: string;
  path: string;
  real: string;
  byLine: Map<number, Exchange>;
  /** Which tests read each used line on the real tapes (for `selective`). */
  readers: LineReaders;
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
  const { shard } = options;
  if (shard !== undefined && !(Number.isSafeInteger(shard.count) && Number.isSafeInteger(shard.index) && shard.index >= 1 && shard.index <= shard.count))
    throw new ModeltapeError('usage', `mutateSuite's shard needs an index from 1 to its count (shard: { index: 1, count: 4 }), got ${JSON.stringify(shard)}.`);
  // Each tape is there and a regular file before anything runs (read only after the first run).
  const files = options.tapes.map((file) => {
    const path = resolve(cwd, file);
    closeSync(openTapeFile(path, 'r', (error) => new TapeNotFoundError(path, error)));
    return { file, path, real: realpathSync(path) };
  });
  const proxyOptions: ProxyOptions = { ...options.proxy, tape: resolve(cwd, options.tapes[0]!), mode: 'replay', port: 0 };
  // One source of signals for every run: an abort reaches each running command's process group.
  const signals = new EventEmitter();
  signals.setMaxListeners(0);
  const { signal } = options;
  signal?.throwIfAborted();
  signal?.addEventListener('abort', () => signals.emit('SIGTERM'), { once: true });
  const io = { env, cwd, signals };

  const network = options.network === undefined ? {} : { network: options.network };
  const baseline = await runBaseline(proxyOptions, options, io, files, network);
  signal?.throwIfAborted();
  // Each tape read whole once, and checked as loadTape checks it; only the exchanges the suite
  // used are kept: a mutant changes one of them, and its copy of the tape is streamed from the file.
  const toMutate: TapeToMutate[] = [];
  const tapes: OpenedTape[] = files.map((tape, index) => {
    const used = baseline.used[index]!;
    const exchanges: LoadedExchange[] = [];
    let unread = 0;
    loadTape(tape.path, {
      keepExchanges: false,
      onExchange: (loaded) => {
        if (used.has(loaded.line)) exchanges.push(loaded);
        else unread++;
      },
    });
    toMutate.push({ file: tape.file, exchanges, used, unread });
    return { ...tape, byLine: new Map(exchanges.map((loaded) => [loaded.line, loaded.exchange])), readers: baseline.readers[index]! };
  });
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
  const run = {
    command: [...options.command],
    seed,
    tapes: [...options.tapes],
    candidates: choice.candidates,
    unusedExchanges: choice.unusedExchanges,
    unmutable: choice.unmutable,
  };
  // A shard runs its slice of the list, and carries what the list is, so that only shards of one run merge.
  let ownShard: MutationShard | undefined;
  if (shard !== undefined) {
    const listed = buildMutationReport({ ...run, mutants: mutants.map((mutant) => resultOf(mutant, 'not-reached', '')) }).mutants;
    ownShard = { ...shard, mutants: mutants.length, list: mutantListDigest(listed) };
  }
  const own = shard === undefined ? mutants : mutantsOfShard(mutants, shard);
  const { baselineMs } = baseline;
  const timeoutMs = options.timeoutMs ?? Math.round(5 * baselineMs + 10_000);
  const jobs = Math.max(1, Math.min(options.jobs ?? availableParallelism(), own.length));
  const chosen = `${mutants.length} mutant${mutants.length === 1 ? '' : 's'} of ${choice.candidates} (seed ${seed})`;
  log(
    [
      `modeltape mutate: the suite passed on the real tapes in ${(baselineMs / 1000).toFixed(1)} s; ${
        shard === undefined ? chosen : `shard ${shard.index}/${shard.count}: ${own.length} of the run's ${chosen}`
      }, ${jobs} at a time, each bounded to ${(timeoutMs / 1000).toFixed(1)} s`,
      // What the suite never read is never mutated: said here, as every replay says it.
      ...baseline.unused,
    ].join('\n'),
  );

  const folder = temporaryFolder();
  const results: MutantResult[] = new Array(own.length);
  let done = 0;
  // A mutant that could not be set up (its copy did not fit): no other starts, the running ones
  // are stopped, and it is what mutateSuite throws.
  let failure: unknown;
  try {
    let next = 0;
    // Read afresh after each await: a signal or another worker's failure may have come meanwhile.
    const stopping = (): boolean => signal?.aborted === true || failure !== undefined;
    const worker = async (): Promise<void> => {
      for (let index = next++; index < own.length && !stopping(); index = next++) {
        const mutant = own[index]!;
        try {
          const tape = byFile.get(mutant.tape)!;
          const context = { folder, proxyOptions, command: options.command, io, timeoutMs, ...network };
          let result: MutantResult;
          if (options.selective === true) {
            const narrowed = narrowCommand(options.command, cwd, tape.readers.get(mutant.line));
            result = { ...(await runMutant(mutant, tape, { ...context, command: narrowed.command })), ran: narrowed.ran };
            // The tests that read it on the real tapes did not ask for it now: the whole command says what one run would.
            if ('tests' in narrowed.ran && result.outcome === 'not-reached' && !stopping())
              result = {
                ...(await runMutant(mutant, tape, context)),
                ran: { whole: `the tests that read its exchange on the real tapes (${narrowed.ran.tests.join(', ')}) did not ask for it` },
              };
          } else result = await runMutant(mutant, tape, context);
          results[index] = result;
          // A mutant stopped because another failed, or because the run was stopped, has no outcome to tell.
          if (!stopping()) options.onMutant?.(result, ++done, own.length);
        } catch (error) {
          failure ??= error;
          signals.emit('SIGTERM');
        }
      }
    };
    await Promise.all(Array.from({ length: jobs }, worker));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  signal?.throwIfAborted();
  if (failure !== undefined) throw failure;
  return buildMutationReport({
    command: run.command,
    seed,
    tapes: run.tapes,
    ...(ownShard === undefined ? {} : { shard: ownShard }),
    candidates: run.candidates,
    unusedExchanges: run.unusedExchanges,
    unmutable: run.unmutable,
    mutants: results,
  });
}

/**
 * The suite once on the real tapes: how long it took, the lines of each tape it answered from,
 * and what it left unused, in words. The run itself (its proxy holds the tape) is not kept.
 */
async function runBaseline(
  proxyOptions: ProxyOptions,
  options: MutateSuiteOptions,
  io: { env: NodeJS.ProcessEnv; cwd: string; signals: NodeJS.EventEmitter },
  tapes: ReadonlyArray<{ real: string }>,
  network: { network?: NetworkOptions },
): Promise<{ baselineMs: number; used: Array<Set<number>>; readers: LineReaders[]; unused: string[] }> {
  const started = performance.now();
  const baseline = await runCaptured(proxyOptions, options.command, io, network);
  const baselineMs = performance.now() - started;
  options.signal?.throwIfAborted();
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
  return {
    baselineMs,
    used: tapes.map((tape) => new Set(linesUsed(baseline.run, tape.real))),
    readers: tapes.map((tape) => lineReaders(baseline.run.report, tape.real, proxyLinesUsed(baseline.run, tape.real))),
    unused: baseline.run.unused.flatMap((tape) => formatUnused(tape.tape, tape.unused, tape.mode)),
  };
}

// The private folder of every mutant's tape copy.
function temporaryFolder(): string {
  try {
    return mkdtempSync(join(tmpdir(), 'modeltape-mutate-'));
  } catch (error) {
    throw new ModeltapeError(
      'mutant_copy_failed',
      `modeltape mutate: could not make a folder for the mutants' tape copies in ${tmpdir()}: ${describeWriteError(error as NodeJS.ErrnoException)}. Free space there, or point TMPDIR to a folder with room.`,
      { cause: error },
    );
  }
}

// The tape lines a run answered from, of the tape at `real`: its own proxy's, when it served that
// tape, and every session's that opened it.
function linesUsed(run: ProxiedRun, real: string): number[] {
  const lines = proxyLinesUsed(run, real);
  for (const session of run.report.sessions) if (session.path === real) lines.push(...(session.used ?? []));
  return lines;
}

// The lines of the tape at `real` the run's own proxy answered from (not a session's).
function proxyLinesUsed(run: ProxiedRun, real: string): number[] {
  const proxyTape = run.proxy.options.swappedFrom ?? safeRealpath(run.proxy.options.tape);
  return proxyTape === real ? [...(run.proxy.engine?.usedLines() ?? [])] : [];
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
  const own = join(context.folder, mutant.id);
  const copy = join(own, basename(tape.file));
  try {
    try {
      mkdirSync(own, { mode: 0o700 });
      copyTapeReplacingLine(tape.path, copy, mutant.line, serializeLine({ ...exchange, response: mutant.mutation.response }).slice(0, -1));
    } catch (error) {
      throw new ModeltapeError(
        'mutant_copy_failed',
        `modeltape mutate: could not write ${mutant.id}'s copy of ${tape.file} in the temporary folder ${dirname(context.folder)}: ${describeWriteError(error as NodeJS.ErrnoException)}. Each mutant running at once (--jobs) needs a whole copy of its tape there: free space, point TMPDIR to a folder with room, or lower --jobs. No report was made.`,
        { cause: error },
      );
    }
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
