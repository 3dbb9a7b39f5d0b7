import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { startProxy, type ProxyOptions, type ProxySummary, type RunningProxy } from '../proxy/index.js';
import type { CommandIo } from './io.js';

// The SDKs refuse to construct a client without a key. Replay never sends one anywhere, so a
// placeholder (not shaped like a real key) lets keyless CI runs construct them.
const REPLAY_PLACEHOLDER_KEY = 'modeltape-replay-placeholder';

/** How the command ended, and what the proxy saw. */
export interface ProxiedRun {
  proxy: RunningProxy;
  summary: ProxySummary;
  /** The exit status to pass on for the command itself: 0, its own status, or 128 + signal. */
  commandStatus: number;
}

/**
 * Starts a proxy on a free port, runs `command` with `OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`
 * and `MODELTAPE_URL` pointing at it (and placeholder keys in replay), forwards SIGINT and
 * SIGTERM to it, and closes the proxy when it exits. `run`, `drift` and `inspect --unused` use it.
 */
export async function runUnderProxy(options: ProxyOptions, command: readonly string[], io: CommandIo, signals: NodeJS.EventEmitter, childOutput: 'inherit' | 'stderr' = 'inherit'): Promise<ProxiedRun> {
  const proxy = await startProxy({ ...options, env: io.env, log: options.log ?? ((message) => io.stderr.write(`${message}\n`)) });
  const env: NodeJS.ProcessEnv = {
    ...io.env,
    OPENAI_BASE_URL: proxy.baseUrls.openai,
    ANTHROPIC_BASE_URL: proxy.baseUrls.anthropic,
    MODELTAPE_URL: proxy.url,
  };
  if (proxy.options.mode === 'replay') {
    env.OPENAI_API_KEY ||= REPLAY_PLACEHOLDER_KEY;
    env.ANTHROPIC_API_KEY ||= REPLAY_PLACEHOLDER_KEY;
  }
  const [file, ...args] = command;
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    // With 'stderr' the command's own output goes to stderr, so stdout carries only our report.
    const child = spawn(file!, args, { stdio: childOutput === 'inherit' ? 'inherit' : ['inherit', process.stderr, 'inherit'], env });
    const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
    const onInt = forward('SIGINT');
    const onTerm = forward('SIGTERM');
    signals.on('SIGINT', onInt);
    signals.on('SIGTERM', onTerm);
    const done = (result: { code: number | null; signal: NodeJS.Signals | null; error?: Error }) => {
      signals.off('SIGINT', onInt);
      signals.off('SIGTERM', onTerm);
      resolve(result);
    };
    child.once('error', (error) => done({ code: 127, signal: null, error }));
    child.once('exit', (code, signal) => done({ code, signal }));
  });
  // A command that failed may not have reached every request: never prune after it.
  const summary = await proxy.close({ prune: exit.code === 0 && exit.signal === null && exit.error === undefined });
  if (exit.error) io.stderr.write(`modeltape: could not start ${JSON.stringify(file)}: ${exit.error.message}\n`);
  let commandStatus = 0;
  if (exit.signal) commandStatus = 128 + (constants.signals[exit.signal] ?? 0);
  else if (exit.code !== 0) {
    io.stderr.write(`modeltape: ${command.join(' ')} exited with status ${exit.code}\n`);
    commandStatus = exit.code ?? 1;
  }
  return { proxy, summary, commandStatus };
}
