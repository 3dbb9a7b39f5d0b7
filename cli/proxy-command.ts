import { formatSummary, startProxy, summaryFailed } from '../proxy/internal.js';
import { describeFlags, parseArguments, UsageError, type FlagSpec } from './arguments.js';
import type { ResolvedCommandIo } from './io.js';
import { PROXY_FLAGS, proxyOptionsFrom } from './proxy-flags.js';

const FLAGS: readonly FlagSpec[] = [
  ...PROXY_FLAGS.slice(0, 2),
  { name: 'port', kind: 'integer', value: 'N', description: 'port to listen on; 0 picks a free one (default 0)' },
  ...PROXY_FLAGS.slice(2),
];

export const PROXY_USAGE = `Usage: modeltape proxy --tape FILE [--mode MODE] [--port N] [--host HOST] [--upstream NAME=URL]…

Runs the recording proxy until SIGINT or SIGTERM. Point an SDK at it by base URL:
  OPENAI_BASE_URL=http://127.0.0.1:PORT/openai/v1   ANTHROPIC_BASE_URL=http://127.0.0.1:PORT/anthropic
The first line on stdout is "modeltape proxy listening on http://HOST:PORT". On stop it finishes
in-flight writes and prints a summary; the exit status is 1 if any request missed or was refused,
or an exchange was lost to a failed write (a full disk, a read-only tape).

${describeFlags(FLAGS)}`;

export async function proxyCommand(argv: readonly string[], io: ResolvedCommandIo): Promise<number> {
  const parsed = parseArguments(argv, FLAGS, 'proxy');
  if (parsed.flags.help === true) {
    io.stdout.write(`${PROXY_USAGE}\n`);
    return 0;
  }
  if (parsed.flags.tape === undefined) throw new UsageError('modeltape proxy needs --tape FILE: the tape to replay from or record to.');
  if (parsed.positionals.length > 0)
    throw new UsageError(`Unexpected argument ${JSON.stringify(parsed.positionals[0])} for "proxy". See modeltape proxy --help.`);
  const options = proxyOptionsFrom(parsed, { tape: parsed.flags.tape as string }, io.cwd);
  const proxy = await startProxy({ ...options, env: io.env, log: (message) => io.stderr.write(`${message}\n`) });
  io.stdout.write(`modeltape proxy listening on ${proxy.url}\n`);
  io.stdout.write(`mode ${proxy.options.mode}, tape ${proxy.options.tape}\n`);
  io.stdout.write(`OPENAI_BASE_URL=${proxy.baseUrls.openai}\nANTHROPIC_BASE_URL=${proxy.baseUrls.anthropic}\n`);
  // The proxy's server never holds a process open by itself (so a test that forgets close()
  // lets its runner exit); this command is the proxy, so it holds it until a signal.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  const signal = await new Promise<string>((resolve) => {
    io.signals.once('SIGINT', () => resolve('SIGINT'));
    io.signals.once('SIGTERM', () => resolve('SIGTERM'));
  });
  clearInterval(keepAlive);
  io.stderr.write(`modeltape: ${signal}: finishing in-flight requests…\n`);
  const summary = await proxy.close();
  io.stdout.write(`${formatSummary(summary)}\n`);
  return summaryFailed(summary) ? 1 : 0;
}
