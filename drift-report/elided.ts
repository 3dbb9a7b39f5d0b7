// Long text on the page: folded into `<details>` far from a change, abbreviated in a summary.

import { count } from './count.js';
import { escapeHtml } from '../core/internal.js';

const LONG_TEXT = 1500;
const CONTEXT = 300;

/** Escaped text with `span` marked; long stretches far from the mark fold into `<details>`. */
export function elided(text: string, span: [number, number] | undefined, markClass: 'ins' | 'del'): string {
  if (span === undefined) {
    if (text.length <= LONG_TEXT) return escapeHtml(text);
    const cut = wordCut(text, CONTEXT * 2, -1);
    return escapeHtml(text.slice(0, cut)) + folded(text.slice(cut), 'more');
  }
  const [start, end] = span;
  let html = '';
  const before = text.slice(0, start);
  if (before.length > CONTEXT + 200) {
    const cut = wordCut(before, before.length - CONTEXT, 1);
    html += folded(before.slice(0, cut), 'earlier') + escapeHtml(before.slice(cut));
  } else {
    html += escapeHtml(before);
  }
  const changed = text.slice(start, end);
  if (changed.length === 0) {
    html += `<mark class="${markClass} gap" title="${markClass === 'ins' ? 'the recording has text here' : 'the request sent has text here'}"></mark>`;
  } else if (changed.length > LONG_TEXT) {
    const cut = wordCut(changed, CONTEXT * 2, -1);
    html += `<mark class="${markClass}">${escapeHtml(changed.slice(0, cut))}</mark>${folded(changed.slice(cut), 'more', markClass)}`;
  } else {
    html += `<mark class="${markClass}">${escapeHtml(changed)}</mark>`;
  }
  const after = text.slice(end);
  if (after.length > CONTEXT + 200) {
    const cut = wordCut(after, CONTEXT, -1);
    html += escapeHtml(after.slice(0, cut)) + folded(after.slice(cut), 'more');
  } else {
    html += escapeHtml(after);
  }
  return html;
}

function folded(text: string, which: 'earlier' | 'more', markClass?: 'ins' | 'del'): string {
  const inner = markClass === undefined ? escapeHtml(text) : `<mark class="${markClass}">${escapeHtml(text)}</mark>`;
  return `<details class="fold"><summary>${which === 'earlier' ? '…' : ''}${count(text.length, which === 'earlier' ? 'earlier character' : 'more character')}${which === 'more' ? '…' : ''}</summary>${inner}</details>`;
}

/** A place near `at` to fold a text: after a space when one is near, never inside a surrogate pair. */
function wordCut(text: string, at: number, direction: 1 | -1): number {
  for (let step = 0; step <= 40; step++) {
    const position = at + step * direction;
    if (position <= 0 || position >= text.length) break;
    if (/\s/.test(text[position - 1]!)) return position;
  }
  return at > 0 && isHighSurrogate(text.charCodeAt(at - 1)) ? at - 1 : at;
}

/** `text` cut to about `width` characters: its start and end kept, the middle replaced by its length. */
export function abbreviateText(text: string, width: number): string {
  if (text.length <= width) return text;
  const half = Math.floor((width - 1) / 2);
  return `${text.slice(0, half)}…(${text.length.toLocaleString('en-US')} chars)…${text.slice(text.length - half)}`;
}

/** The first half of a UTF-16 surrogate pair: a cut must not fall right after it. */
export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
