// What a mutation run found: each mutant's outcome, the survivors as the places the suite does not
// look, and the score. Printed for a terminal, written as JSON and as a self-contained page.
import { hash } from 'node:crypto';
import { escapeHtml, maskValue } from '../core/internal.js';
import type { Mutant } from './choose-mutants.js';
import type { MutationOperator } from './mutation.js';
import type { MutantRun } from './test-selection.js';

/**
 * - `killed`: the command failed on the mutant: a test noticed.
 * - `killed-by-replay`: a later request of the run missed the tape: the code acted on the changed
 *   answer (its next request changed), and the strict replay, not a test, noticed.
 * - `survived`: the command passed with the mutant: nothing checks this part of the answer.
 * - `timeout`: the command ran past `--timeout` and was killed (counted as detected, as a hang is noticed).
 * - `not-reached`: the run never asked for the mutated exchange (a test skipped, or an order that
 *   changed): it says nothing either way and is left out of the score.
 */
export const MUTANT_OUTCOMES = ['killed', 'killed-by-replay', 'survived', 'timeout', 'not-reached'] as const;
export type MutantOutcome = (typeof MUTANT_OUTCOMES)[number];

export interface MutantResult {
  id: string;
  tape: string;
  line: number;
  endpoint: string;
  operator: MutationOperator;
  variant: string;
  description: string;
  before: string;
  after: string;
  outcome: MutantOutcome;
  /** How it was killed or why it was not reached: the command's exit status, the first miss. */
  detail: string;
  /** With `--selective` only: the tests its run was narrowed to (`file > name`, or `file (the whole file)`), or why it ran the whole command. */
  ran?: MutantRun;
}

/**
 * A shard's place in its run. Every shard of a run lists the same mutants; the one at position `p`
 * (from 0, in the run's order) is shard `p % count + 1`'s. `modeltape mutate --merge` puts the
 * shards back together and refuses shards of different runs.
 */
export interface MutationShard {
  /** This shard, 1 to `count`. */
  index: number;
  /** How many shards the run is split into. */
  count: number;
  /** The run's mutants, over every shard. */
  mutants: number;
  /** sha256 (hex) of the run's whole mutant list: each mutant's id, exchange, operator, variant and change, as the report shows them. The same in every shard of one run. */
  list: string;
}

/** The whole run, as `--json` prints it. The same tapes, seed and command give the same report. */
export interface MutationReport {
  /** The command run once per mutant. */
  command: string[];
  seed: string;
  tapes: string[];
  /** On a shard's report only (`--shard I/N`): which slice of the run's mutants `mutants` holds. */
  shard?: MutationShard;
  /** Every mutation the used exchanges admit (before --max). */
  candidates: number;
  /** Exchanges the suite never used: not mutated (see `modeltape inspect --unused`). */
  unusedExchanges: number;
  /** Used exchanges no operator applies to. */
  unmutable: number;
  mutants: MutantResult[];
  counts: Record<MutantOutcome, number>;
  /** Detected (killed, killed by replay, timed out) over the mutants reached, 0–100, one decimal; null when none was reached. */
  score: number | null;
}

export function resultOf(mutant: Mutant, outcome: MutantOutcome, detail: string): MutantResult {
  const { mutation } = mutant;
  return {
    id: mutant.id,
    tape: mutant.tape,
    line: mutant.line,
    endpoint: mutant.endpoint,
    operator: mutation.operator,
    variant: mutation.variant,
    description: mutation.description,
    before: mutation.before,
    after: mutation.after,
    outcome,
    detail,
  };
}

export function buildMutationReport(run: Omit<MutationReport, 'counts' | 'score'>): MutationReport {
  const counts = Object.fromEntries(MUTANT_OUTCOMES.map((outcome) => [outcome, 0])) as Record<MutantOutcome, number>;
  for (const mutant of run.mutants) counts[mutant.outcome]++;
  const detected = counts.killed + counts['killed-by-replay'] + counts.timeout;
  const reached = detected + counts.survived;
  // Every string of the report masked once, here: an answer's text, a tool call's arguments, the
  // command's arguments reach the terminal, --json and the page only as they are here.
  const report = maskValue({ ...run, counts, score: reached === 0 ? null : Math.round((detected / reached) * 1000) / 10 });
  // A shard's digest is no key, whatever a scan of 64 hex digits would make of it (it keeps its place).
  return run.shard === undefined ? report : { ...report, shard: run.shard };
}

/** The digest a shard's report carries of the run's whole mutant list (see {@link MutationShard.list}): what each mutant is, not its outcome. */
export function mutantListDigest(mutants: readonly MutantResult[]): string {
  const identities = mutants.map((mutant) => [
    mutant.id,
    mutant.tape,
    mutant.line,
    mutant.endpoint,
    mutant.operator,
    mutant.variant,
    mutant.description,
    mutant.before,
    mutant.after,
  ]);
  return hash('sha256', JSON.stringify(identities), 'hex');
}

const OUTCOME_WORDS: Record<MutantOutcome, string> = {
  killed: 'killed by a test',
  'killed-by-replay': 'killed by the replay (the next request changed)',
  survived: 'survived',
  timeout: 'timed out',
  'not-reached': 'not reached',
};

/** The answer's change as diff lines: `- before`, `+ after`. */
export function diffLines(before: string, after: string): string[] {
  const side = (mark: string, text: string) => (text === '' ? [`${mark} (empty)`] : text.split('\n').map((line) => `${mark} ${line}`));
  return [...side('-', before), ...side('+', after)];
}

/** The report for a terminal: the score, the counts, then every survivor with its diff. */
export function formatMutationReport(report: MutationReport): string {
  const lines: string[] = [];
  const reached = report.mutants.length - report.counts['not-reached'];
  lines.push(
    `modeltape mutate: ${report.mutants.length} mutant${report.mutants.length === 1 ? '' : 's'} of ${report.candidates} (seed ${report.seed}): mutation score ${report.score === null ? 'n/a' : `${report.score}%`} (${reached - report.counts.survived} of ${reached} detected)`,
  );
  if (report.shard !== undefined)
    lines.push(
      `  shard ${report.shard.index}/${report.shard.count}: these ${report.mutants.length} of the run's ${report.shard.mutants} mutants (modeltape mutate --merge puts every shard's --json report together)`,
    );
  for (const outcome of MUTANT_OUTCOMES) if (report.counts[outcome] > 0) lines.push(`  ${report.counts[outcome]} ${OUTCOME_WORDS[outcome]}`);
  const narrowed = report.mutants.filter((mutant) => mutant.ran !== undefined && 'tests' in mutant.ran).length;
  const whole = report.mutants.filter((mutant) => mutant.ran !== undefined && 'whole' in mutant.ran);
  if (narrowed + whole.length > 0)
    lines.push(
      `  ${narrowed} ran only the tests (or files) that read their exchange, ${whole.length} the whole command${whole.length === 0 ? '' : ` (${whole[0]!.id}: ${(whole[0]!.ran as { whole: string }).whole}; --json says each)`}`,
    );
  if (report.unusedExchanges > 0)
    lines.push(
      `  ${report.unusedExchanges} exchange${report.unusedExchanges === 1 ? '' : 's'} no test used were not mutated (modeltape inspect TAPE --unused -- CMD lists them)`,
    );
  const survivors = report.mutants.filter((mutant) => mutant.outcome === 'survived');
  if (survivors.length > 0) {
    lines.push('', `Survivors: the suite passed with each of these answers changed, so nothing checks what changed:`);
    for (const mutant of survivors) {
      lines.push(
        `  ${mutant.id} ${mutant.tape}:${mutant.line} ${mutant.endpoint}: ${mutant.operator}${mutant.variant === '' ? '' : ` (${mutant.variant})`}: ${mutant.description}`,
      );
      for (const line of diffLines(mutant.before, mutant.after).slice(0, 12)) lines.push(`      ${line}`);
    }
  }
  const unreached = report.mutants.filter((mutant) => mutant.outcome === 'not-reached');
  if (unreached.length > 0) {
    lines.push('', 'Not reached (left out of the score): the run with the mutant never asked for its exchange:');
    for (const mutant of unreached.slice(0, 20)) lines.push(`  ${mutant.id} ${mutant.tape}:${mutant.line} ${mutant.operator}: ${mutant.detail}`);
  }
  return lines.join('\n');
}

/** The report as one self-contained page: the score, the counts, the survivors with their diffs, then every mutant. */
export function renderMutationHtml(report: MutationReport): string {
  const row = (mutant: MutantResult) =>
    `<tr class="${mutant.outcome}"><td>${escapeHtml(mutant.id)}</td><td>${escapeHtml(`${mutant.tape}:${mutant.line}`)}</td><td>${escapeHtml(mutant.endpoint)}</td><td>${escapeHtml(mutant.operator)}${mutant.variant === '' ? '' : ` <small>${escapeHtml(mutant.variant)}</small>`}</td><td>${escapeHtml(OUTCOME_WORDS[mutant.outcome])}</td><td>${escapeHtml(mutant.detail)}</td></tr>`;
  const survivor = (mutant: MutantResult) =>
    `<section class="survivor" id="${escapeHtml(mutant.id)}"><h3>${escapeHtml(mutant.id)} <code>${escapeHtml(`${mutant.tape}:${mutant.line}`)}</code> ${escapeHtml(mutant.endpoint)}</h3><p><b>${escapeHtml(mutant.operator)}</b>: ${escapeHtml(mutant.description)}</p><pre class="diff">${diffLines(
      mutant.before,
      mutant.after,
    )
      .map((line) => `<span class="${line.startsWith('-') ? 'del' : 'ins'}">${escapeHtml(line)}</span>`)
      .join('\n')}</pre></section>`;
  const survivors = report.mutants.filter((mutant) => mutant.outcome === 'survived');
  const counts = Object.entries(report.counts)
    .filter(([, count]) => count > 0)
    .map(([outcome, count]) => `<li><b>${count}</b> ${escapeHtml(OUTCOME_WORDS[outcome as MutantOutcome])}</li>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>modeltape mutation report: ${report.score === null ? 'n/a' : `${report.score}%`}</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1f2328}
h1{font-size:1.4rem}h2{font-size:1.15rem;margin-top:2rem}h3{font-size:1rem;margin:0 0 .3rem}
#score{font-size:2.2rem;font-weight:700}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
tr.survived td{background:#fff8c5}code,pre{font:12px/1.4 ui-monospace,monospace}
pre.diff{background:#f6f8fa;padding:.6rem;overflow-x:auto;white-space:pre-wrap}
.del{color:#82071e;background:#ffebe9;display:block}.ins{color:#116329;background:#dafbe1;display:block}
.survivor{border:1px solid #d0d7de;border-radius:6px;padding:.8rem;margin:.8rem 0}
</style></head><body>
<h1>modeltape mutation report</h1>
<p>Command <code>${escapeHtml(report.command.join(' '))}</code>, seed <code>${escapeHtml(report.seed)}</code>, tapes ${report.tapes.map((tape) => `<code>${escapeHtml(tape)}</code>`).join(', ')}.</p>
${report.shard === undefined ? '' : `<p id="shard">Shard ${report.shard.index}/${report.shard.count}: these ${report.mutants.length} of the run's ${report.shard.mutants} mutants.</p>\n`}<p>Mutation score <span id="score">${report.score === null ? 'n/a' : `${report.score}%`}</span> of ${report.mutants.length} mutants (${report.candidates} possible).</p>
<ul id="counts">${counts}</ul>
<h2>Survivors (${survivors.length})</h2>
${survivors.length === 0 ? '<p id="no-survivors">Every mutant reached was detected.</p>' : survivors.map(survivor).join('\n')}
<h2>Every mutant</h2>
<table id="mutants"><thead><tr><th>id</th><th>exchange</th><th>endpoint</th><th>operator</th><th>outcome</th><th>detail</th></tr></thead><tbody>
${report.mutants.map(row).join('\n')}
</tbody></table>
</body></html>
`;
}
