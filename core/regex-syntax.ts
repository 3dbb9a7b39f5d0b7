// JavaScript regular expression syntax, read by @eslint-community/regexpp (the parser ESLint
// uses): the one file that imports it. Its tree is turned into a small one of modeltape's own,
// which the backtracking check (recordings/regex-safety.ts) and the example writer
// (schema/pattern-example.ts) read.
import { RegExpParser, type AST } from '@eslint-community/regexpp';

/** Inclusive code point ranges. */
export type CodePointRanges = Array<[number, number]>;

/** One branch of an alternation: the elements it matches in order, and its text. */
export interface RegexBranch {
  elements: RegexElement[];
  raw: string;
}

/** The branches of a pattern or a group, and their text (`a|b` in `(a|b)`). */
export interface RegexAlternatives {
  branches: RegexBranch[];
  raw: string;
}

/**
 * One element of a pattern, with its text as written (`raw`):
 * - `characters`: one character, a class, `.` or an escape such as `\d`, as the code points it
 *   matches (case folding is left to the reader). `from` says which; a `\p{…}` escape, or a class
 *   holding one or a set expression of the `v` flag, is `property`: its code points are not
 *   worked out, and `ranges` is every code point;
 * - `group`: a group, capturing or not, or with modifiers (`(?i:…)`);
 * - `lookaround`: `(?=…)`, `(?!…)`, `(?<=…)`, `(?<!…)`, matching no characters where it stands;
 * - `repeat`: an element under a quantifier (`max` is Infinity when unbounded);
 * - `assertion`: `^`, `$`, `\b`, `\B`;
 * - `backreference`: `\1`, `\k<name>`.
 */
export type RegexElement =
  | { kind: 'characters'; ranges: CodePointRanges; from: 'character' | 'class' | 'dot' | 'escape' | 'property'; raw: string }
  | { kind: 'group'; alternatives: RegexAlternatives; modifiers: boolean; raw: string }
  | { kind: 'lookaround'; behind: boolean; negate: boolean; alternatives: RegexAlternatives; raw: string }
  | { kind: 'repeat'; element: RegexElement; min: number; max: number; raw: string }
  | { kind: 'assertion'; raw: string }
  | { kind: 'backreference'; raw: string };

/** Every code point. */
export const ANY_CODE_POINT: CodePointRanges = [[0, 0x10ffff]];
export const DIGIT: CodePointRanges = [[0x30, 0x39]];
export const WORD: CodePointRanges = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
export const SPACE: CodePointRanges = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
const LINE_TERMINATORS: CodePointRanges = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];

/** The code points not in `ranges`. */
export function complement(ranges: readonly (readonly [number, number])[]): CodePointRanges {
  const sorted = [...ranges].sort((x, y) => x[0] - y[0]);
  const out: CodePointRanges = [];
  let next = 0;
  for (const [low, high] of sorted) {
    if (low > next) out.push([next, low - 1]);
    next = Math.max(next, high + 1);
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff]);
  return out;
}

/** The source is not a regular expression JavaScript reads with these flags. */
export class RegexSyntaxError extends Error {
  override readonly name = 'RegexSyntaxError';
}

// One parser serves every call: it keeps no state between patterns.
const parser = new RegExpParser({ ecmaVersion: 2025 });

/**
 * `source` read as `new RegExp(source, flags)` reads it: with the `u` or `v` flag in Unicode
 * mode, else with the web's legacy syntax (Annex B: `\1` with no group is an octal escape, a `{`
 * that starts no quantifier is itself). Throws {@link RegexSyntaxError} when it is not one.
 */
export function parseRegex(source: string, flags = ''): RegexAlternatives {
  let pattern: AST.Pattern;
  try {
    pattern = parser.parsePattern(source, 0, source.length, { unicode: flags.includes('u'), unicodeSets: flags.includes('v') });
  } catch (error) {
    throw new RegexSyntaxError((error as Error).message);
  }
  const dot = flags.includes('s') ? ANY_CODE_POINT : complement(LINE_TERMINATORS);
  return alternativesOf(pattern.alternatives, source, dot);
}

function alternativesOf(alternatives: AST.Alternative[], source: string, dot: CodePointRanges): RegexAlternatives {
  const first = alternatives[0]!;
  const last = alternatives[alternatives.length - 1]!;
  return {
    branches: alternatives.map((alternative) => ({ elements: alternative.elements.map((element) => elementOf(element, source, dot)), raw: alternative.raw })),
    raw: source.slice(first.start, last.end),
  };
}

function elementOf(node: AST.Element, source: string, dot: CodePointRanges): RegexElement {
  const raw = node.raw;
  switch (node.type) {
    case 'Character':
      return { kind: 'characters', ranges: [[node.value, node.value]], from: 'character', raw };
    case 'CharacterSet':
      if (node.kind === 'any') return { kind: 'characters', ranges: dot, from: 'dot', raw };
      if (node.kind === 'property') return { kind: 'characters', ranges: ANY_CODE_POINT, from: 'property', raw };
      return { kind: 'characters', ranges: escapeSet(node), from: 'escape', raw };
    case 'CharacterClass':
    case 'ExpressionCharacterClass': {
      const ranges = classRanges(node);
      return ranges === undefined
        ? { kind: 'characters', ranges: ANY_CODE_POINT, from: 'property', raw }
        : { kind: 'characters', ranges: node.negate ? complement(ranges) : ranges, from: 'class', raw };
    }
    case 'Group':
      return { kind: 'group', alternatives: alternativesOf(node.alternatives, source, dot), modifiers: node.modifiers !== null, raw };
    case 'CapturingGroup':
      return { kind: 'group', alternatives: alternativesOf(node.alternatives, source, dot), modifiers: false, raw };
    case 'Assertion':
      if (node.kind === 'lookahead' || node.kind === 'lookbehind')
        return {
          kind: 'lookaround',
          behind: node.kind === 'lookbehind',
          negate: node.negate,
          alternatives: alternativesOf(node.alternatives, source, dot),
          raw,
        };
      return { kind: 'assertion', raw };
    case 'Quantifier':
      return { kind: 'repeat', element: elementOf(node.element, source, dot), min: node.min, max: node.max, raw };
    case 'Backreference':
      return { kind: 'backreference', raw };
  }
}

function escapeSet(node: AST.EscapeCharacterSet): CodePointRanges {
  const ranges = node.kind === 'digit' ? DIGIT : node.kind === 'word' ? WORD : SPACE;
  return node.negate ? complement(ranges) : ranges;
}

// The code points a class lists (before its own negation), or undefined when it holds a `\p{…}`
// escape or a `v`-flag set expression, whose code points are not worked out here.
function classRanges(node: AST.CharacterClass | AST.ExpressionCharacterClass): CodePointRanges | undefined {
  if (node.type === 'ExpressionCharacterClass') return undefined;
  const ranges: CodePointRanges = [];
  for (const element of node.elements) {
    switch (element.type) {
      case 'Character':
        ranges.push([element.value, element.value]);
        break;
      case 'CharacterClassRange':
        ranges.push([element.min.value, element.max.value]);
        break;
      case 'CharacterSet':
        if (element.kind === 'property') return undefined;
        ranges.push(...escapeSet(element));
        break;
      default:
        return undefined;
    }
  }
  return ranges;
}
