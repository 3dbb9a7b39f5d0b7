import { mkdirSync, realpathSync } from 'node:fs';
import { basename, dirname, relative, resolve } from 'node:path';
import { isRecord, parseJson } from '../core/internal.js';
import {
  BUILT_IN_UPSTREAMS,
  buildUpstreamTable,
  keyVariableOf,
  loadConfig,
  parseUpstreamFlag,
  pinnedDate,
  providerHosts,
  startProxy,
  type Upstream,
} from '../proxy/internal.js';
import { decodeBody, loadTape, type Exchange } from '../recordings/internal.js';
import {
  ACCEPTABLE_VERDICTS,
  VERDICTS,
  formatRecheckReport,
  lineId,
  refreshTapes,
  type AcceptRules,
  type AcceptableVerdict,
  type FreshAnswer,
  type RefreshedTape,
  type TapeExchange,
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
  {
    name: 'write',
    kind: 'string',
    value: 'DIR',
    description: 'write each tape again into DIR (same file name), identical and equivalent answers refreshed; review with git diff --no-index',
  },
  {
    name: 'accept',
    kind: 'list',
    value: 'WHAT',
    description: 'with --write, also take the fresh answer of: changed, regression, or one line TAPE:LINE; repeatable',
  },
  { name: 'fail-on', kind: 'string', value: 'VERDICT', choices: FAIL_ON, description: 'exit 1 on any regression, or on any change or regression' },
  { name: 'config', kind: 'string', value: 'FILE', description: 'prices and upstreams (default modeltape.config.json, if present)' },
  { name: 'help', kind: 'boolean', description: 'show this help' },
];

export const RECHECK_USAGE = `Usage: modeltape recheck TAPE… (--live | --upstream NAME=URL…) [--dry-run] [--sample N --seed S] [--max-requests N] [--max-cost USD] [--fail-on regression|changed] [--json FILE] [--html FILE] [--write DIR [--accept changed|regression|TAPE:LINE]…]

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
With --write DIR every tape is written again into DIR under its own file name: a line whose fresh
answer was identical or equivalent takes it (key, order and notes kept, recordedAt renewed: today,
or the day SOURCE_DATE_EPOCH pins); a changed or regression line keeps its recording unless
--accept names its verdict or the line; every other line is copied as it was. A fresh answer
holding anything shaped like a key is refused, as recording refuses it. DIR may not be a tape's own
folder: review the refresh with git diff --no-index tapes DIR, then copy it over.
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
  const writeDir = parsed.flags.write === undefined ? undefined : resolve(io.cwd, parsed.flags.write as string);
  const acceptValues = (parsed.flags.accept as string[] | undefined) ?? [];
  if (acceptValues.length > 0 && writeDir === undefined)
    throw new UsageError('--accept says which fresh answers --write may take: add --write DIR (e.g. --write tapes.rechecked --accept changed).');
  if (writeDir !== undefined && dryRun) throw new UsageError('--write writes what a recheck found, and --dry-run sends nothing: drop one of them.');
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

  const accept = writeDir === undefined ? undefined : acceptRulesOf(acceptValues, files, selected, io.cwd, shown);
  if (writeDir !== undefined) checkWriteDir(writeDir, files, shown);

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
  const answers = new Map<string, FreshAnswer>();
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
        ...(writeDir === undefined
          ? {}
          : { onChecked: (checked, fresh) => answers.set(lineId(checked.tape, checked.line), { verdict: checked.verdict, fresh }) }),
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
  let written: RefreshedTape[] | undefined;
  if (writeDir !== undefined) {
    // Each word of a credential header (`Bearer sk-…`): an answer that echoes the key alone is refused too.
    const credentials = [...keys.values()].flatMap((headers) => Object.values(headers).flatMap((value) => value.split(/\s+/)));
    for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN']) if (io.env[name]) credentials.push(io.env[name]!);
    mkdirSync(writeDir, { recursive: true });
    written = refreshTapes(tapes, answers, { dir: writeDir, accept: accept!, now: pinnedDate(io.env) ?? new Date(), credentials }).map((tape) => ({
      ...tape,
      tape: shown(tape.tape),
      target: shown(tape.target),
    }));
  }
  const json = parsed.flags.json as string | undefined;
  const text = formatRecheckReport(forShow) + (written === undefined ? '' : formatWritten(written, shown(writeDir!), files.map(shown)));
  const jsonText = `${JSON.stringify(written === undefined ? forShow : { ...forShow, written }, null, 2)}\n`;
  if (json === '-') {
    io.stdout.write(jsonText);
    io.stderr.write(text);
  } else {
    io.stdout.write(text);
    if (json !== undefined) writeReportFile(io, 'recheck', json, jsonText, '--json');
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

// What --accept names: a verdict, or one line of one of the tapes that is sent again.
function acceptRulesOf(
  values: readonly string[],
  files: readonly string[],
  selected: readonly TapeExchange[],
  cwd: string,
  shown: (file: string) => string,
): AcceptRules {
  const verdicts = new Set<AcceptableVerdict>();
  const lines = new Set<string>();
  for (const value of values) {
    if ((ACCEPTABLE_VERDICTS as readonly string[]).includes(value)) {
      verdicts.add(value as AcceptableVerdict);
      continue;
    }
    const match = /^(.+):(\d+)$/.exec(value);
    if (match === null)
      throw new UsageError(`--accept ${JSON.stringify(value)}: give changed, regression, or one line of a tape as TAPE:LINE (e.g. --accept tapes/a.jsonl:7).`);
    const file = resolve(cwd, match[1]!);
    const line = Number(match[2]);
    if (!files.includes(file)) throw new UsageError(`--accept ${value}: ${match[1]} is not one of the tapes rechecked (${files.map(shown).join(', ')}).`);
    if (!selected.some((entry) => entry.tape === file && entry.line === line))
      throw new UsageError(
        `--accept ${value}: line ${line} of ${shown(file)} is not an exchange this recheck sends again (see --dry-run for the lines it sends).`,
      );
    lines.add(lineId(file, line));
  }
  return { verdicts, lines };
}

// DIR takes each tape under its own file name: never a tape's own folder (that would be the blind
// overwrite --write exists to avoid), and never two tapes of one name.
function checkWriteDir(dir: string, files: readonly string[], shown: (file: string) => string): void {
  const real = (path: string): string => {
    try {
      return realpathSync(path);
    } catch {
      return path;
    }
  };
  const names = new Map<string, string>();
  for (const file of files) {
    if (real(dirname(file)) === real(dir))
      throw new UsageError(
        `--write ${shown(dir)} is the folder of ${shown(file)}: write the refreshed tapes elsewhere (--write ${shown(dir)}.rechecked), review them with git diff --no-index, then copy them over.`,
      );
    const other = names.get(basename(file));
    if (other !== undefined)
      throw new UsageError(
        `--write: ${shown(other)} and ${shown(file)} would both be written to ${basename(file)} in ${shown(dir)}; recheck them in two runs.`,
      );
    names.set(basename(file), file);
  }
}

// After the report: what --write wrote, and how to review it.
function formatWritten(written: readonly RefreshedTape[], dir: string, tapes: readonly string[]): string {
  const sum = (pick: (tape: RefreshedTape) => number): number => written.reduce((total, tape) => total + pick(tape), 0);
  const notAccepted = written.flatMap((tape) => tape.notAccepted.map((entry) => `${tape.tape}:${entry.line} (${entry.verdict})`));
  const refused = written.flatMap((tape) => tape.refused.map((entry) => ({ where: `${tape.tape}:${entry.line}`, reason: entry.reason })));
  const lines = [
    `Wrote ${written.length} tape${written.length === 1 ? '' : 's'} to ${dir}: ${sum((tape) => tape.refreshed)} refreshed, ${sum((tape) => tape.accepted)} accepted, ${sum((tape) => tape.kept)} kept as recorded.`,
  ];
  if (notAccepted.length > 0)
    lines.push(
      `  Kept, not accepted: ${notAccepted.slice(0, 20).join(', ')}${notAccepted.length > 20 ? ', …' : ''} (take them with --accept changed, --accept regression or --accept TAPE:LINE)`,
    );
  for (const entry of refused) lines.push(`  Kept, refused: ${entry.where}: ${entry.reason.replace(/\n/g, '\n    ')}`);
  const folders = [...new Set(tapes.map((tape) => dirname(tape)))];
  lines.push(`  Review: ${folders.map((folder) => `git diff --no-index ${folder} ${dir}`).join('; ')}`);
  return `${lines.join('\n')}\n`;
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
