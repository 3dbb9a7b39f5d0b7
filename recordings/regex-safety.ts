import { ANY_CODE_POINT, parseRegex, RegexSyntaxError, type RegexAlternatives, type RegexElement } from '../core/internal.js';

/**
 * Why a regular expression may backtrack catastrophically (its running time growing
 * exponentially, or as a high power, with the input's length), or undefined when this check
 * finds no reason. V8's engine backtracks, and a normalizer runs over every string of every
 * request, in `verify` over every line of a tape: one such pattern turns seconds into hours.
 *
 * Conservative, not complete. It refuses:
 * - a quantifier that repeats without bound (or more than 10 times) around another such
 *   quantifier (star height above 1: `(a+)+`, `(\w*\s?)*`, `(.*a){20}`) unless each round must
 *   match a character none of the inner repeats can (`\w+(?:\s\w+)*` passes);
 * - an unbounded quantifier over alternatives that can begin with the same character
 *   (`(a|ab)*`, `(\w|\d)+`);
 * - two repeats whose length varies, one of them able to run more than 10 times, which can
 *   match the same characters, when nothing between them (nor in a round of either) must match a
 *   character they do not share: side by side (`\w*\w*!`, `.*.*=`, `a{1,30}a{1,30}`, `\w*a\w*`,
 *   `\d+\.?\d+`, `(?:x\w*)\w*`, `\s*\s*$`, `\d?\d+`, `\s*\r?\n`), or at the end of one round of a
 *   group and the start of the next (`(?:\w+-\w+)*`, `(?:-?\w+){5}`). Each such pair multiplies
 *   the ways to split a string by its length. A group repeated more than 10 times does the same
 *   with short repeats (`(?:a{1,2})+$`, `(?:\d{1,3},?)+$`: exponential);
 * - a chain of short repeats (at most 10 times) whose length varies, each side by side with the
 *   next by the same rule, that can split a run of characters in more than 250 ways: the
 *   product of each repeat's counts (`a{1,10}` 10, `\d?` 2). `a{1,10}` six times (10^6 ways),
 *   `\d?` eight times (256), `(?:a{1,2}){8}` (2^8) are refused; `a{1,10}a{1,5}a{1,5}` (250)
 *   passes. On 10,000 characters that almost match, 250 ways take 15 to 36 ms; 10^6 ways take
 *   3.5 s on 100 characters;
 * - a pattern with so many repeats side by side (hundreds) that comparing them all would take
 *   longer than the check should (over 20,000 pairs).
 *
 * A single repeat followed by something that can fail (`.*=`, `sk-[A-Za-z0-9]+`) passes: it is
 * quadratic in the string's length, as any backtracking engine is. Delimited repeats pass
 * (`\w+\s\w+`, `"[^"]*":\s*"[^"]*"`, `[a-z]+_[0-9]+`, `\d{1,3}\.\d{1,3}`), and so do exact counts
 * (`[0-9a-f]{12}`) and repeats of characters they do not share (`v?\d+`, `\s?,\s?`).
 * A backreference (`\1`, `\k<name>`) is refused: what it matches is known only while matching,
 * and `(\d+)\1+!` is polynomial, `((a)\2?)+!` exponential. Lookarounds count as matching nothing
 * where they stand; a lookaround's body is checked as a pattern of its own (`(?=(a+)+$)` is
 * refused).
 */
export function backtrackingRisk(source: string, flags = ''): string | undefined {
  let syntax: RegexAlternatives;
  try {
    syntax = parseRegex(source, flags);
  } catch (error) {
    // Not a regular expression: V8 reports the syntax error itself.
    if (error instanceof RegexSyntaxError) return undefined;
    throw error;
  }
  const read = new TreeReader(flags.includes('i'));
  const tree = read.alternatives(syntax);
  // What a backreference matches is known only while matching, so no check bounds it: `(\d+)\1+!`
  // is polynomial, `((a)\2?)+!` exponential. A normalizer replaces text; it needs none.
  if (read.backreference !== undefined)
    return `it uses the backreference "${read.backreference}", whose backtracking no check can bound (backreferences are not allowed in normalizers)`;
  // A lookaround matches no characters of the pattern's own, but its body backtracks where it
  // stands: `(?=(a+)+$)` is as slow as `(a+)+$`.
  for (const body of [tree, ...read.lookarounds]) {
    const risk = findRisk(body, false) ?? sideBySideRisk(body);
    if (risk !== undefined) return risk;
  }
  return undefined;
}

/** The advice that goes with a refusal. */
export const BACKTRACKING_ADVICE =
  'Rewrite it so that no repeated group holds another repeat and repeated alternatives cannot start alike: "(a+)+$" matches what "a+$" does, "(\\w+\\s?)+" what "[\\w\\s]+" does (or "\\w+(?:\\s\\w+)*"), "(a|ab)*" what "(?:ab?)*" does. ' +
  'Two repeats that can match the same characters side by side are one repeat (".*.*=" matches what ".*=" does) or need a character neither matches between them ("\\d+(?:\\.\\d+)?" instead of "\\d+\\.?\\d+", "\\w+\\s\\w+" instead of "\\w*\\w*"). ' +
  'Short repeats side by side that match the same characters are one repeat too ("\\d?\\d?\\d?" matches what "\\d{0,3}" does, "a{1,10}a{1,10}" what "a{2,20}" does). ' +
  'Backreferences ("\\1", "\\k<name>") are not allowed: match the text itself. ' +
  'A single repeat followed by text that can fail (".*=") passes: it is quadratic in the string\'s length.';

type Ranges = Array<[number, number]>;

type Node =
  | { kind: 'sequence'; items: Node[]; text: string }
  | { kind: 'alternation'; branches: Node[]; text: string }
  | { kind: 'repeat'; child: Node; min: number; max: number; text: string }
  | { kind: 'group'; child: Node; text: string }
  | { kind: 'atom'; chars: Ranges; text: string }
  | { kind: 'empty'; text: string };

type Repeat = Extract<Node, { kind: 'repeat' }>;

const ANY: Ranges = ANY_CODE_POINT;

// A repeat of more than this many counts as unbounded: `(.*a){20}` is as slow as `(.*a)*`.
const LARGE = 10;

function findRisk(node: Node, insideLarge: boolean): string | undefined {
  switch (node.kind) {
    case 'repeat': {
      const large = node.max > LARGE;
      if (insideLarge && large) return `the repeat "${node.text}" sits inside another repeat that has no bound (nested quantifiers)`;
      if (node.max === Infinity) {
        const alternatives = overlappingAlternatives(node.child);
        if (alternatives !== undefined) return `the repeat "${node.text}" holds alternatives that can start with the same character (${alternatives})`;
      }
      // Each round of `(?:\s\w+)*` starts with a character no inner repeat matches, so a string
      // splits into rounds one way only: the inner repeats cannot trade characters.
      if (large && delimited(node.child)) return findRisk(node.child, false);
      return findRisk(node.child, insideLarge || large);
    }
    case 'sequence':
      for (const item of node.items) {
        const risk = findRisk(item, insideLarge);
        if (risk !== undefined) return risk;
      }
      return undefined;
    case 'alternation':
      for (const branch of node.branches) {
        const risk = findRisk(branch, insideLarge);
        if (risk !== undefined) return risk;
      }
      return undefined;
    case 'group':
      return findRisk(node.child, insideLarge);
    default:
      return undefined;
  }
}

// A body holding one character it must match that none of its repeats can.
function delimited(node: Node): boolean {
  let inner = node;
  while (inner.kind === 'group') inner = inner.child;
  if (inner.kind !== 'sequence') return false;
  const repeated = inner.items.filter((item) => item.kind === 'repeat').flatMap(allChars);
  if (repeated.length === 0) return false;
  return inner.items.some((item) => item.kind === 'atom' && !overlaps(item.chars, repeated));
}

// Two repeats that can trade characters: `\w*\w*` splits n characters n + 1 ways before what
// follows fails, and every further such repeat multiplies that by n again. Short repeats trade
// too: `a{1,10}` six times splits a run of "a" in 10^6 ways at every place the match is tried.
function sideBySideRisk(tree: Node): string | undefined {
  const search = new SideBySide();
  search.reaches(tree);
  return search.risk ?? chainRisk(search);
}

// A repeat that may trade characters with one met later (or earlier): the characters it matches,
// and the character sets that must be matched between it and the point reached (its own rounds'
// included). The trade needs a character both repeats match in each of those sets.
type Reach = { repeat: Repeat; chars: Ranges; between: Ranges[] };

// What a node shows its neighbours: the repeats it can start with (and what must be matched
// before them), those it can end with (and what must be matched after them), and the character
// sets every match of the whole node holds.
type Reaches = { leading: Reach[]; trailing: Reach[]; through: Ranges[] };

const NOTHING: Reaches = { leading: [], trailing: [], through: [] };

// Keeps a pattern of thousands of characters cheap; forgetting sets only makes the check refuse more.
const MAX_BETWEEN = 32;

// The most ways a chain of short repeats may split a run of characters. Measured on 10,000 "a"
// (Node 20, the "!" never found): about 250 ways take 15 to 36 ms (`a{1,10}a{1,5}a{1,5}!` 15,
// `\w{0,5}\w?(?:(?:a?){2}){1,2}!` 36), 500 ways 45 to 65 ms, 1,000 ways 70 ms; 10^6 ways take
// 3.5 s on 100 characters.
const MAX_WAYS = 250;

// The most pairs of repeats compared, 20 to 50 ms: only a pattern of hundreds of repeats side by
// side, or nested dozens deep, compares more, and it is refused rather than read to the end.
const MAX_PAIRS = 20_000;

// Each node is summarized once, so the check stays linear in the pattern however groups nest.
class SideBySide {
  risk: string | undefined;
  /** The short repeats that vary in length, in the order they end in the pattern. */
  readonly short: Repeat[] = [];
  /** The ways each short repeat can split a run of characters. */
  readonly ways = new Map<Repeat, number>();
  /** For each short repeat, the short repeats found side by side just before it. */
  readonly before = new Map<Repeat, Set<Repeat>>();
  // For each short repeat whose rounds meet (the end of one trades with the start of the next), the repeats that trade.
  readonly #roundsMeet = new Map<Repeat, Set<Repeat>>();
  #checked = 0;

  reaches(node: Node): Reaches {
    if (this.risk !== undefined) return NOTHING;
    switch (node.kind) {
      case 'atom':
        return { leading: [], trailing: [], through: [node.chars] };
      case 'empty':
        return NOTHING;
      case 'group':
        return this.reaches(node.child);
      case 'sequence': {
        let reached = NOTHING;
        for (const item of node.items) reached = this.#then(reached, this.reaches(item));
        return reached;
      }
      case 'alternation': {
        // Branches are never side by side; a neighbour meets any of them.
        const branches = node.branches.map((branch) => this.reaches(branch));
        return {
          leading: branches.flatMap((branch) => branch.leading),
          trailing: branches.flatMap((branch) => branch.trailing),
          through: branches.map((branch) => branch.through).reduce(eitherOf),
        };
      }
      case 'repeat': {
        const first = this.short.length;
        const round = this.reaches(node.child);
        // The end of one round meets the start of the next: `(?:-?\w+){5}` holds five `\w+` side by side.
        if (node.max > 1) this.#meet(round.trailing, round.leading, node);
        const through = node.min > 0 ? round.through : [];
        if (!variable(node)) return { leading: round.leading, trailing: round.trailing, through };
        if (node.max <= LARGE) {
          this.ways.set(node, this.#waysOf(node, this.short.slice(first)));
          this.short.push(node);
        }
        const own: Reach[] = [{ repeat: node, chars: allChars(node.child), between: round.through }];
        return { leading: [...own, ...round.leading], trailing: [...own, ...round.trailing], through };
      }
    }
  }

  #then(before: Reaches, after: Reaches): Reaches {
    this.#meet(before.trailing, after.leading);
    return {
      leading: [...before.leading, ...across(after.leading, before.through)],
      trailing: [...across(before.trailing, after.through), ...after.trailing],
      through: [...before.through, ...after.through].slice(0, MAX_BETWEEN),
    };
  }

  #meet(trailing: Reach[], leading: Reach[], rounds?: Repeat): void {
    for (const first of trailing) {
      for (const second of leading) {
        if (this.risk !== undefined) return;
        // A pattern of thousands of repeats side by side stops at the first chain found too long.
        if (++this.#checked % 5_000 === 0) {
          this.risk = chainRisk(this);
          if (this.risk === undefined && this.#checked >= MAX_PAIRS)
            this.risk = `it holds more repeats side by side than this check reads (over ${MAX_PAIRS.toLocaleString('en-US')} pairs of them)`;
          if (this.risk !== undefined) return;
        }
        const shared = intersect(first.chars, second.chars);
        if (shared.length === 0) continue;
        if (!first.between.every((chars) => overlaps(chars, shared)) || !second.between.every((chars) => overlaps(chars, shared))) continue;
        // A long repeat trades as many ways as the string is long, and so do rounds without a bound.
        if (first.repeat.max > LARGE || second.repeat.max > LARGE || (rounds !== undefined && rounds.max > LARGE)) {
          this.risk = tradeRisk(first.repeat, second.repeat, rounds);
          return;
        }
        if (rounds !== undefined) {
          const meeting = this.#roundsMeet.get(rounds) ?? new Set<Repeat>();
          meeting.add(first.repeat).add(second.repeat);
          this.#roundsMeet.set(rounds, meeting);
          continue;
        }
        const met = this.before.get(second.repeat) ?? new Set<Repeat>();
        met.add(first.repeat);
        this.before.set(second.repeat, met);
      }
    }
  }

  // The counts of a short repeat (`a{1,10}` 10, `\d?` 2), unless a round can match the same
  // characters in several ways: then the ways of a round to the power of each count, summed.
  // A round's ways are those of its longest chain of two or more repeats (`(?:a?a?b){2}` 4^2), or
  // ending at a repeat that meets the next round (`(?:a{1,2}){8}` 2^8). A repeat alone in a round
  // that ends at a character it cannot match keeps only the ways it matches the same characters
  // (`(?:\d{1,3}\.){3}` 1, `(?:(?:a?){2}b)?` 1 + 4), times its alternatives that start alike
  // (`(?:a|aa){1,10}` 2 + 4 + … + 2^10).
  #waysOf(repeat: Repeat, inside: Repeat[]): number {
    const meeting = this.#roundsMeet.get(repeat);
    let round = 1;
    for (const [end, chain] of longestChains(inside, this.before, this.ways)) {
      const alone = chain.ways / (end.max - end.min + 1);
      round = Math.max(round, chain.length > 1 || meeting?.has(end) ? chain.ways : alone);
    }
    round *= alikeAlternatives(repeat.child);
    let total = 0;
    for (let count = repeat.min; count <= repeat.max; count++) total += round ** count;
    return total;
  }
}

// A chain of short repeats, each side by side with the next, multiplies their ways (`a{1,10}`
// six times splits a run of "a" in 10^6 ways): the chain of most ways is refused above MAX_WAYS.
function chainRisk(search: SideBySide): string | undefined {
  let longest: (Chain & { to: Repeat }) | undefined;
  for (const [to, chain] of longestChains(search.short, search.before, search.ways)) {
    if (longest === undefined || chain.ways > longest.ways) longest = { ...chain, to };
  }
  if (longest === undefined || longest.ways <= MAX_WAYS) return undefined;
  const ways = longest.ways > 1e15 ? 'more than 10^15' : longest.ways.toLocaleString('en-US');
  if (longest.length === 1) return `the rounds of "${longest.to.text}" can split the same characters in ${ways} ways (polynomial backtracking)`;
  return `the ${longest.length} repeats from "${longest.from.text}" to "${longest.to.text}" can match the same characters side by side in ${ways} ways (polynomial backtracking)`;
}

type Chain = { ways: number; length: number; from: Repeat };

// For each repeat, the chain of most ways that ends with it, among these repeats (given in the
// order they end in the pattern, so whatever can come before a repeat is reached first).
function longestChains(repeats: Repeat[], before: Map<Repeat, Set<Repeat>>, ways: Map<Repeat, number>): Map<Repeat, Chain> {
  const chains = new Map<Repeat, Chain>();
  for (const repeat of repeats) {
    let best: Chain | undefined;
    for (const previous of before.get(repeat) ?? []) {
      const chain = chains.get(previous);
      if (chain !== undefined && (best === undefined || chain.ways > best.ways)) best = chain;
    }
    const own = ways.get(repeat)!;
    chains.set(repeat, best === undefined ? { ways: own, length: 1, from: repeat } : { ways: best.ways * own, length: best.length + 1, from: best.from });
  }
  return chains;
}

// The reaches that survive text holding these character sets: text a repeat cannot match ends it.
function across(reaches: Reach[], sets: Ranges[]): Reach[] {
  if (sets.length === 0) return reaches;
  return reaches
    .filter((reach) => sets.every((chars) => overlaps(chars, reach.chars)))
    .map((reach) => ({ ...reach, between: [...reach.between, ...sets].slice(0, MAX_BETWEEN) }));
}

// What a match of either branch surely holds: for each place, the union of both sets there.
function eitherOf(a: Ranges[], b: Ranges[]): Ranges[] {
  return a.slice(0, b.length).map((chars, index) => [...chars, ...b[index]!]);
}

// A repeat whose length varies: `a{1,30}`, `\w*`, `\d?`, `(?:ab?){12}`, not `[0-9a-f]{12}`
// (exact counts of fixed width split a string one way only).
function variable(node: Repeat): boolean {
  return node.min < node.max || !fixedWidth(node.child);
}

function fixedWidth(node: Node): boolean {
  switch (node.kind) {
    case 'atom':
    case 'empty':
      return true;
    case 'group':
      return fixedWidth(node.child);
    case 'sequence':
      return node.items.every(fixedWidth);
    case 'repeat':
      return node.min === node.max && fixedWidth(node.child);
    case 'alternation':
      return false;
  }
}

function tradeRisk(first: Repeat, second: Repeat, rounds: Repeat | undefined): string {
  if (rounds === undefined) return `the repeats "${first.text}" and "${second.text}" can match the same characters side by side (polynomial backtracking)`;
  // Unbounded rounds multiply the splits once per round.
  const growth = rounds.max > LARGE ? 'exponential' : 'polynomial';
  if (first === second)
    return `the repeat "${first.text}" can match the same characters as itself in the next round of "${rounds.text}" (${growth} backtracking)`;
  return `the repeats "${first.text}" and "${second.text}" can match the same characters side by side in successive rounds of "${rounds.text}" (${growth} backtracking)`;
}

// Every character a node can match.
function allChars(node: Node): Ranges {
  switch (node.kind) {
    case 'atom':
      return node.chars;
    case 'empty':
      return [];
    case 'group':
    case 'repeat':
      return allChars(node.child);
    case 'alternation':
      return node.branches.flatMap(allChars);
    case 'sequence':
      return node.items.flatMap(allChars);
  }
}

// The first two alternatives directly under a repeat whose first characters overlap.
function overlappingAlternatives(node: Node): string | undefined {
  const branches = alternativesOf(node);
  const firsts = branches.map(firstChars);
  for (let a = 0; a < firsts.length; a++) {
    for (let b = a + 1; b < firsts.length; b++) {
      if (overlaps(firsts[a]!, firsts[b]!)) return `"${branches[a]!.text}" and "${branches[b]!.text}"`;
    }
  }
  return undefined;
}

// The most alternatives directly under a repeat that can start with the same character as one of
// them. Past 64 alternatives, all of them: comparing every pair would cost more than it tells.
function alikeAlternatives(node: Node): number {
  const branches = alternativesOf(node);
  if (branches.length > 64) return branches.length;
  const firsts = branches.map(firstChars);
  return Math.max(1, ...firsts.map((first) => firsts.filter((other) => overlaps(first, other)).length));
}

// The alternatives directly under a repeat: `(?:a|ab)` holds "a" and "ab", `(?:ab)` none.
function alternativesOf(node: Node): Node[] {
  let inner = node;
  while (inner.kind === 'group' || (inner.kind === 'sequence' && inner.items.length === 1)) inner = inner.kind === 'group' ? inner.child : inner.items[0]!;
  return inner.kind === 'alternation' ? inner.branches : [];
}

// The characters a node can begin with; an empty match counts as any character (what follows).
function firstChars(node: Node): Ranges {
  switch (node.kind) {
    case 'atom':
      return node.chars;
    case 'empty':
      return ANY;
    case 'group':
      return firstChars(node.child);
    case 'repeat':
      return node.min === 0 ? ANY : firstChars(node.child);
    case 'alternation':
      return node.branches.flatMap(firstChars);
    case 'sequence': {
      const first = node.items.find((item) => item.kind !== 'empty');
      return first === undefined ? ANY : firstChars(first);
    }
  }
}

function overlaps(a: Ranges, b: Ranges): boolean {
  return a.some(([lowA, highA]) => b.some(([lowB, highB]) => lowA <= highB && lowB <= highA));
}

function intersect(a: Ranges, b: Ranges): Ranges {
  const out: Ranges = [];
  for (const [lowA, highA] of a) {
    for (const [lowB, highB] of b) {
      if (lowA <= highB && lowB <= highA) out.push([Math.max(lowA, lowB), Math.min(highA, highB)]);
    }
  }
  return out;
}

function withCase(ranges: Ranges): Ranges {
  const out: Ranges = [...ranges];
  for (const [low, high] of ranges) {
    const upper: [number, number] = [Math.max(low, 0x61), Math.min(high, 0x7a)];
    if (upper[0] <= upper[1]) out.push([upper[0] - 0x20, upper[1] - 0x20]);
    const lower: [number, number] = [Math.max(low, 0x41), Math.min(high, 0x5a)];
    if (lower[0] <= lower[1]) out.push([lower[0] + 0x20, lower[1] + 0x20]);
  }
  return out;
}

/** Turns the parsed syntax into the check's tree: lookarounds set aside, case folded under `i`. */
class TreeReader {
  /** The bodies of the lookarounds read, each checked as a pattern of its own. */
  readonly lookarounds: Node[] = [];
  /** The first backreference read (`\1`, `\k<name>`), if any. */
  backreference: string | undefined;
  readonly #ignoreCase: boolean;

  constructor(ignoreCase: boolean) {
    this.#ignoreCase = ignoreCase;
  }

  alternatives(syntax: RegexAlternatives, ignoreCase = this.#ignoreCase): Node {
    const branches = syntax.branches.map((branch): Node => {
      const items = branch.elements.map((element) => this.#element(element, ignoreCase));
      if (items.length === 0) return { kind: 'empty', text: '' };
      return items.length === 1 ? items[0]! : { kind: 'sequence', items, text: branch.raw };
    });
    return branches.length === 1 ? branches[0]! : { kind: 'alternation', branches, text: syntax.raw };
  }

  #element(element: RegexElement, ignoreCase: boolean): Node {
    switch (element.kind) {
      case 'characters': {
        // `.` counts as every character (the `s` flag aside), and so does a `\p{…}` escape.
        const chars = element.from === 'dot' || element.from === 'property' ? ANY : element.ranges;
        return { kind: 'atom', chars: ignoreCase ? withCase(chars) : chars, text: element.raw };
      }
      case 'group':
        // Modifiers may fold case inside the group: it is read as if they did.
        return { kind: 'group', child: this.alternatives(element.alternatives, ignoreCase || element.modifiers), text: element.raw };
      case 'lookaround':
        // A lookaround matches no characters of its own.
        this.lookarounds.push(this.alternatives(element.alternatives, ignoreCase));
        return { kind: 'empty', text: element.raw };
      case 'repeat':
        return { kind: 'repeat', child: this.#element(element.element, ignoreCase), min: element.min, max: element.max, text: element.raw };
      case 'backreference':
        this.backreference ??= element.raw;
        return { kind: 'empty', text: element.raw };
      case 'assertion':
        return { kind: 'empty', text: element.raw };
    }
  }
}
