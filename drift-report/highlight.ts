// Highlighting: which elements a difference touches, and which span of a text changed.

import { escapeHtml, abbreviate, type Difference } from '../core/internal.js';
import { abbreviateText, elided, isHighSurrogate } from './elided.js';
import type { Leaf } from './view.js';

/** One side of the comparison while it is drawn. */
export interface Side {
  name: 'recorded' | 'sent';
  differences: readonly Difference[];
  /** The other side's leaves, to find what changed inside a text; undefined when there is no other side. */
  other: Map<string, Leaf> | undefined;
}

type Relation = 'same' | 'inside' | 'around';

/** How a difference path stands to an element's path: at it, inside it, or around it (an ancestor). */
function relation(differencePath: string, elementPath: string): Relation | undefined {
  const named = /^(header|query) /;
  if (named.test(differencePath) || named.test(elementPath)) {
    const fold = (path: string): string => (path.startsWith('header ') ? path.toLowerCase() : path);
    return fold(differencePath) === fold(elementPath) ? 'same' : undefined;
  }
  if (differencePath === elementPath) return 'same';
  if (isBelow(differencePath, elementPath)) return 'inside';
  if (isBelow(elementPath, differencePath)) return 'around';
  return undefined;
}

function isBelow(path: string, ancestor: string): boolean {
  const next = path[ancestor.length];
  return path.length > ancestor.length && path.startsWith(ancestor) && (next === '.' || next === '[');
}

interface Highlight {
  /** ` diff` or empty. */
  className: string;
  attributes: string;
  badge: string;
}

const NO_HIGHLIGHT: Highlight = { className: '', attributes: '', badge: '' };

export function highlight(side: Side, path: string): Highlight {
  const touching = side.differences.filter((difference) => relation(difference.path, path) !== undefined);
  if (touching.length === 0) return NO_HIGHLIGHT;
  // Added or removed as a whole (itself or an ancestor): the element exists on one side only.
  const whole = touching.find(
    (difference) => relation(difference.path, path) !== 'inside' && (difference.change === 'added' || difference.change === 'removed'),
  );
  const change = whole?.change ?? 'changed';
  const badge = change === 'added' ? 'not recorded' : change === 'removed' ? 'not sent' : 'changed';
  const paths = [...new Set(touching.map((difference) => (difference.path === '' ? '(the whole body)' : difference.path)))];
  const title = `differs at ${paths.slice(0, 5).join(', ')}${paths.length > 5 ? ` and ${paths.length - 5} more` : ''}`;
  return { className: ' diff', attributes: ` data-diff="${escapeHtml(change)}" title="${escapeHtml(title)}"`, badge: `<span class="badge">${badge}</span>` };
}

/** A leaf's text, with the span that differs from the other side marked when a difference points at or into it. */
export function leafHtml(leaf: Leaf, side: Side): string {
  const counterpart = side.other?.get(leaf.path);
  const pretty = wantsPretty(leaf) || (counterpart !== undefined && wantsPretty(counterpart));
  const text = display(leaf, pretty);
  const touched = pointsInto(side, leaf.path);
  const markClass = side.name === 'sent' ? 'ins' : 'del';
  if (!touched) return elided(text, undefined, markClass);
  if (counterpart === undefined) return elided(text, [0, text.length], markClass);
  const otherText = display(counterpart, pretty);
  // The difference is in what the key was computed from (after normalizers); the text may not show it.
  if (otherText === text) return elided(text, undefined, markClass);
  return elided(text, changedSpan(text, otherText), markClass);
}

/** Whether a difference points at `path` or into it. */
function pointsInto(side: Side, path: string): boolean {
  return side.differences.some((difference) => {
    const at = relation(difference.path, path);
    return at === 'same' || at === 'inside';
  });
}

/**
 * A field's value: a long JSON value nobody changed folds into its one-line abbreviation; a
 * changed one stays open with the change marked.
 */
export function valueHtml(leaf: Leaf, side: Side): string {
  const counterpart = side.other?.get(leaf.path);
  const pretty = wantsPretty(leaf) || (counterpart !== undefined && wantsPretty(counterpart));
  if (!pretty || pointsInto(side, leaf.path) || display(leaf, true).split('\n').length <= 8) return leafHtml(leaf, side);
  return `<details class="value"><summary>${escapeHtml(abbreviate(leaf.value, 70))}</summary>${leafHtml(leaf, side)}</details>`;
}

function display(leaf: Leaf, pretty: boolean): string {
  const { value, mode } = leaf;
  if (value === undefined) return '';
  if (mode === 'brief') return typeof value === 'string' ? abbreviateText(value, value.startsWith('data:') ? 64 : 160) : abbreviate(value, 160);
  if (typeof value === 'string' && mode !== 'json') return value;
  return pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value);
}

function wantsPretty(leaf: Leaf): boolean {
  return (leaf.mode === 'value' || leaf.mode === 'json') && typeof leaf.value === 'object' && leaf.value !== null && JSON.stringify(leaf.value).length > 60;
}

/**
 * The span of `text` that differs from `other`: what lies between their common prefix and
 * common suffix, widened to whole words so `Paris`→`Lyon` marks the words, not `ris`→`yon`.
 */
function changedSpan(text: string, other: string): [number, number] {
  const shorter = Math.min(text.length, other.length);
  let prefix = 0;
  while (prefix < shorter && text[prefix] === other[prefix]) prefix++;
  let suffix = 0;
  while (suffix < shorter - prefix && text[text.length - 1 - suffix] === other[other.length - 1 - suffix]) suffix++;
  // Never split a surrogate pair.
  if (prefix > 0 && isHighSurrogate(text.charCodeAt(prefix - 1))) prefix--;
  if (suffix > 0 && isHighSurrogate(text.charCodeAt(text.length - suffix - 1))) suffix--;
  const word = (character: string | undefined): boolean => character !== undefined && /[\p{L}\p{N}_]/u.test(character);
  const textChanged = (): boolean => text.length - suffix > prefix;
  const otherChanged = (): boolean => other.length - suffix > prefix;
  while (prefix > 0 && word(text[prefix - 1]) && ((textChanged() && word(text[prefix])) || (otherChanged() && word(other[prefix])))) prefix--;
  while (
    suffix > 0 &&
    word(text[text.length - suffix]) &&
    ((textChanged() && word(text[text.length - suffix - 1])) || (otherChanged() && word(other[other.length - suffix - 1])))
  )
    suffix--;
  return [prefix, text.length - suffix];
}
