import { syncBuiltinESMExports } from 'node:module';
import workerThreads, { getEnvironmentData, isMainThread, setEnvironmentData } from 'node:worker_threads';
import { onConnect } from './connect-hook.js';
import { ConnectionBlockedError, type Escape } from './escape.js';
import { hostMatcher } from './hosts.js';
import { watchProviderRequests } from './request-hook.js';
import { appendRunReport, describeThisProcess } from './run-report.js';
import { RUN_VARIABLES, runEnvironment, type RunEnvironment } from './run-environment.js';

/**
 * The file `modeltape run` preloads into Node processes (`--import`): the compiled one beside
 * this module, or, when this module runs from its TypeScript source (the project's own tests),
 * the one the build put in dist/.
 */
export const GUARD_PRELOAD_URL: string = import.meta.url.endsWith('.ts')
  ? new URL('../dist/guard/preload.js', import.meta.url).href
  : new URL('./preload.js', import.meta.url).href;

const INSTALLED = Symbol.for('modeltape.run-guard');
// Worker threads started with an environment of their own (`env: {}`) still learn the run.
const WORKER_DATA_KEY = 'modeltape.run';

const ADVICE = "Point the client at the run's proxy: it sets OPENAI_BASE_URL and ANTHROPIC_BASE_URL (see modeltape run --help), or pass the base URL yourself.";

/** Whether this process (thread) has the run's guard installed. */
export function runGuardInstalled(): boolean {
  return (globalThis as unknown as Record<symbol, boolean | undefined>)[INSTALLED] === true;
}

/**
 * Installs the guard of the replay run this process belongs to, once: every connection to a
 * provider host is refused before its DNS lookup and reported to the run, and every other one
 * that leaves loopback is reported. The preload calls it at startup; `openTape` calls it too, so
 * a process whose NODE_OPTIONS lost the preload (a script that replaced it) is still guarded from
 * its first session on. Returns false when the environment names no replay run.
 */
export function installRunGuard(env: Readonly<Record<string, string | undefined>>): boolean {
  if (runGuardInstalled()) return true;
  let run: RunEnvironment = runEnvironment(env);
  if ((run.reportFile === undefined || run.guardHosts.length === 0) && !isMainThread) {
    const shared = getEnvironmentData(WORKER_DATA_KEY) as RunEnvironment | undefined;
    if (shared !== undefined) run = shared;
  }
  if (run.reportFile === undefined || run.guardHosts.length === 0) return false;
  (globalThis as unknown as Record<symbol, boolean>)[INSTALLED] = true;
  setEnvironmentData(WORKER_DATA_KEY, run as never);
  guardWorkersWithTheirOwnEnvironment(run);
  const reportFile = run.reportFile;
  const matches = hostMatcher(run.guardHosts);
  onConnect(
    (attempt) => {
      const matched = matches(attempt.host, attempt.port);
      if (matched === undefined && attempt.loopback) return undefined;
      const who = describeThisProcess();
      if (matched === undefined) {
        appendRunReport(reportFile, { kind: 'outside', connection: { host: attempt.host, port: attempt.port, via: attempt.via, process: who } });
        return undefined;
      }
      const escape = { host: matched, port: attempt.port, ...(attempt.path === undefined ? {} : { path: attempt.path }), via: attempt.via, process: who };
      appendRunReport(reportFile, { kind: 'escape', escape });
      return new ConnectionBlockedError(escape, ADVICE);
    },
    { watches: (host, port) => matches(host, port) !== undefined },
  );

  // Requests that name a provider while the connect layer saw only loopback or an old socket.
  watchProviderRequests({
    matches,
    blocked: (request) => {
      const escape: Escape = {
        host: request.host,
        port: request.port,
        ...(request.path === undefined ? {} : { path: request.path }),
        via: request.via,
        process: describeThisProcess(),
      };
      appendRunReport(reportFile, { kind: 'escape', escape });
      return new ConnectionBlockedError(escape, ADVICE);
    },
  });
  return true;
}

// A worker given an environment of its own (`env: {}`) does not load NODE_OPTIONS' preload:
// it gets the preload and the run's variables added to that environment.
function guardWorkersWithTheirOwnEnvironment(run: RunEnvironment): void {
  const Original = workerThreads.Worker;
  if ((Original as unknown as Record<symbol, boolean>)[INSTALLED]) return;
  const preload = `--import=${GUARD_PRELOAD_URL}`;
  class GuardedWorker extends Original {
    constructor(filename: string | URL, options?: workerThreads.WorkerOptions) {
      const env = options?.env;
      if (typeof env === 'object' && env !== null && (env as unknown) !== workerThreads.SHARE_ENV) {
        const own = env as Record<string, string | undefined>;
        const nodeOptions = own.NODE_OPTIONS ?? '';
        options = {
          ...options,
          env: {
            ...own,
            [RUN_VARIABLES.report]: run.reportFile,
            [RUN_VARIABLES.guardHosts]: run.guardHosts.join(','),
            NODE_OPTIONS: nodeOptions.includes(preload) ? nodeOptions : `${preload}${nodeOptions === '' ? '' : ' '}${nodeOptions}`,
          },
        };
      }
      super(filename, options);
    }
  }
  (GuardedWorker as unknown as Record<symbol, boolean>)[INSTALLED] = true;
  workerThreads.Worker = GuardedWorker;
  syncBuiltinESMExports();
}
