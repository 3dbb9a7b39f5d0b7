import { escapeHtml, formatDifference, maskSecrets, maskValue } from '../core/internal.js';
import { count, number } from './count.js';
import { DRIFT_HTML_STYLE } from './drift-html-style.js';
import type { DriftItem, DriftReport } from './drift-report.js';
import { renderComparison } from './render-comparison.js';
import { viewOf } from './view-of.js';

/**
 * The `--html FILE` rendering of a drift report: one self-contained page (inline CSS, no script,
 * no external resource, a Content-Security-Policy that forbids both) showing each drifted
 * request beside its nearest recording. Both sides are drawn as a conversation — system prompt,
 * chat bubbles by role, tool calls as `name(args)` cards, tool results, tools offered, model and
 * parameters — for OpenAI Chat Completions and Responses, Anthropic Messages, Gemini
 * generateContent and Ollama chat and generate bodies (as providers/ reads them), and as
 * pretty-printed JSON or text for any other body. Every element a difference path points into
 * is outlined and badged on both sides (`class="diff"`, `data-diff`), and the changed span of a
 * text is wrapped in `<mark>` (red on the recorded side, green on the sent side).
 *
 * Everything taken from the report is HTML-escaped. The output depends only on the report: the
 * same report gives the same bytes.
 *
 * @example
 * writeFileSync('drift.html', renderDriftHtml(report));
 */
export function renderDriftHtml(unmasked: DriftReport): string {
  const report = maskValue(unmasked);
  const drifted = report.drifts.length;
  const title = drifted === 0 ? `No drift — ${report.tape}` : `${count(report.totals.drifted, 'drifted request')} — ${report.tape}`;
  return maskSecrets(
    [
      '<!DOCTYPE html>',
      '<html lang="en">',
      '<head>',
      '<meta charset="utf-8">',
      // Defence in depth: even a rendering bug could neither run a script nor fetch anything.
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
      '<meta name="viewport" content="width=device-width, initial-scale=1">',
      `<title>${escapeHtml(`modeltape drift: ${title}`)}</title>`,
      `<style>${DRIFT_HTML_STYLE}</style>`,
      '</head>',
      '<body>',
      renderHeader(report),
      drifted === 0 ? renderNoDrift(report) : report.drifts.map((item) => renderDrift(item, report)).join('\n'),
      '<footer>Written by <code>modeltape drift --html</code>. Paths use JSON access syntax, as in the terminal report.</footer>',
      '</body>',
      '</html>',
      '',
    ].join('\n'),
  );
}

// ---------------------------------------------------------------------------------------------
// The page header: tape, command, totals, endpoints, and an index of the drifts.

function renderHeader(report: DriftReport): string {
  const { totals } = report;
  const stats = [
    `<span class="stat"><b>${number(totals.requests)}</b> ${totals.requests === 1 ? 'request' : 'requests'}</span>`,
    `<span class="stat hit"><b>${number(totals.hits)}</b> ${totals.hits === 1 ? 'hit' : 'hits'}</span>`,
    `<span class="stat${totals.drifted > 0 ? ' drifted' : ''}"><b>${number(totals.drifted)}</b> drifted</span>`,
  ].join('\n');
  let html = '<header class="page">\n<h1>Drift report</h1>\n<dl class="meta">\n';
  html += `<dt>Tape</dt><dd><code>${escapeHtml(report.tape)}</code></dd>\n`;
  html += `<dt>Command</dt><dd><code>${escapeHtml(report.command.length > 0 ? report.command.map(shellWord).join(' ') : '(none)')}</code></dd>\n`;
  html += `</dl>\n<p class="totals">${stats}</p>\n`;
  if (report.endpoints.length > 0) {
    html +=
      '<table class="endpoints">\n<caption>Drift by endpoint</caption>\n<thead><tr><th scope="col">Endpoint</th><th scope="col">Drifted</th><th scope="col">Paths that differed most</th></tr></thead>\n<tbody>\n';
    for (const endpoint of report.endpoints) {
      const paths = endpoint.topPaths
        .map(
          ({ path, count: times }) =>
            `<li><code>${escapeHtml(path === '' ? '(the whole body)' : path)}</code> <span class="times">×${number(times)}</span></li>`,
        )
        .join('');
      const unmatched = report.drifts.every((item) => item.endpoint !== endpoint.endpoint || item.nearest === undefined);
      const none = `<span class="muted">${unmatched ? 'no recording to compare with' : 'none'}</span>`;
      html += `<tr><td><code>${escapeHtml(endpoint.endpoint)}</code></td><td class="number">${number(endpoint.drifted)}</td><td>${paths === '' ? none : `<ul class="paths">${paths}</ul>`}</td></tr>\n`;
    }
    html += '</tbody>\n</table>\n';
  }
  if (report.drifts.length < totals.drifted) {
    html += `<p class="muted">Details are kept for the first ${number(report.drifts.length)} drifted requests; the other ${number(totals.drifted - report.drifts.length)} are counted but not shown. Fix these and run again.</p>\n`;
  }
  if (report.drifts.length > 0) {
    html += '<nav class="index" aria-label="Drifts">\n<h2>Drifts</h2>\n<ol>\n';
    for (const item of report.drifts) {
      const first = item.differences[0];
      const summary =
        item.nearest === undefined ? noRecordingSentence(item) : first === undefined ? 'the same as its nearest recording' : formatDifference(first, 60);
      html += `<li><a href="#${driftId(item)}">${escapeHtml(item.endpoint)}</a> ${reasonPill(item)} <span class="muted">${escapeHtml(summary)}</span></li>\n`;
    }
    html += '</ol>\n</nav>\n';
  }
  return `${html}</header>`;
}

function renderNoDrift(report: DriftReport): string {
  const { requests } = report.totals;
  const sentence =
    requests === 0
      ? 'The run sent no request to the replay.'
      : `Every request the run sent was on the tape: ${count(requests, 'request')}, ${count(report.totals.hits, 'hit')}.`;
  return `<main>\n<section class="no-drift" aria-labelledby="no-drift-title">\n<h2 id="no-drift-title">No drift</h2>\n<p>${escapeHtml(sentence)}</p>\n</section>\n</main>`;
}

// ---------------------------------------------------------------------------------------------
// One drift: what happened, the differences, then recorded and sent side by side.

function renderDrift(item: DriftItem, report: DriftReport): string {
  const id = driftId(item);
  const sent = viewOf(item.sent);
  const recorded = item.nearest === undefined ? undefined : viewOf(item.nearest.request);
  let html = `<section class="drift" id="${id}" aria-labelledby="${id}-title">\n`;
  html += `<h2 id="${id}-title"><a class="anchor" href="#${id}">Drift ${number(item.index + 1)}</a> <code>${escapeHtml(item.endpoint)}</code> ${reasonPill(item)}</h2>\n`;
  html += `<p class="reason">${escapeHtml(reasonSentence(item))}</p>\n`;
  if (item.nearest !== undefined) {
    const where = item.nearest.line === undefined ? 'a recording made by this run' : `${item.tape ?? report.tape}:${item.nearest.line}`;
    html += `<p class="nearest">Nearest recording: <code class="tape-line">${escapeHtml(where)}</code></p>\n`;
  } else {
    html += `<p class="no-recording" role="note"><b>No recording to compare with.</b> ${escapeHtml(noRecordingSentence(item))} Only the request as sent is shown.</p>\n`;
  }
  if (item.nearest !== undefined) html += renderDifferenceList(item);
  html += renderComparison(item, recorded, sent);
  html += '<details class="evidence"><summary>Miss message and keys</summary>\n';
  html += `<pre>${escapeHtml(item.message)}</pre>\n<dl class="meta"><dt>Key sent</dt><dd><code>${escapeHtml(item.key)}</code></dd>`;
  if (item.nearest !== undefined) html += `<dt>Key recorded</dt><dd><code>${escapeHtml(item.nearest.key)}</code></dd>`;
  html += '</dl>\n</details>\n</section>';
  return html;
}

function renderDifferenceList(item: DriftItem): string {
  if (item.differences.length === 0 && item.reason === 'exhausted') {
    return '<p class="differences-none">The request is the same as this recording, which earlier calls already used up.</p>\n';
  }
  if (item.differences.length === 0) {
    return '<p class="differences-none">Method, path, headers and body are the same as the nearest recording; its stored key differs (see the miss message).</p>\n';
  }
  let html = `<h3>${count(item.totalDifferences, 'difference')}</h3>\n<ul class="differences">\n`;
  for (const difference of item.differences)
    html += `<li data-path="${escapeHtml(difference.path)}" data-diff="${escapeHtml(difference.change)}"><code>${escapeHtml(formatDifference(difference, 100))}</code></li>\n`;
  const rest = item.totalDifferences - item.differences.length;
  if (rest > 0) html += `<li class="muted">… and ${count(rest, 'more difference')} not kept</li>\n`;
  return `${html}</ul>\n`;
}

function reasonSentence(item: DriftItem): string {
  if (item.reason === 'exhausted') return 'This request was called more often than it was recorded: every recording of it was already used by earlier calls.';
  return 'No recording on the tape has this request’s key.';
}

function noRecordingSentence(item: DriftItem): string {
  if (item.reason === 'exhausted') return 'Every recording of this request was already used.';
  return `The tape holds no recording of ${item.sent.method} ${item.sent.path} (${item.sent.upstream}).`;
}

function driftId(item: DriftItem): string {
  return `drift-${Number(item.index)}`;
}

function reasonPill(item: DriftItem): string {
  const reason = escapeHtml(item.reason);
  return `<span class="pill ${reason}">${reason}</span>`;
}

/** A command word as a POSIX shell would need it quoted. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
