import type { Readable, Writable } from 'node:stream';
import { bridgeMcpStdio, formatSummary, STDIO_MCP_UPSTREAM, summaryFailed } from '../proxy/internal.js';
import { buildDriftReport } from '../drift-report/internal.js';
import { describeFlags, parseArguments, UsageError, type FlagSpec } from './arguments.js';
import type { ResolvedCommandIo } from './io.js';
import { PROXY_FLAGS, proxyOptionsFrom } from './proxy-flags.js';

// The proxy's flags that mean something for one stdio server (no port, host, upstreams, pace or chaos).
const SHARED = new Set(['tape', 'mode', 'repeat', 'allow-record-in-ci', 'require-live', 'prune', 'max-request-body', 'max-response-body', 'config', 'help']);

const FLAGS: readonly FlagSpec[] = [
  ...PROXY_FLAGS.filter((flag) => SHARED.has(flag.name) && flag.name !== 'help'),
  { name: 'name', kind: 'string', value: 'NAME', description: `the server's name on the tape, for a tape of several servers (default ${STDIO_MCP_UPSTREAM})` },
  { name: 'help', kind: 'boolean', description: 'show this help' },
];

export const MCP_USAGE = `Usage: modeltape mcp --tape FILE [--mode MODE] [--name NAME] -- SERVER_CMD [ARGS…]

Stands where an agent's config names an MCP server command (stdio): put "modeltape mcp --tape FILE --"
before the command. Stdin and stdout carry the protocol, one JSON-RPC message a line; everything
modeltape says goes to stderr.
  replay (the default, and always under CI): answers from the tape without starting SERVER_CMD; a
    request that was not recorded gets a JSON-RPC error naming the nearest recorded call.
  record: starts SERVER_CMD and records every message both ways.
  auto: replays what the tape has; at the first miss it starts SERVER_CMD, shows it the session's
    handshake and the client's answers to what the recorded server asked there (roots/list), and
    records from there.
  passthrough: starts SERVER_CMD and writes nothing.
A client line that is not one JSON-RPC message gets JSON-RPC's -32700 or -32600 error; a line over
--max-request-body (from the client) or --max-response-body (from the server) is refused, never
held whole.
It ends when the client closes stdin (or on SIGINT or SIGTERM) and prints a summary to stderr; the
exit status is 1 if any message missed or was refused, or nothing reached it at all. Under
modeltape run, the run's verdict counts it as a tape session.

${describeFlags(FLAGS)}`;

export async function mcpCommand(argv: readonly string[], io: ResolvedCommandIo): Promise<number> {
  const parsed = parseArguments(argv, FLAGS, 'mcp');
  if (parsed.flags.help === true) {
    io.stdout.write(`${MCP_USAGE}\n`);
    return 0;
  }
  if (parsed.flags.tape === undefined) throw new UsageError('modeltape mcp needs --tape FILE: the tape to replay the server from or record it to.');
  if (parsed.positionals.length > 0)
    throw new UsageError(`Unexpected argument ${JSON.stringify(parsed.positionals[0])} for "mcp": put the server command after --. See modeltape mcp --help.`);
  const command = parsed.command ?? [];
  if (command.length === 0)
    throw new UsageError('modeltape mcp needs the server command after --, e.g. modeltape mcp --tape tapes/docs.jsonl -- npx -y @acme/docs-mcp');
  const options = proxyOptionsFrom(parsed, { tape: parsed.flags.tape as string }, io.cwd);
  const bridge = bridgeMcpStdio({
    ...options,
    ...(parsed.flags.name === undefined ? {} : { name: parsed.flags.name as string }),
    command,
    stdin: io.stdin as Readable,
    stdout: io.stdout as Writable,
    // The server's stderr is output too: masked and escaped as everything this command prints.
    stderr: io.stderr as Writable,
    env: io.env,
    cwd: io.cwd,
    log: (message) => io.stderr.write(`${message}\n`),
    driftsOf: (summary) => buildDriftReport(summary, []).drifts.map((drift) => ({ ...drift, tape: summary.tape })),
  });
  const stop = (): void => bridge.stop();
  io.signals.once('SIGINT', stop);
  io.signals.once('SIGTERM', stop);
  const { summary, serverStatus } = await bridge.done;
  io.signals.off('SIGINT', stop);
  io.signals.off('SIGTERM', stop);
  io.stderr.write(`${formatSummary(summary)}\n`);
  const traffic = summary.hits + summary.misses + summary.recorded + summary.passthrough + summary.refused;
  if (traffic + summary.upstreamErrors === 0) {
    io.stderr.write(`modeltape mcp: no message reached ${summary.tape}: the client never spoke to the server, so nothing was checked.\n`);
    return 1;
  }
  if (summaryFailed(summary) || summary.aborted > 0) return 1;
  return serverStatus !== undefined && serverStatus !== 0 && summary.mode !== 'replay' ? serverStatus : 0;
}
