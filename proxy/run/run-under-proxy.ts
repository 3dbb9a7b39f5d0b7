import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { NAMESPACE_SETUP_FAILED, readRunReport, type RunReport } from '../../guard/internal.js';
import { ModeltapeError } from '../../core/internal.js';
import { prepareNamespace, type NetworkOptions, type OfflineLayer, type PreparedNamespace } from './network-namespace.js';
import { childEnvironment } from './child-environment.js';
import { placeholderGoogleCredentials } from '../core/google-credentials.js';
import type { ProxySummary } from '../core/proxy-core.js';
import type { ProxyOptions } from '../core/proxy-options.js';
import { startProxy, type RunningProxy } from '../http/proxy-server.js';
import { BUILT_IN_UPSTREAMS, providerHosts, type Upstream } from '../core/upstream-table.js';
import { unusedAcrossRun, type UnusedOnTape } from './unused-recordings.js';
import { listenForUnreported } from './report-signals.js';

/**
 * Where a command run under the proxy writes and what it reads of its process (the CLI's io):
 * output streams (a stream with a descriptor is given to the command as it is, else the command's
 * output is piped into it), the environment, the directory, and the signals it passes on.
 */
export interface CommandRunIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; fd?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; fd?: number };
  env: NodeJS.ProcessEnv;
  cwd: string;
  signals: NodeJS.EventEmitter;
}

/** How the command ended, and what the proxy and every process of the command saw. */
export interface ProxiedRun {
  proxy: RunningProxy;
  /** The run's own proxy, with the escapes the processes' guards stopped added in. */
  summary: ProxySummary;
  /** What the processes reported: escapes, other hosts, and the tape sessions opened inside (openTape). */
  report: RunReport;
  /** The exit status to pass on for the command itself: 0, its own status, or 128 + signal. */
  commandStatus: number;
  /** The command ran past `timeoutMs` and its process group was killed. */
  timedOut: boolean;
  /** False when the command could not be started (not found, not executable): it ran nothing. */
  started: boolean;
  /** The recordings the run left unused, per tape: its own proxy's and its tape sessions' together. */
  unused: UnusedOnTape[];
  /** In replay: which layer kept the command off the network. */
  offline?: OfflineLayer;
}

/** How a command is run: bounded in time (`mutate` runs one many times), and kept off the network by which layer. */
export interface RunBound {
  /** Kill the command and every process it started (its process group) after this many milliseconds. */
  timeoutMs?: number;
  /**
   * In replay: what keeps the command off the network (see {@link NETWORK_ISOLATIONS}), and the
   * local ports a network namespace lets through besides the proxy's (a CI's database). Other
   * modes run the command as it is. @default { isolation: 'guard', allowPorts: [] }
   */
  network?: NetworkOptions;
}

// The upstreams sessions inside the command forward to: the run's, the Azure resource it read
// from AZURE_OPENAI_ENDPOINT and the Bedrock endpoint it read from the AWS variables, which the
// command's own AZURE_OPENAI_ENDPOINT and AWS_ENDPOINT_URL_BEDROCK_RUNTIME no longer name.
function childUpstreams(options: ProxyOptions, table: ReadonlyMap<string, Upstream>): { upstreams: Record<string, string> } | undefined {
  const fromEnvironment: Record<string, string> = {};
  for (const name of ['azure', 'bedrock']) {
    const upstream = table.get(name);
    if (upstream !== undefined && upstream.unset === undefined && upstream.baseUrl !== BUILT_IN_UPSTREAMS[name]?.baseUrl)
      fromEnvironment[name] = upstream.baseUrl;
  }
  const upstreams = { ...fromEnvironment, ...options.upstreams };
  return Object.keys(upstreams).length === 0 ? undefined : { upstreams };
}

/**
 * Starts a proxy on a free port and runs `command` under it in `io.cwd` (see `childEnvironment`
 * for what it is given), forwards SIGINT and SIGTERM from `io.signals` to it, and closes the
 * proxy when it exits. The
 * processes of the command report to a file in a private temporary folder, read and removed
 * when the command ends. `run`, `drift` and `inspect --unused` use it.
 */
export async function runUnderProxy(
  options: ProxyOptions,
  command: readonly string[],
  io: CommandRunIo,
  childOutput: 'inherit' | 'stderr' = 'inherit',
  bound: RunBound = {},
): Promise<ProxiedRun> {
  const proxy = await startProxy({ ...options, env: io.env, log: options.log ?? ((message) => io.stderr.write(`${message}\n`)) });
  const folder = mkdtempSync(join(tmpdir(), 'modeltape-run-'));
  const reportFile = join(folder, 'report.jsonl');
  // Made before the command starts: a report file missing at the end was removed by the
  // command, with whatever it held, and the run cannot say what its processes saw.
  writeFileSync(reportFile, '', { mode: 0o600 });
  const signals = listenForUnreported(reportFile);
  // Placeholder Google credentials whose token exchange the proxy answers, for a replay (and a
  // recording with none of the user's own), in the same private folder: removed with it.
  let googleCredentials: string | undefined;
  if (proxy.options.mode === 'replay' || proxy.options.mode === 'auto') {
    googleCredentials = join(folder, 'google-credentials.json');
    writeFileSync(googleCredentials, `${JSON.stringify(placeholderGoogleCredentials(proxy.url), null, 2)}\n`, { mode: 0o600 });
  }
  const env = childEnvironment(io.env, {
    url: proxy.url,
    mode: proxy.options.mode,
    reportFile,
    guardHosts: providerHosts(proxy.options.upstreams),
    ...(options.onMiss === 'nearest' ? { onMiss: 'nearest' as const } : {}),
    ...(childUpstreams(options, proxy.options.upstreams) ?? {}),
    ...(googleCredentials === undefined ? {} : { googleCredentials }),
  });
  // In replay, the command may run in a network namespace of its own, reaching only the proxy.
  let namespace: PreparedNamespace | undefined;
  let offline: OfflineLayer | undefined;
  const isolation = bound.network?.isolation ?? 'guard';
  if (proxy.options.mode === 'replay') {
    offline = { layer: 'guard' };
    if (isolation !== 'guard') {
      try {
        namespace = await prepareNamespace({
          proxyPort: proxy.port,
          allowPorts: bound.network?.allowPorts ?? [],
          folder,
          ...(bound.network?.unshare === undefined ? {} : { unshare: bound.network.unshare }),
        });
        offline = { layer: 'namespace', allowedPorts: [...(bound.network?.allowPorts ?? [])] };
      } catch (error) {
        if (!ModeltapeError.isInstance(error) || error.code !== 'namespace_unavailable' || isolation === 'namespace') {
          // The report's signal pipe too: left open, it kept the process alive after this failure.
          await signals?.close();
          rmSync(folder, { recursive: true, force: true });
          await proxy.close({ prune: false });
          if (ModeltapeError.isInstance(error) && error.code === 'namespace_unavailable')
            throw new ModeltapeError(
              'namespace_unavailable',
              `${error.message} --network namespace requires one; --network namespace-or-guard falls back to the guard (docs/cli-offline.md says what each stops).`,
            );
          throw error;
        }
        offline = { layer: 'guard', fellBackBecause: error.message };
        io.stderr.write(`modeltape: ${error.message} The guard alone keeps this replay offline (--network namespace-or-guard).\n`);
      }
    }
  }
  const [file, ...args] = namespace === undefined ? command : namespace.wrap(command);
  let exit: { code: number | null; signal: NodeJS.Signals | null; error?: Error };
  let report: RunReport;
  let timedOut = false;
  // A bounded command leads its own process group, so that the bound (or a signal) ends every
  // process it started, a test runner's workers included, not only the first.
  const grouped = bound.timeoutMs !== undefined;
  try {
    exit = await new Promise((resolve) => {
      // With 'stderr' the command's own output goes to stderr, so stdout carries only our report.
      const outputs = [childOutput === 'inherit' ? io.stdout : io.stderr, io.stderr] as const;
      const stdio = outputs.map(childStdio);
      const child = spawn(file!, args, { stdio: [grouped ? 'ignore' : 'inherit', ...stdio], env, cwd: io.cwd, detached: grouped });
      const signalAll = (signal: NodeJS.Signals): void => {
        if (!grouped || child.pid === undefined) {
          child.kill(signal);
          return;
        }
        try {
          process.kill(-child.pid, signal);
        } catch {
          // The group is gone already.
        }
      };
      const timer =
        bound.timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              timedOut = true;
              signalAll('SIGKILL');
            }, bound.timeoutMs);
      // Buffers, written as they come: the masking of io's streams is for strings (our own
      // messages), and CMD's output is passed on as it would reach a descriptor.
      if (child.stdout) child.stdout.on('data', (chunk: Buffer) => outputs[0].write(chunk));
      if (child.stderr) child.stderr.on('data', (chunk: Buffer) => outputs[1].write(chunk));
      const forward = (signal: NodeJS.Signals) => () => signalAll(signal);
      const onInt = forward('SIGINT');
      const onTerm = forward('SIGTERM');
      io.signals.on('SIGINT', onInt);
      io.signals.on('SIGTERM', onTerm);
      const done = (result: { code: number | null; signal: NodeJS.Signals | null; error?: Error }) => {
        if (timer !== undefined) clearTimeout(timer);
        // What the command left running in its group ends with it.
        if (grouped) signalAll('SIGKILL');
        io.signals.off('SIGINT', onInt);
        io.signals.off('SIGTERM', onTerm);
        resolve(result);
      };
      child.once('error', (error) => done({ code: 127, signal: null, error }));
      // Piped output is all passed on only at 'close'; on descriptors 'exit' is the end.
      child.once(stdio.includes('pipe') ? 'close' : 'exit', (code: number | null, signal: NodeJS.Signals | null) => done({ code, signal }));
    });
  } finally {
    await namespace?.close();
    const unreported = (await signals?.close()) ?? [];
    report = readRunReport(reportFile);
    if (unreported.length > 0) report.unreported = unreported;
    if (!existsSync(reportFile)) report.lost = true;
    rmSync(folder, { recursive: true, force: true });
  }
  // A command that failed may not have reached every request: never prune after it.
  const succeeded = exit.code === 0 && exit.signal === null && exit.error === undefined;
  const own = await proxy.close(succeeded ? {} : { prune: false });
  const summary: ProxySummary = { ...own, escapes: [...own.escapes, ...report.escapes], outside: [...own.outside, ...report.outside] };
  // In a namespace, the relay inside starts the command, and says so itself when it cannot.
  if (exit.error) io.stderr.write(`modeltape: could not start ${JSON.stringify(file)}: ${exit.error.message}\n`);
  if (namespace !== undefined && exit.code === NAMESPACE_SETUP_FAILED)
    io.stderr.write('modeltape: the command did not run: its network namespace could not be set up (above).\n');
  let commandStatus = 0;
  if (exit.signal) commandStatus = 128 + (constants.signals[exit.signal] ?? 0);
  else if (exit.code !== 0) {
    // Only the program: its arguments may hold anything, a key among them.
    io.stderr.write(`modeltape: the command (${command[0]}) exited with status ${exit.code}\n`);
    commandStatus = exit.code ?? 1;
  }
  const unused = unusedAcrossRun({ tape: proxy.options.tape, mode: proxy.options.mode, engine: proxy.engine }, report.sessions, io.cwd);
  const started = exit.error === undefined && !(namespace !== undefined && (exit.code === 127 || exit.code === NAMESPACE_SETUP_FAILED));
  return { proxy, summary, report, commandStatus, timedOut, started, unused, ...(offline === undefined ? {} : { offline }) };
}

/**
 * How CMD gets one of io's streams: the stream's own descriptor when it has one (the process's
 * stdout or stderr, as for the bin), else a pipe whose data is written into it (a test's stream).
 */
function childStdio(stream: CommandRunIo['stdout']): number | 'pipe' {
  return typeof stream.fd === 'number' ? stream.fd : 'pipe';
}
