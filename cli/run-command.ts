import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { formatSummary, startProxy, summaryFailed } from '../proxy/index.js';
import { describeFlags, parseArguments, UsageError } from './arguments.js';
import type { CommandIo } from './io.js';
import { PROXY_FLAGS, proxyOptionsFrom } from './proxy-flags.js';

/** The tape `run` uses when no --tape is given. */
export const DEFAULT_RUN_TAPE = 'tapes/modeltape.jsonl';

// The SDKs refuse to construct a client without a key. Replay never sends one anywhere, so a
// placeholder (not shaped like a real key) lets keyless CI runs construct them.
const REPLAY_PLACEHOLDER_KEY = 'modeltape-replay-placeholder';

export const RUN_USAGE = `Usage: modeltape run [--tape FILE] [--mode MODE] [--upstream NAME=URL]… -- CMD [ARG]…

Starts the proxy on a free port and runs CMD with these set:
  OPENAI_BASE_URL=http://127.0.0.1:PORT/openai/v1
  ANTHROPIC_BASE_URL=http://127.0.0.1:PORT/anthropic   (works for @anthropic-ai/sdk and @ai-sdk/anthropic)
  MODELTAPE_URL=http://127.0.0.1:PORT
In replay mode OPENAI_API_KEY and ANTHROPIC_API_KEY get a placeholder when unset: no request
leaves the machine. Prints a summary on stderr and exits non-zero if CMD failed or any request
missed the tape, even if CMD swallowed the error. The tape defaults to ${DEFAULT_RUN_TAPE}.

${describeFlags(PROXY_FLAGS)}`;

export async function runCommand(argv: readonly string[], io: CommandIo, signals: NodeJS.EventEmitter = process): Promise<number> {
  const parsed = parseArguments(argv, PROXY_FLAGS, 'run');
  if (parsed.flags.help === true) {
    io.stdout.write(`${RUN_USAGE}\n`);
    return 0;
  }
  if (parsed.command === undefined || parsed.command.length === 0) {
    throw new UsageError('modeltape run needs a command after --, e.g. modeltape run --tape tapes/a.jsonl -- npm test');
  }
  if (parsed.positionals.length > 0) {
    throw new UsageError(`Unexpected argument ${JSON.stringify(parsed.positionals[0])} before --. Put the command after --: modeltape run [flags] -- ${parsed.positionals.join(' ')}`);
  }
  const options = proxyOptionsFrom(parsed, { tape: DEFAULT_RUN_TAPE, port: 0 });
  const proxy = await startProxy({ ...options, env: io.env, log: (message) => io.stderr.write(`${message}\n`) });
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
  const [file, ...args] = parsed.command;
  const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    const child = spawn(file!, args, { stdio: 'inherit', env });
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
  const summary = await proxy.close();
  if (exit.error) io.stderr.write(`modeltape: could not start ${JSON.stringify(file)}: ${exit.error.message}\n`);
  io.stderr.write(`${formatSummary(summary)}\n`);
  if (exit.signal) return 128 + (constants.signals[exit.signal] ?? 0);
  if (exit.code !== 0) {
    io.stderr.write(`modeltape: ${parsed.command.join(' ')} exited with status ${exit.code}\n`);
    return exit.code ?? 1;
  }
  if (summaryFailed(summary)) {
    io.stderr.write('modeltape: failing the run: the command passed, but the proxy saw the problems above (a swallowed error is still an error).\n');
    return 1;
  }
  return 0;
}
