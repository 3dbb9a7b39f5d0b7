import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describeFlags, parseArguments, UsageError, type FlagSpec } from './arguments.js';
import { loadConfig, runUnderProxy, runVerdict } from '../proxy/internal.js';
import { recordedAtOf } from '../recordings/internal.js';
import type { ResolvedCommandIo } from './io.js';
import { NETWORK_FLAGS, PROXY_FLAGS, networkFrom, proxyOptionsFrom } from './proxy-flags.js';
import { staleVerdict, tapeDatesOf, type AgeLimit } from '../tape-report/internal.js';
import { AGE_FLAGS, ageDay, ageLimitFrom } from './report-command.js';

/** The tape `run` uses when no --tape is given. */
export const DEFAULT_RUN_TAPE = 'tapes/modeltape.jsonl';

const FLAGS: readonly FlagSpec[] = [
  ...PROXY_FLAGS,
  ...NETWORK_FLAGS,
  ...AGE_FLAGS,
  { name: 'allow-empty', kind: 'boolean', description: 'in replay, accept a run in which no request reached a tape (by default it fails: it checked nothing)' },
];

export const RUN_USAGE = `Usage: modeltape run [--tape FILE] [--mode MODE] [--upstream NAME=URL]… -- CMD [ARG]…

Starts the proxy on a free port and runs CMD with these set:
  OPENAI_BASE_URL, OPENAI_API_BASE, OPENAI_BASE           = http://127.0.0.1:PORT/openai/v1
  ANTHROPIC_BASE_URL, ANTHROPIC_API_URL, ANTHROPIC_API_BASE = http://127.0.0.1:PORT/anthropic
  OLLAMA_HOST                                             = http://127.0.0.1:PORT/ollama
  GOOGLE_GEMINI_BASE_URL                                   = http://127.0.0.1:PORT/gemini
  MODELTAPE_URL=http://127.0.0.1:PORT, MODELTAPE_MODE=MODE
Tape sessions opened inside CMD (openTape in a test) follow the run's mode and count in its summary.

In replay mode (the default) nothing that CMD starts reaches a provider:
  - every Node process gets the guard preloaded (NODE_OPTIONS=--import …, after yours): it stops
    each connection to a provider host before DNS, and reports it to the run;
  - HTTPS_PROXY, HTTP_PROXY and ALL_PROXY point at the proxy (NO_PROXY=loopback), which refuses
    every host off loopback, for clients in other languages (curl, Python);
  - OPENAI_API_KEY, ANTHROPIC_API_KEY and GEMINI_API_KEY get a placeholder when unset;
  - with --network namespace (Linux), CMD runs in a network namespace of its own that reaches
    only the proxy and the --allow-port ports, whatever its processes do.
It fails (exit 1) when CMD failed, any request missed a tape, anything tried to reach a provider,
or no request reached a tape at all (--allow-empty accepts that), even if CMD swallowed the error.
Prints a summary on stderr. The tape defaults to ${DEFAULT_RUN_TAPE}.
With --max-age (or maxAge in the config), the tapes a replay read that are older are stale: a
warning after the summary, or a failed run with --stale fail.

${describeFlags(FLAGS)}`;

export async function runCommand(argv: readonly string[], io: ResolvedCommandIo): Promise<number> {
  const parsed = parseArguments(argv, FLAGS, 'run');
  if (parsed.flags.help === true) {
    io.stdout.write(`${RUN_USAGE}\n`);
    return 0;
  }
  if (parsed.command === undefined || parsed.command.length === 0) {
    throw new UsageError('modeltape run needs a command after --, e.g. modeltape run --tape tapes/a.jsonl -- npm test');
  }
  if (parsed.positionals.length > 0) {
    throw new UsageError(
      `Unexpected argument ${JSON.stringify(parsed.positionals[0])} before --. Put the command after --: modeltape run [flags] -- ${parsed.positionals.join(' ')}`,
    );
  }
  const options = proxyOptionsFrom(parsed, { tape: DEFAULT_RUN_TAPE, port: 0 }, io.cwd);
  const { config } = loadConfig(parsed.flags.config as string | undefined, io.cwd);
  const ageLimit = ageLimitFrom(parsed, config);
  const network = networkFrom(parsed, config, io.env);
  // Without --tape the command may replay from its own tapes (openTape in its tests): a missing
  // default tape is then an empty one, and any request that reaches it misses.
  if (parsed.flags.tape === undefined) options.missingTape = 'empty';
  const { summary, report, commandStatus, started, unused, offline } = await runUnderProxy(options, parsed.command, io, 'inherit', { network });
  const verdict = runVerdict(summary, report, {
    allowEmpty: parsed.flags['allow-empty'] === true,
    unused,
    commandStarted: started,
    ...(offline === undefined ? {} : { offline }),
  });
  io.stderr.write(`${verdict.lines.join('\n')}\n`);
  const stale = ageLimit === undefined ? undefined : staleTapes(options.mode ?? 'replay', resolve(io.cwd, options.tape), report, ageLimit, io.env);
  for (const line of stale?.lines ?? []) io.stderr.write(`${line}\n`);
  if (commandStatus !== 0) return commandStatus;
  if (verdict.failed) {
    io.stderr.write('modeltape: failing the run: the command passed, but the run saw the problems above (a swallowed error is still an error).\n');
    return 1;
  }
  return stale?.failed === true ? 1 : 0;
}

// The tapes a replay read, the run's own and those its tests opened, checked against the age limit.
function staleTapes(
  mode: string,
  tape: string,
  report: { sessions: ReadonlyArray<{ mode: string; tape: string; path?: string }> },
  limit: AgeLimit,
  env: Readonly<Record<string, string | undefined>>,
): ReturnType<typeof staleVerdict> {
  const files = new Set<string>();
  if (mode === 'replay' && existsSync(tape)) files.add(tape);
  for (const session of report.sessions) {
    const read = session.path ?? session.tape;
    if (session.mode === 'replay' && existsSync(read)) files.add(read);
  }
  return staleVerdict(
    [...files].map((file) => tapeDatesOf(file)),
    limit,
    recordedAtOf(ageDay(env)),
  );
}
