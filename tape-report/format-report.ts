// The tape report for a terminal (aligned tables) and as a page (one HTML file, no scripts).
import { escapeHtml } from '../core/internal.js';
import { testLabel, usd, type Seen, type TapeReport, type TapeSummary, type TokenTotals } from './tape-report.js';

/** Rows as aligned columns, two spaces apart. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

function tokens(totals: TokenTotals): string {
  const cached = totals.cachedInput + totals.cacheWrite;
  return `${totals.total} (in ${totals.input}${cached > 0 ? ` + cached ${cached}` : ''}, out ${totals.output})`;
}

function age(tape: TapeSummary): string {
  if (tape.oldest === undefined) return tape.undated > 0 ? 'undated' : '—';
  return `${tape.ageDays}d (${tape.oldest}${tape.newest !== tape.oldest ? ` … ${tape.newest}` : ''})${tape.undated > 0 ? ` +${tape.undated} undated` : ''}`;
}

/** The report as the terminal shows it. */
export function formatTapeReport(report: TapeReport): string {
  const out: string[] = [];
  const { totals, coverage } = report;
  out.push(
    `modeltape report: ${totals.tapes} tape${totals.tapes === 1 ? '' : 's'}, ${totals.exchanges} exchange${totals.exchanges === 1 ? '' : 's'}${totals.fake > 0 ? ` (${totals.fake} from a FakeProvider)` : ''}, ages counted to ${report.today}`,
    '',
    'Coverage of provider behaviour',
  );
  out.push(
    ...table(
      ['behaviour', 'seen', 'first at'],
      coverage.behaviours.map((behaviour) => [behaviour.name, behaviour.count === 0 ? 'never' : String(behaviour.count), behaviour.where[0] ?? '']),
    ).map((line) => `  ${line}`),
  );
  if (coverage.neverSeen.length > 0) {
    out.push('', 'Never seen — the suite does not know how the code behaves on:');
    for (const name of coverage.neverSeen) out.push(`  - ${coverage.behaviours.find((behaviour) => behaviour.name === name)!.description}`);
  }
  const seenList = (title: string, seen: readonly Seen[]) => {
    if (seen.length === 0) return;
    out.push('', title);
    out.push(
      ...table(
        ['', 'count'],
        seen.map((entry) => [entry.name, String(entry.count)]),
      )
        .slice(1)
        .map((line) => `  ${line}`),
    );
  };
  seenList('Endpoints', coverage.endpoints);
  seenList('Models', coverage.models);
  seenList('Answered by (the model each answer names)', coverage.answeredModels);
  seenList('Clients (as their requests announced them)', coverage.clients);
  seenList('Finish reasons as recorded', coverage.finishReasons);
  seenList('Statuses', coverage.statuses);
  out.push('', 'Tokens and cost per tape (a re-recording of its live exchanges)');
  const perTest = report.tapes.some((tape) => tape.test !== undefined);
  out.push(
    ...table(
      [perTest ? 'tape or test' : 'tape', 'exchanges', 'tokens', 'cost', 'age'],
      report.tapes.map((tape) => [
        tape.test === undefined ? tape.file : testLabel(tape.test),
        String(tape.exchanges),
        String(tape.tokens.total),
        `${usd(tape.costUsd)}${tape.unpriced.length > 0 ? '*' : ''}`,
        age(tape),
      ]),
    ).map((line) => `  ${line}`),
  );
  out.push(
    '',
    `Suite: ${tokens(totals.tokens)} tokens; re-recording costs ${usd(totals.costUsd)}${totals.unpricedTokens > 0 ? ` plus ${totals.unpricedTokens} tokens without a price (* ${totals.unpriced.join(', ')})` : ''}.`,
    `Prices: USD per million tokens from the providers' pricing pages as of ${report.prices.asOf} (--json names them)${report.prices.fromConfig.length > 0 ? `; from the config: ${report.prices.fromConfig.join(', ')}` : '; "prices" in modeltape.config.json adds or overrides models'}.`,
  );
  if (totals.recordedFailures > 0) out.push(recordedFailures(totals.recordedFailures));
  if (totals.oldest !== undefined)
    out.push(`Recorded between ${totals.oldest} and ${totals.newest}${totals.undated > 0 ? `; ${totals.undated} exchanges undated` : ''}.`);
  else if (totals.undated > 0) out.push(`No exchange carries a recording date (tapes from before tape schema 3).`);
  for (const warning of report.warnings) out.push(`modeltape: warning: ${warning}`);
  for (const failure of report.failures) out.push(`modeltape: ${failure}`);
  return `${out.join('\n')}\n`;
}

function recordedFailures(count: number): string {
  return `Recorded failures: ${count} model turn${count === 1 ? '' : 's'} ended in the provider's error event (see stream-error): failures, not answers; the usage they report is counted, and none is not unmetered.`;
}

/** The report as one HTML page. */
export function renderTapeReportHtml(report: TapeReport): string {
  const { totals, coverage } = report;
  const cell = (text: string) => `<td>${escapeHtml(text)}</td>`;
  const seenTable = (id: string, seen: readonly Seen[]) =>
    `<table id="${id}"><thead><tr><th>name</th><th>count</th><th>first at</th></tr></thead><tbody>${seen
      .map((entry) => `<tr>${cell(entry.name)}${cell(String(entry.count))}${cell(entry.where.join(', '))}</tr>`)
      .join('')}</tbody></table>`;
  const behaviourRows = coverage.behaviours
    .map(
      (behaviour) =>
        `<tr class="${behaviour.count === 0 ? 'never' : 'seen'}" data-behaviour="${escapeHtml(behaviour.name)}">${cell(behaviour.name)}${cell(behaviour.description)}${cell(behaviour.count === 0 ? 'never' : String(behaviour.count))}${cell(behaviour.where.join(', '))}</tr>`,
    )
    .join('\n');
  const tapeRows = report.tapes
    .map(
      (tape) =>
        `<tr class="${tape.stale === undefined ? '' : 'stale'}">${cell(tape.file)}${cell(tape.test === undefined ? '' : testLabel(tape.test))}${cell(String(tape.exchanges))}${cell(String(tape.tokens.total))}${cell(usd(tape.costUsd) + (tape.unpriced.length > 0 ? ` + unpriced (${tape.unpriced.join(', ')})` : ''))}${cell(tape.oldest === undefined ? (tape.undated > 0 ? 'undated' : '') : `${tape.ageDays} days (${tape.oldest})`)}${cell(tape.stale ?? '')}</tr>`,
    )
    .join('\n');
  const notes = [
    ...report.failures.map((text) => `<li class="failure">${escapeHtml(text)}</li>`),
    ...report.warnings.map((text) => `<li class="warning">${escapeHtml(text)}</li>`),
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>modeltape tape report: ${totals.tapes} tapes, ${coverage.neverSeen.length} behaviours never seen</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1f2328}
h1{font-size:1.4rem}h2{font-size:1.15rem;margin-top:2rem}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
tr.never td{background:#fff8c5}tr.stale td{background:#ffebe9}li.failure{color:#82071e}li.warning{color:#7d4e00}
#cost{font-size:1.6rem;font-weight:700}
</style></head><body>
<h1>modeltape tape report</h1>
<p>${totals.tapes} tapes, ${totals.exchanges} exchanges${totals.fake > 0 ? ` (${totals.fake} from a FakeProvider)` : ''}; ages counted to ${escapeHtml(report.today)}.</p>
${notes.length > 0 ? `<ul id="notes">${notes.join('')}</ul>` : ''}
<h2>Coverage of provider behaviour</h2>
<table id="behaviours"><thead><tr><th>behaviour</th><th>what</th><th>seen</th><th>first at</th></tr></thead><tbody>
${behaviourRows}
</tbody></table>
<h2>Never seen (${coverage.neverSeen.length})</h2>
<ul id="never-seen">${coverage.neverSeen.map((name) => `<li>${escapeHtml(coverage.behaviours.find((behaviour) => behaviour.name === name)!.description)}</li>`).join('')}</ul>
<h2>Endpoints</h2>${seenTable('endpoints', coverage.endpoints)}
<h2>Models</h2>${seenTable('models', coverage.models)}
<h2>Answered by</h2>${seenTable('answered-models', coverage.answeredModels)}
<h2>Clients</h2>${seenTable('clients', coverage.clients)}
<h2>Finish reasons as recorded</h2>${seenTable('finish-reasons', coverage.finishReasons)}
<h2>Statuses</h2>${seenTable('statuses', coverage.statuses)}
<h2>Tokens and cost</h2>
<p>Re-recording costs <span id="cost">${escapeHtml(usd(totals.costUsd))}</span> for ${totals.tokens.total} tokens${totals.unpricedTokens > 0 ? `, plus ${totals.unpricedTokens} tokens without a price` : ''}. Prices as of ${escapeHtml(report.prices.asOf)}: ${report.prices.sources.map((source) => `<a href="${escapeHtml(source)}">${escapeHtml(source)}</a>`).join(', ')}.</p>
<table id="tapes"><thead><tr><th>tape</th><th>test</th><th>exchanges</th><th>tokens</th><th>cost</th><th>age</th><th>stale</th></tr></thead><tbody>
${tapeRows}
</tbody></table>
${totals.recordedFailures > 0 ? `<p id="recorded-failures">${escapeHtml(recordedFailures(totals.recordedFailures))}</p>` : ''}
</body></html>
`;
}
