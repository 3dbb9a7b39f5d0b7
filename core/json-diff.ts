import { indexPath, propertyPath } from './json-path.js';
import { maskSecrets } from './secret-scan.js';

/** One leaf where two JSON values differ, addressed by its JSON access path. */
export interface Difference {
  /** e.g. `.messages[2].content`; the empty string is the root. */
  path: string;
  /**
   * `changed`: both sides hold a value of the same kind; `kind`: a number on one side and text
   * on the other, and so on; `added`: only the sent side has it; `removed`: only the recorded
   * side has it.
   */
  change: 'changed' | 'kind' | 'added' | 'removed';
  recorded?: unknown;
  sent?: unknown;
}

export interface DiffOptions {
  /** Stop after this many differences (the count is then a lower bound). @default Infinity */
  stopAfter?: number;
}

/**
 * Every leaf where `sent` differs from `recorded`. Objects are compared by property, arrays by
 * index. Identical subtrees produce nothing, so only the leaves that differ are listed.
 */
export function diffJson(recorded: unknown, sent: unknown, options: DiffOptions = {}): Difference[] {
  const differences: Difference[] = [];
  walk(recorded, sent, '', differences, options.stopAfter ?? Number.POSITIVE_INFINITY);
  return differences;
}

function walk(recorded: unknown, sent: unknown, path: string, out: Difference[], stopAfter: number): void {
  if (out.length >= stopAfter || recorded === sent) return;
  const recordedKind = kindOf(recorded);
  const sentKind = kindOf(sent);
  if (recordedKind !== sentKind) {
    out.push({ path, change: 'kind', recorded, sent });
    return;
  }
  if (recordedKind === 'array') {
    const left = recorded as unknown[];
    const right = sent as unknown[];
    const shared = Math.min(left.length, right.length);
    for (let index = 0; index < shared; index++) walk(left[index], right[index], indexPath(path, index), out, stopAfter);
    for (let index = shared; index < left.length && out.length < stopAfter; index++)
      out.push({ path: indexPath(path, index), change: 'removed', recorded: left[index] });
    for (let index = shared; index < right.length && out.length < stopAfter; index++)
      out.push({ path: indexPath(path, index), change: 'added', sent: right[index] });
    return;
  }
  if (recordedKind === 'object') {
    const left = recorded as Record<string, unknown>;
    const right = sent as Record<string, unknown>;
    for (const name of Object.keys(left)) {
      if (out.length >= stopAfter) return;
      const childPath = propertyPath(path, name);
      if (!Object.hasOwn(right, name)) out.push({ path: childPath, change: 'removed', recorded: left[name] });
      else walk(left[name], right[name], childPath, out, stopAfter);
    }
    for (const name of Object.keys(right)) {
      if (out.length >= stopAfter) return;
      if (!Object.hasOwn(left, name)) out.push({ path: propertyPath(path, name), change: 'added', sent: right[name] });
    }
    return;
  }
  // Two leaves of one kind: numbers, strings, booleans (null === null returned above).
  if (!Object.is(recorded, sent)) out.push({ path, change: 'changed', recorded, sent });
}

type Kind = 'null' | 'array' | 'object' | 'string' | 'number' | 'boolean' | 'missing';

function kindOf(value: unknown): Kind {
  if (value === null) return 'null';
  if (value === undefined) return 'missing';
  if (Array.isArray(value)) return 'array';
  return typeof value as Kind;
}

const KIND_NAMES: Record<Kind, string> = {
  null: 'null',
  array: 'an array',
  object: 'an object',
  string: 'text',
  number: 'a number',
  boolean: 'a boolean',
  missing: 'nothing',
};

export interface FormatOptions {
  /** At most this many leaves are shown; the rest are counted. @default 10 */
  limit?: number;
  /** Values longer than this are abbreviated in the middle. @default 80 */
  width?: number;
}

/**
 * One line per difference, e.g. `at .messages[1].content: recorded "Ship to Paris" sent "Ship to
 * Lyon"`, at most `limit` of them, then a count of the rest.
 */
export function formatDifferences(differences: readonly Difference[], total = differences.length, options: FormatOptions = {}): string[] {
  const limit = options.limit ?? 10;
  const width = options.width ?? 80;
  const lines = differences.slice(0, limit).map((difference) => formatDifference(difference, width));
  if (total > lines.length) lines.push(`… and ${total - lines.length} more difference${total - lines.length === 1 ? '' : 's'}`);
  return lines;
}

export function formatDifference(difference: Difference, width = 80): string {
  const at = `at ${difference.path === '' ? '(the whole value)' : difference.path}`;
  switch (difference.change) {
    case 'added':
      return `${at}: not recorded, sent ${abbreviate(difference.sent, width)}`;
    case 'removed':
      return `${at}: recorded ${abbreviate(difference.recorded, width)}, not sent`;
    case 'kind':
      return `${at}: recorded ${KIND_NAMES[kindOf(difference.recorded)]} (${abbreviate(difference.recorded, width)}) sent ${KIND_NAMES[kindOf(difference.sent)]} (${abbreviate(difference.sent, width)})`;
    case 'changed':
      if (typeof difference.recorded === 'string' && typeof difference.sent === 'string')
        return `${at}: ${describeStringChange(difference.recorded, difference.sent, width)}`;
      return `${at}: recorded ${abbreviate(difference.recorded, width)} sent ${abbreviate(difference.sent, width)}`;
  }
}

/** Where two strings first differ, shown with a little context on each side. */
export function describeStringChange(recorded: string, sent: string, width = 80): string {
  let first = 0;
  while (first < recorded.length && first < sent.length && recorded[first] === sent[first]) first++;
  if (recorded.length <= width && sent.length <= width) {
    return `recorded ${JSON.stringify(recorded)} sent ${JSON.stringify(sent)}${first > 20 ? ` (first differs at character ${first})` : ''}`;
  }
  const before = Math.min(first, 20);
  const excerpt = (text: string): string => {
    const start = first - before;
    const end = Math.min(text.length, first + width - before);
    return `${start > 0 ? '…' : ''}${JSON.stringify(text.slice(start, end)).slice(1, -1)}${end < text.length ? '…' : ''}`;
  };
  return `recorded "${excerpt(recorded)}" sent "${excerpt(sent)}" (first differs at character ${first})`;
}

/** JSON text of a value, cut in the middle when longer than `width`. */
export function abbreviate(value: unknown, width = 80): string {
  // Masked before it is cut: a cut key no longer looks like one, and its tail would show.
  const text = value === undefined ? 'nothing' : maskSecrets(JSON.stringify(value));
  if (text.length <= width) return text;
  const half = Math.floor((width - 1) / 2);
  return `${text.slice(0, half)}…(${text.length.toLocaleString('en-US')} chars)…${text.slice(text.length - half)}`;
}
