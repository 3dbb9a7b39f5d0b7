import { escapeHtml, maskSecrets, maskValue } from '../core/internal.js';
import { DRIFT_HTML_STYLE } from '../drift-report/internal.js';
import type { AnswerBehaviour } from './answer-behaviour.js';
import { VERDICTS, type Verdict } from './compare-answers.js';
import { usdText, type CheckedExchange, type RecheckReport } from './recheck-exchanges.js';

const RECHECK_STYLE = `
.stat.identical b, .stat.equivalent b { color: #1a7f37; }
.stat.changed { border-color: #f0b37e; background: #fff4e5; } .stat.changed b { color: #b35900; }
.stat.regression { border-color: #eb7b73; background: #ffebe9; } .stat.regression b { color: #b42318; }
.pill.identical, .pill.equivalent { color: #1a7f37; background: #e6f6ea; border-color: #8fd4a2; }
.pill.changed { color: #8a3b00; background: #fff1e0; border-color: #f0b37e; }
.pill.regression { color: #b42318; background: #ffebe9; border-color: #eb7b73; }
section.exchange { background: var(--paper); border: 1px solid var(--line); border-radius: 10px; padding: 20px 24px; margin-bottom: 24px; }
`;

/**
 * The `--html FILE` rendering of a recheck: one self-contained page (inline CSS, no script, no
 * external resource) with the counts per verdict, then each exchange that is not identical: its
 * reasons and the recorded answer beside the fresh one (status, finish, model, tool calls, structured
 * output, text, usage), each row that differs outlined. Everything is escaped and masked; the same
 * report gives the same bytes.
 */
export function renderRecheckHtml(unmasked: RecheckReport): string {
  const report = maskValue(unmasked);
  const moved = report.checked.filter((checked) => checked.verdict !== 'identical');
  const stats = VERDICTS.map((verdict) => `<span class="stat ${verdict}"><b>${report.counts[verdict]}</b> ${verdict}</span>`).join('');
  return maskSecrets(
    [
      '<!DOCTYPE html>',
      '<html lang="en">',
      '<head>',
      '<meta charset="utf-8">',
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
      '<meta name="viewport" content="width=device-width, initial-scale=1">',
      `<title>${escapeHtml(`modeltape recheck: ${report.checked.length} checked, ${report.counts.regression} regression, ${report.counts.changed} changed`)}</title>`,
      `<style>${DRIFT_HTML_STYLE}${RECHECK_STYLE}</style>`,
      '</head>',
      '<body>',
      '<header class="page">',
      '<h1>Is the tape still true?</h1>',
      `<p class="muted">Each recorded request was sent again; the fresh answer is sorted against the recorded one by what a program acts on.</p>`,
      `<div class="totals">${stats}<span class="stat"><b>${report.notChecked.length}</b> not checked</span></div>`,
      `<p>Spent: ${report.spent.requests} requests, ${report.spent.tokens.input + report.spent.tokens.cachedInput + report.spent.tokens.cacheWrite} input and ${report.spent.tokens.output} output tokens, ${escapeHtml(usdText(report.spent.usd))}.</p>`,
      moved.length === 0
        ? ''
        : `<nav class="index"><ol>${moved.map((checked, index) => `<li><a href="#x${index}">${pill(checked.verdict)} <code>${escapeHtml(`${checked.tape}:${checked.line}`)}</code></a></li>`).join('')}</ol></nav>`,
      '</header>',
      ...moved.map((checked, index) => renderExchange(checked, index)),
      report.notChecked.length === 0
        ? ''
        : `<section class="exchange not-checked"><h2>Not checked</h2><ul>${report.notChecked.map((entry) => `<li><code>${escapeHtml(`${entry.tape}:${entry.line}`)}</code> ${escapeHtml(entry.reason)}</li>`).join('')}</ul></section>`,
      '<footer>Written by <code>modeltape recheck --html</code>. Paths use JSON access syntax, as in the terminal report.</footer>',
      '</body>',
      '</html>',
      '',
    ].join('\n'),
  );
}

function pill(verdict: Verdict): string {
  return `<span class="pill ${verdict}">${verdict}</span>`;
}

function renderExchange(checked: CheckedExchange, index: number): string {
  const rows: Array<[string, (answer: AnswerBehaviour, side: 'recorded' | 'fresh') => string]> = [
    ['status', (answer) => String(answer.status)],
    ['finish', (answer) => `${answer.finish ?? 'none'}${answer.rawFinish === undefined ? '' : ` (${answer.rawFinish})`}${answer.refused ? ', refused' : ''}`],
    ['model', (_answer, side) => (side === 'recorded' ? checked.model.then : checked.model.now) ?? '(not said)'],
    [
      'tool calls',
      (answer) => (answer.toolCalls.length === 0 ? '(none)' : answer.toolCalls.map((call) => `${call.name}(${JSON.stringify(call.args, null, 2)})`).join('\n')),
    ],
    [
      'structured output',
      (answer) =>
        answer.structured === undefined
          ? '(not asked for)'
          : `${JSON.stringify(answer.structured.value, null, 2) ?? '(not JSON)'}${answer.structured.problems.length === 0 ? '\nvalid against the schema' : `\n${answer.structured.problems.join('\n')}`}`,
    ],
    ['text', (answer) => answer.text ?? answer.errorMessage ?? '(none)'],
    [
      'usage',
      (answer) =>
        answer.usage === undefined
          ? '(none reported)'
          : `${answer.usage.input + answer.usage.cachedInput + answer.usage.cacheWrite} in, ${answer.usage.output} out`,
    ],
  ];
  const body = rows
    .map(([name, show]) => {
      const then = show(checked.recorded, 'recorded');
      const now = show(checked.fresh, 'fresh');
      const differs = then !== now ? ' diff' : '';
      return `<tr><td data-side="recorded"><div class="kv${differs}"><span class="k">${name}</span><span class="v">${escapeHtml(then)}</span></div></td><td data-side="fresh"><div class="kv${differs}"><span class="k">${name}</span><span class="v">${escapeHtml(now)}</span></div></td></tr>`;
    })
    .join('\n');
  return [
    `<section class="exchange ${checked.verdict}" id="x${index}">`,
    `<h2>${pill(checked.verdict)} <code>${escapeHtml(`${checked.method} /${checked.upstream}${checked.path}`)}</code></h2>`,
    `<p><span class="tape-line">${escapeHtml(`${checked.tape}:${checked.line}`)}</span> ${escapeHtml(checked.model.requested ?? '')}${checked.costUsd === undefined ? '' : ` · ${escapeHtml(usdText(checked.costUsd))}`}</p>`,
    checked.reasons.length === 0 ? '' : `<ul class="differences">${checked.reasons.map((reason) => `<li>${escapeHtml(reason)}</li>`).join('')}</ul>`,
    '<table class="compare"><thead><tr><th class="recorded-head">Recorded</th><th class="sent-head">Now</th></tr></thead><tbody>',
    body,
    '</tbody></table>',
    '</section>',
  ].join('\n');
}
