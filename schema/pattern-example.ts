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

// Characters tried first when a class allows them, so examples stay readable.
const READABLE = [...'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ'];
const PUNCTUATION = [...' -_.:/@+'];

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
