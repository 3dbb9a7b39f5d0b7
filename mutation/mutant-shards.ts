// Mutants over a CI matrix: `modeltape mutate --shard I/N` runs every N-th mutant of the run's list
// (every shard lists the same mutants, from its own run on the real tapes), and `--merge` puts the
// shards' `--json` reports back together into the report one whole run gives, refusing any report
// that is not a shard of that one run.
import { ModeltapeError } from '../core/internal.js';
import { MUTATION_OPERATORS } from './mutation.js';
import type { MutantRun } from './test-selection.js';
import {
  MUTANT_OUTCOMES,
  buildMutationReport,
  mutantListDigest,
  type MutantOutcome,
  type MutantResult,
  type MutationReport,
  type MutationShard,
} from './mutation-report.js';

/** `--shard I/N`: shard `index` (1 to `count`) of `count`. */
export interface ShardChoice {
  index: number;
  count: number;
}

/** A shard's report as `--merge` reads it: a mutation report that says which shard it is. */
export type ShardReport = MutationReport & { shard: MutationShard };

/**
 * `--merge` refused: a report that is not a shard's mutation report (malformed, cut short, a whole
 * run's), code `mutation_report_invalid`; or shards that are not the shards of one run (another
 * seed, tapes, command, mutant list or shard count, a shard twice or missing), code
 * `shards_do_not_match`. `file` is the report at fault, when one is.
 */
export class ShardMergeError extends ModeltapeError {
  readonly file: string | undefined;

  constructor(code: 'mutation_report_invalid' | 'shards_do_not_match', message: string, file?: string) {
    super(code, message);
    this.file = file;
  }
}

/** The mutants of the run's list that `shard` holds: the one at position `p` (from 0) is shard `p % count + 1`'s. */
export function mutantsOfShard<T>(all: readonly T[], shard: ShardChoice): T[] {
  return all.filter((_, position) => position % shard.count === shard.index - 1);
}

/** How many of a run's `total` mutants shard `index` of `count` holds. */
function shardSize(total: number, index: number, count: number): number {
  return Math.max(0, Math.ceil((total - (index - 1)) / count));
}

/**
 * Reads one shard's `--json` report (the text of `file`), checking every field `--merge` uses, and
 * returns it as `modeltape mutate` wrote it. Throws {@link ShardMergeError} naming the file and the
 * first field at fault.
 */
export function readShardReport(file: string, text: string): ShardReport {
  const invalid = (problem: string) =>
    new ShardMergeError(
      'mutation_report_invalid',
      `modeltape mutate --merge: ${file} is not a shard's mutation report: ${problem}. Merge the reports that \`modeltape mutate --shard I/N --json\` printed, each whole.`,
      file,
    );
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalid(
      text.trim() === ''
        ? 'it is empty'
        : `its JSON does not parse (${(error as Error).message})${/end of (JSON )?input|Unterminated/i.test((error as Error).message) ? ': it is cut short' : ''}`,
    );
  }
  if (!isRecord(value)) throw invalid('it is not a JSON object');
  const report = value;
  const field = <T>(path: string, read: unknown, check: (item: unknown) => item is T, expected: string): T => {
    if (!check(read)) throw invalid(`${path} is ${read === undefined ? 'missing' : `${JSON.stringify(read)?.slice(0, 60)}`}, not ${expected}`);
    return read;
  };
  const strings = (path: string, read: unknown): string[] => {
    const list = field(path, read, Array.isArray, 'a list of strings');
    list.forEach((item, index) => field(`${path}[${index}]`, item, isString, 'a string'));
    return list as string[];
  };
  if (report.shard === undefined)
    throw invalid('it is the report of a whole run (it has no .shard); only the reports of `modeltape mutate --shard I/N` runs are merged');
  const shardValue = field('.shard', report.shard, isRecord, 'an object');
  const shard: MutationShard = {
    index: field('.shard.index', shardValue.index, isCount, 'a whole number'),
    count: field('.shard.count', shardValue.count, isCount, 'a whole number'),
    mutants: field('.shard.mutants', shardValue.mutants, isCount, 'a whole number'),
    list: field('.shard.list', shardValue.list, (item): item is string => isString(item) && /^[0-9a-f]{64}$/.test(item), 'a sha256 in hex'),
  };
  if (shard.count < 1 || shard.index < 1 || shard.index > shard.count) throw invalid(`.shard says shard ${shard.index}/${shard.count}`);
  const mutants = field('.mutants', report.mutants, Array.isArray, 'a list');
  const results = mutants.map((item, index): MutantResult => {
    const at = `.mutants[${index}]`;
    const mutant = field(at, item, isRecord, 'an object');
    const text = (name: string) => field(`${at}.${name}`, mutant[name], isString, 'a string');
    // Every field in the order the report is written in, so that the merge prints it as one run would.
    return {
      id: text('id'),
      tape: text('tape'),
      line: field(`${at}.line`, mutant.line, isCount, 'a line number'),
      endpoint: text('endpoint'),
      operator: field(
        `${at}.operator`,
        mutant.operator,
        (read): read is MutantResult['operator'] => (MUTATION_OPERATORS as readonly unknown[]).includes(read),
        'a mutation operator',
      ),
      variant: text('variant'),
      description: text('description'),
      before: text('before'),
      after: text('after'),
      outcome: field(
        `${at}.outcome`,
        mutant.outcome,
        (read): read is MutantOutcome => (MUTANT_OUTCOMES as readonly unknown[]).includes(read),
        `one of ${MUTANT_OUTCOMES.join(', ')}`,
      ),
      detail: text('detail'),
      ...(mutant.ran === undefined ? {} : { ran: field(`${at}.ran`, mutant.ran, isMutantRun, '{"tests": [names]} or {"whole": why}') }),
    };
  });
  const read = buildMutationReport({
    command: strings('.command', report.command),
    seed: field('.seed', report.seed, isString, 'a string'),
    tapes: strings('.tapes', report.tapes),
    shard,
    candidates: field('.candidates', report.candidates, isCount, 'a whole number'),
    unusedExchanges: field('.unusedExchanges', report.unusedExchanges, isCount, 'a whole number'),
    unmutable: field('.unmutable', report.unmutable, isCount, 'a whole number'),
    mutants: results,
  }) as ShardReport;
  // The counts a report states are its mutants' outcomes: a report whose numbers disagree was edited.
  const counts = field('.counts', report.counts, isRecord, 'an object');
  for (const outcome of MUTANT_OUTCOMES)
    if (counts[outcome] !== read.counts[outcome])
      throw invalid(`.counts["${outcome}"] is ${JSON.stringify(counts[outcome])}, and its mutants have ${read.counts[outcome]}`);
  return read;
}

/**
 * The whole run's report from the reports of its shards (each as {@link readShardReport} read it,
 * with the file it came from): the same report, byte for byte, as one run on the same tapes, seed
 * and flags. Throws {@link ShardMergeError} (`shards_do_not_match`) for reports of different runs
 * (seed, tapes, command, mutant list, shard count), a shard given twice, or a shard missing.
 */
export function mergeMutationReports(reports: ReadonlyArray<{ file: string; report: ShardReport }>): MutationReport {
  const first = reports[0];
  if (first === undefined)
    throw new ShardMergeError(
      'shards_do_not_match',
      "modeltape mutate --merge needs the shards' reports to merge: modeltape mutate --merge report-1.json report-2.json.",
    );
  const refuse = (message: string, file?: string) =>
    new ShardMergeError(
      'shards_do_not_match',
      `modeltape mutate --merge: ${message}. Only the shards of one run merge: the same tapes, command, --seed, --max and --operators, each shard 1 to N once.`,
      file,
    );
  const base = first.report;
  const { count, mutants: total, list } = base.shard;
  const byIndex = new Map<number, { file: string; report: ShardReport }>();
  for (const entry of reports) {
    const { file, report } = entry;
    const { shard } = report;
    if (shard.count !== count)
      throw refuse(
        `${file} is shard ${shard.index}/${shard.count}, and ${first.file} is shard ${base.shard.index}/${count}: every shard of a run is split the same N ways`,
        file,
      );
    if (report.seed !== base.seed)
      throw refuse(`${file} was run with --seed ${JSON.stringify(report.seed)}, and ${first.file} with --seed ${JSON.stringify(base.seed)}`, file);
    if (JSON.stringify(report.tapes) !== JSON.stringify(base.tapes))
      throw refuse(`${file} mutated the tapes ${report.tapes.join(', ')}, and ${first.file} ${base.tapes.join(', ')}`, file);
    if (JSON.stringify(report.command) !== JSON.stringify(base.command))
      throw refuse(`${file} ran \`${report.command.join(' ')}\`, and ${first.file} \`${base.command.join(' ')}\``, file);
    if (
      shard.list !== list ||
      shard.mutants !== total ||
      report.candidates !== base.candidates ||
      report.unusedExchanges !== base.unusedExchanges ||
      report.unmutable !== base.unmutable
    )
      throw refuse(
        `${file} lists other mutants than ${first.file} (${shard.mutants} of ${report.candidates} possible, against ${total} of ${base.candidates}, or as many others): its run chose them with other --max or --operators, or its suite read other exchanges of the tapes`,
        file,
      );
    const twice = byIndex.get(shard.index);
    if (twice !== undefined) throw refuse(`${twice.file} and ${file} are both shard ${shard.index}/${count}`, file);
    const size = shardSize(total, shard.index, count);
    if (report.mutants.length !== size)
      throw refuse(
        `${file} holds ${report.mutants.length} mutant${report.mutants.length === 1 ? '' : 's'}, where shard ${shard.index}/${count} of a ${total}-mutant run holds ${size}`,
        file,
      );
    byIndex.set(shard.index, entry);
  }
  const missing = Array.from({ length: count }, (_, index) => index + 1).filter((index) => !byIndex.has(index));
  if (missing.length > 0)
    throw refuse(
      `no report of shard${missing.length === 1 ? '' : 's'} ${missing.map((index) => `${index}/${count}`).join(', ')} among ${reports.map((entry) => entry.file).join(', ')} (a shard whose job failed is run again)`,
    );
  // Back in the run's order: position p is shard (p % N + 1)'s mutant number floor(p / N).
  const mutants = Array.from({ length: total }, (_, position) => byIndex.get((position % count) + 1)!.report.mutants[Math.floor(position / count)]!);
  const merged = buildMutationReport({
    command: base.command,
    seed: base.seed,
    tapes: base.tapes,
    candidates: base.candidates,
    unusedExchanges: base.unusedExchanges,
    unmutable: base.unmutable,
    mutants,
  });
  if (mutantListDigest(merged.mutants) !== list)
    throw refuse(`the mutants of ${reports.map((entry) => entry.file).join(', ')} put together are not the list their .shard.list names (a report was edited)`);
  return merged;
}

function isMutantRun(value: unknown): value is MutantRun {
  if (!isRecord(value) || Object.keys(value).length !== 1) return false;
  return Array.isArray(value.tests) ? value.tests.every(isString) : isString(value.whole);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}
