import { decodeBody, frameBytes, readTape, TapeFormatError, type Exchange, type LoadedExchange } from '../recordings/internal.js';
import { unusedExchange, unusedTable } from '../replay/internal.js';
import { parseArguments, UsageError, type FlagSpec } from './arguments.js';
import { PROXY_FLAGS, proxyOptionsFrom } from './proxy-flags.js';
import { runUnderProxy } from '../proxy/internal.js';
import { progressReporter, type ResolvedCommandIo } from './io.js';

const FLAGS: readonly FlagSpec[] = [
  { name: 'json', kind: 'boolean', description: 'print the groups as JSON' },
  { name: 'unused', kind: 'boolean', description: 'replay the tape around the command after -- and list the exchanges it never used' },
  ...PROXY_FLAGS.filter((flag) => flag.name === 'upstream' || flag.name === 'config'),
  { name: 'help', kind: 'boolean', description: 'show this help' },
];

export const INSPECT_USAGE = `Usage: modeltape inspect FILE [--json]
       modeltape inspect FILE --unused -- CMD [ARG]…

Lists what a tape holds, grouped by upstream, endpoint and model: how many exchanges, how many
streamed, request and response sizes, and their sources (live or fake). With --unused it
replays the tape around CMD (as modeltape run does) and lists the exchanges CMD never used:
line, endpoint, ordinal and the first line of the prompt. --mode auto --prune drops them.`;

/** One row of `inspect`: exchanges sharing upstream, endpoint and model. */
export interface InspectGroup {
  upstream: string;
  endpoint: string;
  model: string;
  exchanges: number;
  streamed: number;
  requestBytes: number;
  responseBytes: number;
  live: number;
  fake: number;
  /** Tape lines of the exchanges in this group. */
  lines: number[];
}

export async function inspectCommand(argv: readonly string[], io: ResolvedCommandIo): Promise<number> {
  const parsed = parseArguments(argv, FLAGS, 'inspect');
  if (parsed.flags.help === true) {
    io.stdout.write(`${INSPECT_USAGE}\n`);
    return 0;
  }
  if (parsed.positionals.length !== 1) throw new UsageError('modeltape inspect needs exactly one tape file: modeltape inspect FILE');
  const file = parsed.positionals[0]!;
  if (parsed.flags.unused === true) {
    if (parsed.command === undefined || parsed.command.length === 0) {
      throw new UsageError('modeltape inspect --unused needs the command that uses the tape, after --: modeltape inspect tapes/a.jsonl --unused -- npm test');
    }
    // The same upstreams and key rules as modeltape run (flags, then modeltape.config.json).
    const options = { ...proxyOptionsFrom(parsed, { tape: file, port: 0 }, io.cwd), tape: file, mode: 'replay' as const, log: () => undefined };
    const { proxy, commandStatus } = await runUnderProxy(options, parsed.command, io);
    const unused = (proxy.engine?.unused() ?? []).map((entry) => unusedExchange(entry.exchange, entry.line));
    io.stdout.write(`${file}: ${unused.length} of ${proxy.engine?.size ?? 0} exchanges unused by ${parsed.command.join(' ')}\n`);
    if (unused.length > 0) io.stdout.write(`${unusedTable(unused).replace(/^/gm, '  ')}\n`);
    return commandStatus;
  }
  const progress = progressReporter(io, `reading ${file}`);
  const groups = new Map<string, InspectGroup>();
  let total = 0;
  // Counted as read and not kept, so a tape of any size is inspected in flat memory.
  const count = ({ exchange, line }: LoadedExchange): void => {
    total++;
    const endpoint = `${exchange.request.method} ${exchange.request.path}`;
    const model = modelOf(exchange);
    const id = `${exchange.upstream}\u0000${endpoint}\u0000${model}`;
    let group = groups.get(id);
    if (group === undefined) {
      group = { upstream: exchange.upstream, endpoint, model, exchanges: 0, streamed: 0, requestBytes: 0, responseBytes: 0, live: 0, fake: 0, lines: [] };
      groups.set(id, group);
    }
    group.exchanges++;
    if (exchange.response.stream) group.streamed++;
    group.requestBytes += decodeBody(exchange.request.body).length;
    group.responseBytes += responseBytes(exchange);
    group[exchange.source]++;
    group.lines.push(line);
  };
  const contents = readTape(file, { onProgress: progress, keepExchanges: false, onExchange: count });
  progress.end();
  if (contents.problems.length > 0 || contents.header === undefined) throw new TapeFormatError(contents.problems);
  for (const warning of contents.warnings) io.stderr.write(`${warning.file}:${warning.line}: warning: ${warning.message}\n`);

  const rows = [...groups.values()];
  if (parsed.flags.json === true) {
    io.stdout.write(`${JSON.stringify({ file, header: contents.header, exchanges: total, groups: rows }, null, 2)}\n`);
    return 0;
  }
  io.stdout.write(
    `${file}: ${total} exchange${total === 1 ? '' : 's'} (tape schemaVersion ${contents.header.schemaVersion}, written by ${contents.header.writtenBy})\n`,
  );
  if (rows.length === 0) return 0;
  const table = [
    ['upstream', 'endpoint', 'model', 'exchanges', 'streamed', 'request', 'response', 'source'],
    ...rows.map((row) => [
      row.upstream,
      row.endpoint,
      row.model,
      String(row.exchanges),
      String(row.streamed),
      formatBytes(row.requestBytes),
      formatBytes(row.responseBytes),
      [row.live > 0 ? `${row.live} live` : '', row.fake > 0 ? `${row.fake} fake` : ''].filter(Boolean).join(', '),
    ]),
  ];
  const widths = table[0]!.map((_, column) => Math.max(...table.map((row) => row[column]!.length)));
  const numeric = new Set([3, 4, 5, 6]);
  for (const row of table) {
    io.stdout.write(
      `  ${row
        .map((cell, column) => (numeric.has(column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
        .join('  ')
        .trimEnd()}\n`,
    );
  }
  return 0;
}

function modelOf(exchange: Exchange): string {
  const body = exchange.request.body;
  if (body && 'json' in body && typeof body.json === 'object' && body.json !== null) {
    const model = (body.json as { model?: unknown }).model;
    if (typeof model === 'string') return model;
  }
  const fromPath = /\/models\/([^/:]+)/.exec(exchange.request.path);
  return fromPath ? fromPath[1]! : '-';
}

function responseBytes(exchange: Exchange): number {
  if (exchange.response.stream) {
    return exchange.response.stream.frames.reduce((sum, frame) => sum + ('text' in frame ? Buffer.byteLength(frame.text) : frameBytes(frame).length), 0);
  }
  return decodeBody(exchange.response.body).length;
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
