import { expect, test } from 'vitest';
import { legacyPatternTree, patternTree } from '../schema/pattern-example.js';
import { backtrackingRisk, legacyBacktrackingRisk } from './regex-safety.js';

// Before the hand-written readers go: over generated patterns, the verdicts read with regexpp are
// the verdicts read by hand.
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generator(seed: number): () => string {
  const draw = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(draw() * items.length)]!;
  const atoms = [
    'a',
    'b',
    'x',
    '-',
    '_',
    '=',
    '!',
    ',',
    '\\d',
    '\\w',
    '\\s',
    '\\D',
    '\\W',
    '\\S',
    '\\.',
    '\\n',
    '\\t',
    '\\x41',
    '\\u0061',
    '.',
    '[a-z]',
    '[^ab]',
    '[\\w.-]',
    '[\\d\\s]',
    '[0-9a-f]',
    '[A-Za-z]',
    '[^,]',
    '[^"]',
    '"',
  ];
  const quantifiers = ['', '', '', '*', '+', '?', '{2}', '{1,3}', '{2,}', '{1,30}', '*?', '+?', '{0,5}'];
  const groups = ['(', '(?:', '(?<g>', '(?=', '(?!', '(?<=', '(?<!'];
  const alternation = (depth: number): string => {
    const branches = [sequence(depth)];
    while (draw() < 0.25) branches.push(sequence(depth));
    return branches.join('|');
  };
  let capturing = 0;
  let named = 0;
  const sequence = (depth: number): string => {
    let out = draw() < 0.1 ? '^' : '';
    const length = 1 + Math.floor(draw() * 4);
    for (let index = 0; index < length; index++) {
      const roll = draw();
      let item: string;
      if (depth < 3 && roll < 0.25) {
        let open = pick(groups);
        if (open === '(?<g>') {
          if (named > 0) open = '(';
          else named++;
        }
        if (open === '(' || open === '(?<g>') capturing++;
        item = `${open}${alternation(depth + 1)})`;
      } else if (roll < 0.28 && capturing > 0) item = pick(['\\1', named > 0 ? '\\k<g>' : '\\1']);
      else if (roll < 0.31) item = pick(['\\b', '\\B']);
      else item = pick(atoms);
      const lookaround = item.startsWith('(?=') || item.startsWith('(?!') || item.startsWith('(?<=') || item.startsWith('(?<!');
      out += item + (item === '\\b' || item === '\\B' || (lookaround && true) ? '' : pick(quantifiers));
    }
    return out + (draw() < 0.1 ? '$' : '');
  };
  return () => {
    capturing = 0;
    named = 0;
    return alternation(0);
  };
}

function valid(pattern: string, flags: string): boolean {
  try {
    new RegExp(pattern, flags);
    return true;
  } catch {
    return false;
  }
}

test('the backtracking check gives the same verdict, word for word, with either reader', () => {
  const next = generator(1);
  let compared = 0;
  let refused = 0;
  const differ: string[] = [];
  for (let index = 0; index < 20_000; index++) {
    const pattern = next();
    for (const flags of ['', 'i', 'u']) {
      if (!valid(pattern, flags)) continue;
      compared++;
      const before = legacyBacktrackingRisk(pattern, flags);
      const after = backtrackingRisk(pattern, flags);
      if (before !== undefined) refused++;
      if (before !== after) differ.push(`/${pattern}/${flags}: ${before} → ${after}`);
    }
  }
  console.log(`backtracking check: ${compared} patterns compared, ${refused} refused, ${differ.length} differ`);
  expect(differ.slice(0, 20)).toEqual([]);
  expect(compared).toBeGreaterThan(20_000);
  expect(refused).toBeGreaterThan(1_000);
});

test('the example writer reads every pattern into the same tree, or refuses it with the same words', () => {
  const next = generator(2);
  let compared = 0;
  let refused = 0;
  const differ: string[] = [];
  for (let index = 0; index < 20_000; index++) {
    const pattern = next();
    if (!valid(pattern, 'u')) continue;
    compared++;
    const before = legacyPatternTree(pattern);
    const after = patternTree(pattern);
    if (typeof before === 'string') refused++;
    if (JSON.stringify(before) !== JSON.stringify(after))
      differ.push(`/${pattern}/u: ${JSON.stringify(before).slice(0, 200)} → ${JSON.stringify(after).slice(0, 200)}`);
  }
  console.log(`example writer: ${compared} patterns compared, ${refused} refused, ${differ.length} differ`);
  expect(differ.slice(0, 10)).toEqual([]);
  expect(compared).toBeGreaterThan(5_000);
  expect(refused).toBeGreaterThan(500);
});
