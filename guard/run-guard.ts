import diagnosticsChannel from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import type { Socket } from 'node:net';
import { syncBuiltinESMExports } from 'node:module';
import workerThreads, { getEnvironmentData, isMainThread, setEnvironmentData } from 'node:worker_threads';
import { callerRoute, onConnect, wasRefused } from './connect-hook.js';
import type { Escape, EscapeRoute } from './escape.js';
import { ConnectionBlockedError } from './escape.js';
import { canonicalHost, hostMatcher } from './hosts.js';
import { appendRunReport, describeThisProcess } from './run-report.js';
import { RUN_VARIABLES, runEnvironment, type RunEnvironment } from './run-environment.js';

/**
 * The file `modeltape run` preloads into Node processes (`--import`): the compiled one beside
 * this module, or, when this module runs from its TypeScript source (the project's own tests),
 * the one the build put in dist/.
 */
export const GUARD_PRELOAD_URL: string = import.meta.url.endsWith('.ts') ? new URL('../dist/guard/preload.js', import.meta.url).href : new URL('./preload.js', import.meta.url).href;

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

  // Requests that name a provider while their connection goes elsewhere: a CONNECT through a
  // local forward proxy (undici's ProxyAgent, an https agent), or a request on a connection kept
  // alive from before. Stopped before their headers are written.
  const refuse = (host: string, port: number, path: string | undefined, via: EscapeRoute): Error | undefined => {
    const matched = matches(host, port);
    if (matched === undefined) return undefined;
    const escape: Escape = { host: matched, port, ...(path === undefined ? {} : { path }), via, process: describeThisProcess() };
    appendRunReport(reportFile, { kind: 'escape', escape });
    return new ConnectionBlockedError(escape, ADVICE);
  };
  diagnosticsChannel.subscribe('undici:client:sendHeaders', (message) => {
    const { request, socket } = message as { request?: { origin?: string | URL; method?: string; path?: string }; socket?: Socket };
    if (request === undefined || socket === undefined || wasRefused(socket)) return;
    const target = request.method === 'CONNECT' ? authority(request.path ?? '') : originOf(request.origin);
    const refusal = target && refuse(target.host, target.port, request.method === 'CONNECT' ? undefined : request.path?.split('?', 1)[0], callerRoute() === 'undici' ? 'undici' : 'fetch');
    if (refusal) socket.destroy(refusal);
  });
  diagnosticsChannel.subscribe('http.client.request.start', (message) => {
    const request = (message as { request?: ClientRequest }).request;
    if (request === undefined) return;
    const hostHeader = request.getHeader('host');
    const target = request.method === 'CONNECT' ? authority(request.path) : typeof hostHeader === 'string' ? authority(hostHeader, (request as unknown as { protocol?: string }).protocol === 'https:' ? 443 : 80) : undefined;
    if (target === undefined) return;
    const check = (socket: Socket): void => {
      if (wasRefused(socket) || !(socket as Socket & { _handle?: unknown })._handle) return;
      const refusal = refuse(target.host, target.port, request.method === 'CONNECT' ? undefined : request.path.split('?', 1)[0], 'http');
      if (refusal) request.destroy(refusal);
    };
    if (request.socket) check(request.socket);
    else request.once('socket', check);
  });
  return true;
}

function authority(text: string, defaultPort = 443): { host: string; port: number } | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:@/\s]+)(?::(\d{1,5}))?$/.exec(text.trim());
  return match ? { host: canonicalHost(match[1]!), port: match[2] === undefined ? defaultPort : Number(match[2]) } : undefined;
}

function originOf(origin: string | URL | undefined): { host: string; port: number } | undefined {
  if (origin === undefined) return undefined;
  try {
    const url = new URL(String(origin));
    return { host: canonicalHost(url.hostname), port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)) };
  } catch {
    return undefined;
  }
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
