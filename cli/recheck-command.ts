import { relative, resolve } from 'node:path';
import { isRecord, parseJson } from '../core/internal.js';
import {
  BUILT_IN_UPSTREAMS,
  buildUpstreamTable,
  keyVariableOf,
  loadConfig,
  parseUpstreamFlag,
  providerHosts,
  startProxy,
  type Upstream,
} from '../proxy/internal.js';
import { decodeBody, loadTape, type Exchange } from '../recordings/internal.js';
import {
  VERDICTS,
  formatRecheckReport,
  recheckExchanges,
  renderRecheckHtml,
  selectExchanges,
  type FreshResponse,
  type RecheckReport,
} from '../recheck/internal.js';
import { describeFlags, parseArguments, UsageError, type FlagSpec } from './arguments.js';
import { writeControl, type ResolvedCommandIo } from './io.js';
import { expandTapeArguments } from './tape-globs.js';
import { writeReportFile } from './write-report-file.js';

/** What sets a non-zero exit: any regression, or any change (a regression too). */
export const FAIL_ON = ['regression', 'changed'] as const;

const FLAGS: readonly FlagSpec[] = [
  { name: 'tape', kind: 'list', value: 'FILE', description: 'a tape to recheck (or give tapes and quoted globs as arguments); repeatable' },
  { name: 'live', kind: 'boolean', description: "send to the providers' own hosts, with the keys of the environment (as --mode record reads them)" },
  { name: 'upstream', kind: 'list', value: 'NAME=URL', description: 'send what went to NAME to URL instead (a stand-in, the FakeProvider); repeatable' },
  { name: 'dry-run', kind: 'boolean', description: 'list what would be sent and its estimated cost; send nothing' },
  { name: 'sample', kind: 'integer', value: 'N', description: 'check only N of the exchanges, chosen from --seed' },
  { name: 'seed', kind: 'string', value: 'S', description: 'what --sample chooses from: the same seed chooses the same exchanges (default 0)' },
  { name: 'max-requests', kind: 'integer', value: 'N', description: 'send at most N requests' },
  {
    name: 'max-cost',
    kind: 'string',
    value: 'USD',
    description: 'stop before the estimated spend passes USD (from the recorded usage at the report’s prices)',
  },
  { name: 'concurrency', kind: 'integer', value: 'N', description: 'requests in flight at once (default 2); a 429 or 503 waits as its retry-after asks' },
  { name: 'include-failures', kind: 'boolean', description: 'also send again requests whose recorded answer was a failure, a refusal or an error status' },
  { name: 'json', kind: 'string', value: 'FILE', description: 'also write the report as JSON to FILE (- for stdout, then the text goes to stderr)' },
  { name: 'html', kind: 'string', value: 'FILE', description: 'also write the report as a self-contained HTML page, recorded and fresh answers side by side' },
  { name: 'fail-on', kind: 'string', value: 'VERDICT', choices: FAIL_ON, description: 'exit 1 on any regression, or on any change or regression' },
  { name: 'config', kind: 'string', value: 'FILE', description: 'prices and upstreams (default modeltape.config.json, if present)' },
  { name: 'help', kind: 'boolean', description: 'show this help' },
];

export const RECHECK_USAGE = `Usage: modeltape recheck TAPE… (--live | --upstream NAME=URL…) [--dry-run] [--sample N --seed S] [--max-requests N] [--max-cost USD] [--fail-on regression|changed] [--json FILE] [--html FILE]

Is the tape still true? Sends the model turns the tapes recorded to the upstream again and sorts
each fresh answer against the recorded one, by what a program acts on:
  identical    the same answer (ids, timestamps and usage aside);
  equivalent   the text differs; the status, finish, tool names and argument keys are the same,
               and structured output is still valid against the request's schema;
  changed      the same kind of answer with other values a program may act on (a tool
               argument's value, a value in structured output);
  regression   a behaviour the code relied on is gone: a tool call became text or another tool,
               the finish changed (stop → length, a refusal), structured output is no longer
               valid, an error status, a model that no longer exists.
Recordings of a failure, a refusal or an error status are not sent again unless
--include-failures. Without --live nothing goes to a provider's own host: every upstream the
tapes use must be named with --upstream (the FakeProvider, a stand-in). With --live the keys
come from the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, AWS credentials
for Bedrock, …), as modeltape run --mode record reads them; no key is ever printed or written.
Exit 1 when nothing could be checked, or when --fail-on finds what it names.

${describeFlags(FLAGS)}`;

export async function recheckCommand(argv: readonly string[], io: ResolvedCommandIo): Promise<number> {
  const parsed = parseArguments(argv, FLAGS, 'recheck');
  if (parsed.flags.help === true) {
    io.stdout.write(`${RECHECK_USAGE}\n`);
    return 0;
  }
  const patterns = [...((parsed.flags.tape as string[] | undefined) ?? []), ...parsed.positionals];
  if (patterns.length === 0)
    throw new UsageError('modeltape recheck needs the tapes to recheck: modeltape recheck tapes/a.jsonl --upstream openai=http://127.0.0.1:8080 (or --live).');
  const maxCostText = parsed.flags['max-cost'] as string | undefined;
  const maxCost = maxCostText === undefined || !/^\$?\d+(\.\d+)?$/.test(maxCostText.trim()) ? undefined : Number(maxCostText.trim().replace(/^\$/, ''));
  if (maxCostText !== undefined && maxCost === undefined)
    throw new UsageError(`--max-cost is ${JSON.stringify(maxCostText)}: give a number of US dollars, 0 or more (e.g. --max-cost 0.50).`);
  for (const name of ['sample', 'max-requests', 'concurrency'] as const) {
    const value = parsed.flags[name] as number | undefined;
    if (value !== undefined && (value < (name === 'concurrency' ? 1 : 0) || value > 1_000_000))
      throw new UsageError(`--${name} is ${value}: give a number from ${name === 'concurrency' ? 1 : 0} to 1000000.`);
  }
  const live = parsed.flags.live === true;
  const dryRun = parsed.flags['dry-run'] === true;
  const { config } = loadConfig(parsed.flags.config as string | undefined, io.cwd);
  const named: Record<string, string> = {};
  for (const value of (parsed.flags.upstream as string[] | undefined) ?? []) {
    const { name, baseUrl } = parseUpstreamFlag(value);
    named[name] = baseUrl;
  }
  const upstreams = buildUpstreamTable({ ...config.upstreams, ...named });

  const files = [...new Set(expandTapeArguments(patterns, io.cwd, 'recheck', 'nothing was sent').map((file) => resolve(io.cwd, file)))];
  const tapes = files.map((file) => ({ file, exchanges: loadTape(file).exchanges }));
  const shown = (file: string): string => relative(io.cwd, file) || file;
  const { selected, skipped } = selectExchanges(tapes, {
    includeFailures: parsed.flags['include-failures'] === true,
    ...(parsed.flags.sample === undefined ? {} : { sample: parsed.flags.sample as number }),
    ...(parsed.flags.seed === undefined ? {} : { seed: parsed.flags.seed as string }),
  });

  // Where each exchange would go, checked before anything is sent.
  const used = new Map<string, Upstream>();
  for (const entry of selected) {
    const upstream = upstreams.get(entry.exchange.upstream);
    if (upstream === undefined)
      throw new UsageError(
        `modeltape recheck: ${shown(entry.tape)}:${entry.line} went to upstream "${entry.exchange.upstream}", which no --upstream names: add --upstream ${entry.exchange.upstream}=URL.`,
      );
    if (upstream.unset !== undefined) throw new UsageError(`modeltape recheck: ${shown(entry.tape)}:${entry.line}: ${upstream.unset}.`);
    used.set(upstream.name, upstream);
  }
  const keys = new Map<string, Record<string, string>>();
  if (!dryRun) {
    const providerHostList = providerHosts(buildUpstreamTable({}));
    for (const upstream of used.values()) {
      const host = new URL(upstream.baseUrl).host.toLowerCase();
      const own = !Object.hasOwn(named, upstream.name) || providerHostList.some((pattern) => hostMatches(pattern, host));
      if (own && !live && !(BUILT_IN_UPSTREAMS[upstream.name]?.local === true && upstream.baseUrl === BUILT_IN_UPSTREAMS[upstream.name]!.baseUrl))
        throw new UsageError(
          `modeltape recheck: the tapes' requests to "${upstream.name}" would go to ${upstream.baseUrl}, a provider's own host, which spends money with a real key. Add --live to send them there (keys from the environment), or name a stand-in with --upstream ${upstream.name}=http://127.0.0.1:PORT.`,
        );
      keys.set(upstream.name, credentialHeaders(upstream, io.env, live));
    }
  }

  const progressOn = io.stderr.isTTY === true;
  const report = await withProxy(
    dryRun
      ? undefined
      : { tape: files[0]!, upstreams: { ...config.upstreams, ...named }, env: io.env, log: (message) => io.stderr.write(`modeltape recheck: ${message}\n`) },
    (url) =>
      recheckExchanges(selected, skipped, {
        dryRun,
        send: (exchange) => send(url!, exchange, keys.get(exchange.upstream) ?? {}),
        ...(parsed.flags.concurrency === undefined ? {} : { concurrency: parsed.flags.concurrency as number }),
        ...(parsed.flags['max-requests'] === undefined ? {} : { maxRequests: parsed.flags['max-requests'] as number }),
        ...(maxCost === undefined ? {} : { maxCostUsd: maxCost }),
        ...(config.prices === undefined ? {} : { prices: config.prices }),
        onProgress: (settled, total) => {
          if (!progressOn) return;
          writeControl(io.stderr, settled === total ? 'clearLine' : 'lineStart');
          if (settled < total) io.stderr.write(`recheck ${settled}/${total}`);
        },
      }),
  );

  const forShow: RecheckReport = {
    ...report,
    checked: report.checked.map((entry) => ({ ...entry, tape: shown(entry.tape) })),
    notChecked: report.notChecked.map((entry) => ({ ...entry, tape: shown(entry.tape) })),
    planned: report.planned.map((entry) => ({ ...entry, tape: shown(entry.tape) })),
  };
  const json = parsed.flags.json as string | undefined;
  const text = formatRecheckReport(forShow);
  if (json === '-') {
    io.stdout.write(`${JSON.stringify(forShow, null, 2)}\n`);
    io.stderr.write(text);
  } else {
    io.stdout.write(text);
    if (json !== undefined) writeReportFile(io, 'recheck', json, `${JSON.stringify(forShow, null, 2)}\n`, '--json');
  }
  const html = parsed.flags.html as string | undefined;
  if (html !== undefined) writeReportFile(io, 'recheck', html, renderRecheckHtml(forShow));
  if (dryRun) return 0;
  if (report.checked.length === 0) {
    io.stderr.write('modeltape recheck: nothing was checked (see "Not checked" above); a recheck that checked nothing fails.\n');
    return 1;
  }
  const failOn = parsed.flags['fail-on'] as (typeof FAIL_ON)[number] | undefined;
  const failing = failOn === undefined ? [] : VERDICTS.slice(VERDICTS.indexOf(failOn === 'changed' ? 'changed' : 'regression'));
  const failed = failing.reduce((sum, verdict) => sum + report.counts[verdict], 0);
  if (failed > 0) {
    io.stderr.write(
      `modeltape recheck: ${failed} exchange${failed === 1 ? '' : 's'} ${failOn === 'changed' ? 'changed or regressed' : 'regressed'} (--fail-on ${failOn}).\n`,
    );
    return 1;
  }
  return 0;
}

// A passthrough proxy in front of the upstreams: the requests go out through the one path that
// forwards (its routing, its Bedrock re-signing), and nothing is written to any tape.
async function withProxy<T>(
  options: { tape: string; upstreams: Record<string, string>; env: Readonly<Record<string, string | undefined>>; log: (message: string) => void } | undefined,
  work: (url: string | undefined) => Promise<T>,
): Promise<T> {
  if (options === undefined) return work(undefined);
  const proxy = await startProxy({ ...options, mode: 'passthrough', host: '127.0.0.1', port: 0 });
  try {
    return await work(proxy.url);
  } finally {
    await proxy.close();
  }
}

async function send(proxyUrl: string, exchange: Exchange, credential: Record<string, string>): Promise<FreshResponse> {
  const { request } = exchange;
  const query = request.query.length === 0 ? '' : `?${new URLSearchParams(request.query).toString()}`;
  const body = request.body === undefined ? undefined : decodeBody(request.body);
  const response = await fetch(`${proxyUrl}/${exchange.upstream}${request.path}${query}`, {
    method: request.method,
    headers: { ...request.headers, ...credential },
    ...(body === undefined || body.length === 0 ? {} : { body }),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  // The proxy's own answer when the upstream could not be reached: not the provider's.
  if (response.status === 502) {
    const json = parseJson(bytes.toString('utf8'));
    const error = isRecord(json) ? json.error : undefined;
    if (isRecord(error) && error.type === 'modeltape_upstream_error') throw new Error(String(error.message));
  }
  return { status: response.status, headers, body: bytes };
}

// The credential a request carries, from the environment, as the provider's SDK sends it. Bedrock
// has none here: the proxy signs each request with the AWS credentials of this environment.
function credentialHeaders(upstream: Upstream, env: Readonly<Record<string, string | undefined>>, live: boolean): Record<string, string> {
  if (upstream.provider === 'bedrock' || upstream.provider === 'ollama' || upstream.provider === 'mcp') return {};
  const variable = keyVariableOf(upstream.provider, upstream.name);
  const key = env[variable] || (upstream.provider === 'gemini' ? env.GOOGLE_API_KEY : undefined);
  if (key === undefined || key === '') {
    if (live)
      throw new UsageError(
        `modeltape recheck: with --live, the tapes' requests to "${upstream.name}" need a key: set ${variable} in the environment (nothing was sent).`,
      );
    return {};
  }
  switch (upstream.provider) {
    case 'anthropic':
      return { 'x-api-key': key };
    case 'gemini':
      return { 'x-goog-api-key': key };
    case 'azure':
      return { 'api-key': key };
    default:
      return { authorization: `Bearer ${key}` };
  }
}

// A host of the guard's list: `*.openai.azure.com` matches any name under it, a `*` label one label.
function hostMatches(pattern: string, host: string): boolean {
  const bare = host.replace(/:\d+$/, '');
  if (pattern.startsWith('*.')) return bare.endsWith(pattern.slice(1));
  if (!pattern.includes('*')) return pattern === host || pattern === bare;
  return new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^.]+')}$`,
  ).test(bare);
}
