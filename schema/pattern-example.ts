import { parseRegex, type RegexAlternatives, type RegexElement } from '../core/internal.js';
import type { Random } from './seeded-random.js';

/** What {@link patternExample} needs besides the pattern. */
export interface PatternExampleRequest {
  random: Random;
  /** Fewest code points the example may have. */
  minLength: number;
  /** Most code points the example may have. */
  maxLength: number;
}

/** An example string, or why none could be made. */
export type PatternExample = { ok: true; text: string } | { ok: false; reason: string };

type CodePointRange = readonly [number, number];

type RegexNode =
  | { kind: 'sequence'; items: RegexNode[] }
  | { kind: 'choice'; options: RegexNode[] }
  | { kind: 'repeat'; node: RegexNode; minimum: number; maximum: number }
  | { kind: 'characters'; ranges: CodePointRange[] }
  | { kind: 'literal'; text: string }
  | { kind: 'assertion' };

type Mode = 'natural' | 'short' | 'long';

class UnsupportedSyntax extends Error {}

const MAXIMUM_CODE_POINT = 0x10ffff;
const DIGITS: CodePointRange[] = [[0x30, 0x39]];
const WORD: CodePointRange[] = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
const SPACE: CodePointRange[] = [
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
const LINE_TERMINATORS: CodePointRange[] = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];
// Characters tried first when a class allows them, so examples stay readable.
const READABLE = [...'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'];
const PUNCTUATION = [...' -_.:/@+'];
const SINGLE_ESCAPES: Record<string, string> = { t: '\t', n: '\n', r: '\r', f: '\f', v: '\v', '0': '\0' };

/**
 * A string matching `pattern`, read the way ajv reads JSON Schema patterns (`new RegExp(pattern,
 * 'u')`, unanchored), with a length in [minLength, maxLength]. Understands literals, classes,
 * `.`, `\d \w \s` and their negations, groups, alternation, quantifiers and `^ $ \b`; lookaround,
 * backreferences and `\p{…}` are refused. Every returned string has been checked with RegExp.
 *
 * @example patternExample('^[A-Z]{3}$', { random, minLength: 0, maxLength: 16 }) // { ok: true, text: 'QKZ' }
 */
export function patternExample(pattern: string, request: PatternExampleRequest): PatternExample {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, 'u');
  } catch (error) {
    return { ok: false, reason: `it is not a valid regular expression (${(error as Error).message})` };
  }
  let tree: RegexNode;
  try {
    tree = choiceOf(parseRegex(pattern, 'u'));
  } catch (error) {
    if (error instanceof UnsupportedSyntax) return { ok: false, reason: `it uses ${error.message}, which the generator cannot produce text for` };
    throw error;
  }
  const modes: Mode[] = ['natural', 'natural', 'natural', 'natural', 'natural', 'natural', 'short', 'long', 'long', 'natural', 'long', 'natural'];
  for (const mode of modes) {
    const parts: string[] = [];
    produce(tree, { random: request.random, mode, target: request.minLength }, parts);
    const text = parts.join('');
    for (const candidate of [text, ...padded(text, request.minLength)]) {
      const length = [...candidate].length;
      if (length >= request.minLength && length <= request.maxLength && regex.test(candidate)) return { ok: true, text: candidate };
    }
  }
  return { ok: false, reason: `no string of ${describeLength(request)} matching it was found` };
}

function describeLength(request: PatternExampleRequest): string {
  if (request.maxLength === Number.POSITIVE_INFINITY) return `at least ${request.minLength} characters`;
  return request.minLength === request.maxLength ? `exactly ${request.minLength} characters` : `${request.minLength} to ${request.maxLength} characters`;
}

// An unanchored pattern still matches when filler is added at either end.
function padded(text: string, minLength: number): string[] {
  const missing = minLength - [...text].length;
  if (missing <= 0) return [];
  const filler = 'x'.repeat(missing);
  return [text + filler, filler + text];
}

interface ProduceState {
  random: Random;
  mode: Mode;
  /** The length the example should reach; `long` mode stretches open-ended repeats to it. */
  target: number;
}

function produce(node: RegexNode, state: ProduceState, parts: string[]): void {
  switch (node.kind) {
    case 'sequence':
      for (const item of node.items) produce(item, state, parts);
      return;
    case 'choice':
      produce(state.mode === 'short' ? node.options[0]! : state.random.pick(node.options), state, parts);
      return;
    case 'repeat': {
      const count = repeatCount(node, state);
      for (let index = 0; index < count; index++) produce(node.node, state, parts);
      return;
    }
    case 'characters':
      parts.push(pickCharacter(node.ranges, state.random));
      return;
    case 'literal':
      parts.push(node.text);
      return;
    case 'assertion':
      return;
  }
}

function repeatCount(node: { minimum: number; maximum: number }, state: ProduceState): number {
  const { minimum, maximum } = node;
  if (state.mode === 'short') return minimum;
  if (state.mode === 'long') return Math.min(maximum, Math.max(minimum, state.target, minimum + 4));
  return minimum + state.random.integer(0, Math.min(maximum - minimum, 4));
}

function contains(ranges: readonly CodePointRange[], codePoint: number): boolean {
  return ranges.some(([low, high]) => codePoint >= low && codePoint <= high);
}

function pickCharacter(ranges: readonly CodePointRange[], random: Random): string {
  for (const preferred of [READABLE, PUNCTUATION]) {
    const allowed = preferred.filter((character) => contains(ranges, character.codePointAt(0)!));
    if (allowed.length > 0) return random.pick(allowed);
  }
  const usable = ranges.filter(([low, high]) => !(low >= 0xd800 && high <= 0xdfff));
  if (usable.length === 0) return '';
  const [low, high] = random.pick(usable);
  let codePoint = random.integer(low, high);
  // A lone surrogate is not a character; step past the surrogate block.
  if (codePoint >= 0xd800 && codePoint <= 0xdfff) codePoint = high > 0xdfff ? 0xe000 : low;
  return String.fromCodePoint(codePoint);
}

function complement(ranges: readonly CodePointRange[]): CodePointRange[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const result: CodePointRange[] = [];
  let next = 0;
  for (const [low, high] of sorted) {
    if (low > next) result.push([next, low - 1]);
    next = Math.max(next, high + 1);
  }
  if (next <= MAXIMUM_CODE_POINT) result.push([next, MAXIMUM_CODE_POINT]);
  return result;
}

// The parsed pattern as the generator's tree; what it cannot write text for is refused, the
// first such part in the pattern named.
function choiceOf(syntax: RegexAlternatives): RegexNode {
  const options = syntax.branches.map((branch): RegexNode => ({ kind: 'sequence', items: branch.elements.map(nodeOf) }));
  return options.length === 1 ? options[0]! : { kind: 'choice', options };
}

function nodeOf(element: RegexElement): RegexNode {
  switch (element.kind) {
    case 'characters':
      if (element.from === 'property') throw new UnsupportedSyntax(`the Unicode property escape "\\${/\\([pP])/.exec(element.raw)?.[1] ?? 'p'}{…}"`);
      if (element.from === 'character') return { kind: 'literal', text: String.fromCodePoint(element.ranges[0]![0]) };
      return { kind: 'characters', ranges: element.ranges };
    case 'group':
      if (element.modifiers) throw new UnsupportedSyntax(`the group "${element.raw.slice(0, 3)}"`);
      return choiceOf(element.alternatives);
    case 'lookaround':
      throw new UnsupportedSyntax(`lookaround "${element.raw.slice(0, 3)}"`);
    case 'backreference':
      throw new UnsupportedSyntax(`the backreference "${element.raw.slice(0, 2)}"`);
    case 'assertion':
      return { kind: 'assertion' };
    case 'repeat': {
      const node = nodeOf(element.element);
      return node.kind === 'assertion' ? node : { kind: 'repeat', node, minimum: element.min, maximum: element.max };
    }
  }
}

/** Legacy: the example with the hand-written reader it had before (compared in a property test). */
export function legacyPatternTree(pattern: string): RegexNode | string {
  try {
    return new PatternParser(pattern).parse();
  } catch (error) {
    if (error instanceof UnsupportedSyntax) return error.message;
    throw error;
  }
}

/** The generator's tree for a pattern, or what it refuses (compared in a property test). */
export function patternTree(pattern: string): RegexNode | string {
  try {
    return choiceOf(parseRegex(pattern, 'u'));
  } catch (error) {
    if (error instanceof UnsupportedSyntax) return error.message;
    throw error;
  }
}

/** A recursive-descent reader for the part of ECMAScript regex syntax that examples can be made for. */
class PatternParser {
  private readonly characters: string[];
  private position = 0;

  constructor(pattern: string) {
    this.characters = [...pattern];
  }

  parse(): RegexNode {
    const node = this.parseChoice();
    if (this.position < this.characters.length) throw new UnsupportedSyntax(`an unmatched "${this.peek()}"`);
    return node;
  }

  private peek(offset = 0): string | undefined {
    return this.characters[this.position + offset];
  }

  private take(): string {
    const character = this.characters[this.position++];
    if (character === undefined) throw new UnsupportedSyntax('a pattern that ends early');
    return character;
  }

  private parseChoice(): RegexNode {
    const options = [this.parseSequence()];
    while (this.peek() === '|') {
      this.position++;
      options.push(this.parseSequence());
    }
    return options.length === 1 ? options[0]! : { kind: 'choice', options };
  }

  private parseSequence(): RegexNode {
    const items: RegexNode[] = [];
    while (this.position < this.characters.length && this.peek() !== '|' && this.peek() !== ')') {
      const atom = this.parseAtom();
      items.push(this.parseQuantifier(atom));
    }
    return { kind: 'sequence', items };
  }

  private parseQuantifier(atom: RegexNode): RegexNode {
    const character = this.peek();
    let bounds: [number, number] | undefined;
    if (character === '*') bounds = [0, Number.POSITIVE_INFINITY];
    else if (character === '+') bounds = [1, Number.POSITIVE_INFINITY];
    else if (character === '?') bounds = [0, 1];
    if (bounds) this.position++;
    else if (character === '{') bounds = this.parseBraces();
    if (!bounds) return atom;
    if (this.peek() === '?') this.position++; // lazy: same strings, different search order
    if (atom.kind === 'assertion') return atom;
    return { kind: 'repeat', node: atom, minimum: bounds[0], maximum: bounds[1] };
  }

  private parseBraces(): [number, number] | undefined {
    const rest = this.characters.slice(this.position).join('');
    const match = /^\{(\d+)(,(\d*))?\}/.exec(rest);
    if (!match) return undefined;
    this.position += [...match[0]].length;
    const minimum = Number(match[1]);
    const maximum = match[2] === undefined ? minimum : match[3] === '' ? Number.POSITIVE_INFINITY : Number(match[3]);
    return [minimum, maximum];
  }

  private parseAtom(): RegexNode {
    const character = this.take();
    switch (character) {
      case '^':
      case '$':
        return { kind: 'assertion' };
      case '.':
        return { kind: 'characters', ranges: complement(LINE_TERMINATORS) };
      case '[':
        return this.parseClass();
      case '(':
        return this.parseGroup();
      case '\\':
        return this.parseEscape();
      default:
        return { kind: 'literal', text: character };
    }
  }

  private parseGroup(): RegexNode {
    if (this.peek() === '?') {
      const next = this.peek(1);
      if (next === ':') this.position += 2;
      else if (next === '<' && this.peek(2) !== '=' && this.peek(2) !== '!') {
        while (this.take() !== '>');
      } else throw new UnsupportedSyntax(next === '=' || next === '!' || next === '<' ? 'lookaround "(?' + next + '"' : `the group "(?${next ?? ''}"`);
    }
    const node = this.parseChoice();
    if (this.take() !== ')') throw new UnsupportedSyntax('an unclosed group');
    return node;
  }

  private parseEscape(): RegexNode {
    const character = this.take();
    if (character === 'b' || character === 'B') return { kind: 'assertion' };
    const ranges = this.classEscape(character);
    if (ranges) return { kind: 'characters', ranges };
    return { kind: 'literal', text: this.characterEscape(character) };
  }

  private classEscape(character: string): CodePointRange[] | undefined {
    switch (character) {
      case 'd':
        return DIGITS;
      case 'D':
        return complement(DIGITS);
      case 'w':
        return WORD;
      case 'W':
        return complement(WORD);
      case 's':
        return SPACE;
      case 'S':
        return complement(SPACE);
      default:
        return undefined;
    }
  }

  private characterEscape(character: string): string {
    const single = SINGLE_ESCAPES[character];
    if (single !== undefined && !(character === '0' && /\d/.test(this.peek() ?? ''))) return single;
    if (/[1-9]/.test(character) || character === 'k') throw new UnsupportedSyntax(`the backreference "\\${character}"`);
    if (character === 'p' || character === 'P') throw new UnsupportedSyntax(`the Unicode property escape "\\${character}{…}"`);
    if (character === 'c') return String.fromCharCode(this.take().charCodeAt(0) % 32);
    if (character === 'x') return String.fromCodePoint(this.hexDigits(2));
    if (character === 'u') {
      if (this.peek() !== '{') return String.fromCodePoint(this.hexDigits(4));
      this.position++;
      let digits = '';
      while (this.peek() !== '}') digits += this.take();
      this.position++;
      return String.fromCodePoint(Number.parseInt(digits, 16));
    }
    return character;
  }

  private hexDigits(count: number): number {
    let digits = '';
    for (let index = 0; index < count; index++) digits += this.take();
    return Number.parseInt(digits, 16);
  }

  private parseClass(): RegexNode {
    const negated = this.peek() === '^';
    if (negated) this.position++;
    const ranges: CodePointRange[] = [];
    while (this.peek() !== ']') {
      const low = this.classAtom();
      if (Array.isArray(low)) {
        ranges.push(...low);
        continue;
      }
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        this.position++;
        const high = this.classAtom();
        if (Array.isArray(high)) {
          ranges.push([low, low], [0x2d, 0x2d], ...high);
          continue;
        }
        ranges.push([low, high]);
      } else ranges.push([low, low]);
    }
    this.position++;
    return { kind: 'characters', ranges: negated ? complement(ranges) : ranges };
  }

  /** One class member: a code point, or the ranges of an escape like `\d`. */
  private classAtom(): number | CodePointRange[] {
    const character = this.take();
    if (character !== '\\') return character.codePointAt(0)!;
    const escaped = this.take();
    if (escaped === 'b') return 0x08;
    if (escaped === '-') return 0x2d;
    const ranges = this.classEscape(escaped);
    if (ranges) return ranges;
    return this.characterEscape(escaped).codePointAt(0)!;
  }
}
