import { formatSummary, summaryFailed } from '../proxy/index.js';
import { describeFlags, parseArguments, UsageError } from './arguments.js';
import type { CommandIo } from './io.js';
import { PROXY_FLAGS, proxyOptionsFrom } from './proxy-flags.js';
import { runUnderProxy } from './run-under-proxy.js';

/** The tape `run` uses when no --tape is given. */
export const DEFAULT_RUN_TAPE = 'tapes/modeltape.jsonl';

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
  const { summary, commandStatus } = await runUnderProxy(options, parsed.command, io, signals);
  io.stderr.write(`${formatSummary(summary)}\n`);
  if (commandStatus !== 0) return commandStatus;
  if (summaryFailed(summary)) {
    io.stderr.write('modeltape: failing the run: the command passed, but the proxy saw the problems above (a swallowed error is still an error).\n');
    return 1;
  }
  return 0;
}
