import { resolve } from 'node:path';
import { loadConfig, pinnedDate } from '../proxy/internal.js';
import { STALE_POLICIES, ageLimitOf, formatTapeReport, renderTapeReportHtml, reportTapes, type AgeLimit } from '../tape-report/internal.js';
import { describeFlags, parseArguments, UsageError, type FlagSpec, type ParsedArguments } from './arguments.js';
import type { ResolvedCommandIo } from './io.js';
import { writeReportFile } from './write-report-file.js';
import { expandTapeArguments } from './tape-globs.js';

/** The flags `report`, `verify` and `run` share for the age of tapes. */
export const AGE_FLAGS: readonly FlagSpec[] = [
  {
    name: 'max-age',
    kind: 'string',
    value: 'AGE',
    description: "a tape whose oldest exchange is older than AGE (90d, 12w) is stale (default the config's maxAge)",
  },
  {
    name: 'stale',
    kind: 'string',
    value: 'POLICY',
    choices: STALE_POLICIES,
    description: 'what a stale tape does: warn on stderr, or fail with exit 1 (default warn)',
  },
];

const FLAGS: readonly FlagSpec[] = [
  ...AGE_FLAGS,
  { name: 'max-cost', kind: 'string', value: 'USD', description: 'exit 1 when re-recording the live exchanges would cost more than USD (e.g. 0.50)' },
  { name: 'max-tokens', kind: 'integer', value: 'N', description: 'exit 1 when the tapes hold more than N tokens' },
  { name: 'json', kind: 'boolean', description: 'print the report as JSON on stdout' },
  { name: 'html', kind: 'string', value: 'FILE', description: 'also write the report as a self-contained HTML page' },
  { name: 'config', kind: 'string', value: 'FILE', description: 'prices, maxAge and stale (default modeltape.config.json, if present)' },
  { name: 'help', kind: 'boolean', description: 'show this help' },
];

export const REPORT_USAGE = `Usage: modeltape report TAPE… [--max-age 90d] [--stale warn|fail] [--max-cost USD] [--max-tokens N] [--json] [--html FILE]

Reads the tapes (quote a glob to name many: 'tapes/**/*.jsonl') and reports, without running
anything:
  - coverage: the endpoints, models, streamed and plain answers, single and parallel tool calls,
    structured output, each finish reason, refusals, in-stream errors and error statuses the
    tapes hold, and the ones they never do: the behaviours the suite never sees;
  - tokens per tape (per test, for tapes in the __tapes__/FILE/TEST.jsonl layout of
    tapeForCurrentTest) and for the suite, from the usage each answer recorded, and what a
    re-recording would cost at the shipped, dated price table (modeltape.config.json "prices"
    adds models and overrides it);
  - the age of each tape, from the date each exchange was recorded on.
Exit 1 when a budget (--max-cost, --max-tokens) is exceeded or cannot be checked (usage without a
price; no usage at all), or a tape is stale under --stale fail.

${describeFlags(FLAGS)}`;

/** The age limit from --max-age / --stale, else the config's maxAge / stale; undefined when neither names a max age. */
export function ageLimitFrom(parsed: ParsedArguments, config: { maxAge?: string; stale?: string }): AgeLimit | undefined {
  const flag = parsed.flags['max-age'] as string | undefined;
  const maxAge = flag ?? config.maxAge;
  if (maxAge === undefined) return ageLimitOf(undefined, parsed.flags.stale as string | undefined);
  return ageLimitOf(maxAge, (parsed.flags.stale as string | undefined) ?? config.stale, flag === undefined ? 'maxAge in the config' : '--max-age');
}

/** The day ages are counted to: the one SOURCE_DATE_EPOCH pins (reproducible output), else today, in UTC. */
export function ageDay(env: Readonly<Record<string, string | undefined>>): Date {
  return pinnedDate(env) ?? new Date();
}

export async function reportCommand(argv: readonly string[], io: ResolvedCommandIo): Promise<number> {
  const parsed = parseArguments(argv, FLAGS, 'report');
  if (parsed.flags.help === true) {
    io.stdout.write(`${REPORT_USAGE}\n`);
    return 0;
  }
  if (parsed.positionals.length === 0)
    throw new UsageError("modeltape report needs the tapes to report on: modeltape report tapes/a.jsonl (or a quoted glob: 'tapes/**/*.jsonl').");
  const maxCostText = parsed.flags['max-cost'] as string | undefined;
  const maxCost = maxCostText === undefined || !/^\$?\d+(\.\d+)?$/.test(maxCostText.trim()) ? undefined : Number(maxCostText.trim().replace(/^\$/, ''));
  if (maxCostText !== undefined && maxCost === undefined)
    throw new UsageError(`--max-cost is ${JSON.stringify(maxCostText)}: give a number of US dollars, 0 or more (e.g. --max-cost 0.50).`);
  const maxTokens = parsed.flags['max-tokens'] as number | undefined;
  if (maxTokens !== undefined && maxTokens < 0) throw new UsageError(`--max-tokens is ${maxTokens}: give a number of tokens, 0 or more.`);
  const { config } = loadConfig(parsed.flags.config as string | undefined, io.cwd);
  const ageLimit = ageLimitFrom(parsed, config);
  const files = expandTapeArguments(parsed.positionals, io.cwd, 'report', 'nothing was read');
  const report = reportTapes(
    // A tape named twice (a.jsonl and ./a.jsonl, or by a glob too) counts once.
    [...new Set(files.map((file) => resolve(io.cwd, file)))],
    {
      now: ageDay(io.env),
      cwd: io.cwd,
      ...(config.prices === undefined ? {} : { prices: config.prices }),
      ...(ageLimit === undefined ? {} : { ageLimit }),
      ...(maxCost === undefined ? {} : { maxCostUsd: maxCost }),
      ...(maxTokens === undefined ? {} : { maxTokens }),
    },
  );
  if (parsed.flags.json === true) {
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    for (const warning of report.warnings) io.stderr.write(`modeltape: warning: ${warning}\n`);
    for (const failure of report.failures) io.stderr.write(`modeltape: ${failure}\n`);
  } else io.stdout.write(formatTapeReport(report));
  const html = parsed.flags.html as string | undefined;
  if (html !== undefined) writeReportFile(io, 'report', html, renderTapeReportHtml(report));
  return report.failures.length > 0 ? 1 : 0;
}
