import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { compileNormalizers } from './normalize-body.js';
import { BACKTRACKING_ADVICE, backtrackingRisk } from './regex-safety.js';

// Each takes seconds to hours on a string of a few dozen characters that almost matches.
const EVIL = [
  '(a+)+$',
  '(a*)*b',
  '(?:a+)+$',
  '(.*)*$',
  '(a|a)*$',
  '(a|aa)+$',
  '(a|ab)*c',
  '(\\w|\\d)+$',
  '(\\w+\\s?)+$',
  '([a-zA-Z]+)*$',
  '(\\d+)*$',
  '(x+x+)+y',
  '(a+b?)+$',
  '([^,]*,?)*$',
  '(.*a){20}',
  '^(([a-z])+.)+[A-Z]([a-z])+$',
  '(A+)+$',
  '(?=(a+)+$)',
  '(?<=^(a+)+)b',
  '(?!(a|aa)+c)',
];

// The patterns of the README and tests, and common volatile-field patterns.
const ORDINARY = [
  '\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z',
  '\\d{4}-\\d{2}',
  'req_[A-Za-z0-9]+',
  'chatcmpl-[A-Za-z0-9]+',
  '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}',
  '^\\s*$',
  '\\d+(\\.\\d+)?',
  '[\\w\\s]+',
  '\\w+(?:\\s\\w+)*',
  '(?:ab?)*',
  '(a|b)*',
  '(\\d+,)+',
  '(?:[a-z]+\\.)+com',
  'x{2,5}',
  '[]',
  '[^]',
  'a\\+b',
];

// Two repeats that can split the same run of characters between them, and the two the refusal
// names. The first three hung verify for over 60 s on one tape header value; on 20,000 "a"
// `\w*\w*!` takes 4 s, one repeat (`.*=`) 0.4 s.
const SIDE_BY_SIDE: Array<[pattern: string, first: string, second: string]> = [
  ['\\w*\\w*\\w*\\w*!', '\\w*', '\\w*'],
  ['.*.*.*=', '.*', '.*'],
  ['a{1,30}a{1,30}a{1,30}a{1,30}a{1,30}', 'a{1,30}', 'a{1,30}'],
  ['\\w*\\w*!', '\\w*', '\\w*'],
  ['.*.*=', '.*', '.*'],
  ['a{1,30}a{1,30}a{1,30}!', 'a{1,30}', 'a{1,30}'],
  // What lies between can match nothing, or only characters both repeats match.
  ['\\w*a\\w*!', '\\w*', '\\w*'],
  ['\\d+\\.?\\d+', '\\d+', '\\d+'],
  ['\\s*\\s*$', '\\s*', '\\s*'],
  ['[ab]*ab[ab]*!', '[ab]*', '[ab]*'],
  ['.*\\s*$', '.*', '\\s*'],
  ['\\d*[a-z]*\\d*!', '\\d*', '\\d*'],
  // Groups are flattened; an alternation's branches each meet the neighbours.
  ['(\\w*)(\\w*)!', '\\w*', '\\w*'],
  ['(?:x\\w*)\\w*', '\\w*', '\\w*'],
  ['(?:\\w*|-)\\w*!', '\\w*', '\\w*'],
  // The last item of a repeated group meets what follows the group.
  ['(?:-\\w+)+\\w+!', '\\w+', '\\w+'],
  ['\\w*(?:ab)*!', '\\w*', '(?:ab)*'],
  ['(?=\\w*\\w*!)', '\\w*', '\\w*'],
  // A long repeat beside a short one: the string's length times the short one's counts.
  ['\\d?\\d+x', '\\d?', '\\d+'],
  ['\\w+\\d?x', '\\w+', '\\d?'],
  ['\\s*\\r?\\n', '\\s*', '\\r?'],
  ['a{1,3}a{1,30}!', 'a{1,3}', 'a{1,30}'],
];

// The end of one round meets the start of the next: a power of the length for a bounded count,
// exponential without a bound (`(?:\w+-\w+)*$` takes four times as long with every "-aaaaa").
const ACROSS_ROUNDS: Array<[pattern: string, reason: string]> = [
  [
    '(?:\\w+-\\w+)*$',
    'the repeats "\\w+" and "\\w+" can match the same characters side by side in successive rounds of "(?:\\w+-\\w+)*" (exponential backtracking)',
  ],
  ['(?:-?\\w+){5}!', 'the repeat "\\w+" can match the same characters as itself in the next round of "(?:-?\\w+){5}" (polynomial backtracking)'],
  ['(?:\\w+\\s?){2}!', 'the repeat "\\w+" can match the same characters as itself in the next round of "(?:\\w+\\s?){2}" (polynomial backtracking)'],
  // Short repeats too, when the rounds have no bound: `(?:a{1,2})+$` splits n "a" Fibonacci(n) ways.
  ['(?:a{1,2})+$', 'the repeat "a{1,2}" can match the same characters as itself in the next round of "(?:a{1,2})+" (exponential backtracking)'],
  ['(?:\\d{1,3},?)+$', 'the repeat "\\d{1,3}" can match the same characters as itself in the next round of "(?:\\d{1,3},?)+" (exponential backtracking)'],
];

// Short repeats side by side that can split a run of characters in more than 250 ways, with the
// reason. The first takes 3.5 s on 100 "a", each further copy ten times as long; `\d?` thirty
// times 200 s on 100 digits, `(?:a|aa){1,10}` twice 15 s on 100 "a".
const CHAINS: Array<[pattern: string, reason: string]> = [
  [
    'a{1,10}a{1,10}a{1,10}a{1,10}a{1,10}a{1,10}!',
    'the 6 repeats from "a{1,10}" to "a{1,10}" can match the same characters side by side in 1,000,000 ways (polynomial backtracking)',
  ],
  [
    '\\w{0,9}\\w{0,9}\\w{0,9}\\w{0,9}\\w{0,9}\\w{0,9}x',
    'the 6 repeats from "\\w{0,9}" to "\\w{0,9}" can match the same characters side by side in 1,000,000 ways (polynomial backtracking)',
  ],
  [
    '(?:a|b){1,8}(?:a|b){1,8}(?:a|b){1,8}(?:a|b){1,8}(?:a|b){1,8}(?:a|b){1,8}',
    'the 6 repeats from "(?:a|b){1,8}" to "(?:a|b){1,8}" can match the same characters side by side in 262,144 ways (polynomial backtracking)',
  ],
  [`${'\\d?'.repeat(30)}x`, 'the 30 repeats from "\\d?" to "\\d?" can match the same characters side by side in 1,073,741,824 ways (polynomial backtracking)'],
  // What lies between can match nothing, or only characters both repeats match.
  [
    '\\d{1,5}\\d{2}\\d{1,5}-?\\d{1,5}\\d{1,3}x',
    'the 4 repeats from "\\d{1,5}" to "\\d{1,3}" can match the same characters side by side in 375 ways (polynomial backtracking)',
  ],
  // A round that can match in several ways multiplies once per round.
  ['(?:a{1,2}){8}!', 'the rounds of "(?:a{1,2}){8}" can split the same characters in 256 ways (polynomial backtracking)'],
  ['(?:\\d?\\d?){4}x', 'the rounds of "(?:\\d?\\d?){4}" can split the same characters in 256 ways (polynomial backtracking)'],
  ['(?:a|aa){10}!', 'the rounds of "(?:a|aa){10}" can split the same characters in 1,024 ways (polynomial backtracking)'],
  [
    '(?:a|aa){1,10}(?:a|aa){1,10}!',
    'the 2 repeats from "(?:a|aa){1,10}" to "(?:a|aa){1,10}" can match the same characters side by side in 4,186,116 ways (polynomial backtracking)',
  ],
  [
    '(?:a{1,5}a{1,5}){2}a{1,2}!',
    'the 2 repeats from "(?:a{1,5}a{1,5}){2}" to "a{1,2}" can match the same characters side by side in 1,250 ways (polynomial backtracking)',
  ],
];

// Short repeats as ordinary patterns hold them: kept apart by a character one of them cannot
// match, of characters the other cannot match, or too few to matter (`\d{1,3}\d{1,3}` 9 ways).
const SHORT_APART = [
  '\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}',
  '(?:\\d{1,3}\\.){3}\\d{1,3}',
  '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}',
  '\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z',
  '\\d{1,2}:\\d{2}(:\\d{2})?',
  '\\s?,\\s?',
  'v?\\d+',
  '-?\\d+(?:\\.\\d+)?(?:e[+-]?\\d+)?',
  '\\(?\\d{3}\\)?[-.\\s]?\\d{3}[-.\\s]?\\d{4}',
  '(?:\\d{1,3}\\.){3}(?:\\d{1,3}\\.){3}',
  '\\d{1,3}\\d{1,3}',
  '(?:ab|ac){1,3}',
];

// Repeats side by side that something between them keeps apart, and a single repeat (quadratic).
const DELIMITED = [
  '\\w+\\s\\w+',
  '"[^"]*":\\s*"[^"]*"',
  '\\d{4}-\\d{2}-\\d{2}',
  '[a-z]+_[0-9]+',
  'sk-[A-Za-z0-9]+',
  '"id":\\s*"[^"]*"',
  '.*',
  '.*=',
  '^\\s+|\\s+$',
  '\\s*,\\s*',
  '\\w+\\s*=\\s*\\w+',
  'Bearer\\s+\\S+',
  '\\w+(?:\\s|-)\\w+',
  '\\w*(?:-\\w+)*',
  '\\w*a\\d*',
  '[0-9a-f]{32}[0-9a-f]{12}',
  '\\w{20}\\w*',
];

describe('a normalizer pattern that can backtrack catastrophically', () => {
  // The check reads the pattern once and never runs it: a hang would be the test's timeout.
  test.each(EVIL)('%s is refused, with the reason and the rewrite', (pattern) => {
    expect(backtrackingRisk(pattern)).toBeDefined();
    expect(() => compileNormalizers([{ pattern }])).toThrow(
      expect.objectContaining({
        code: 'unsafe_normalizer',
        message: expect.stringMatching(
          /can backtrack catastrophically .*: the repeat ".+" (sits inside another repeat|holds alternatives).*Rewrite it so that/,
        ),
      }),
    );
  });

  test('under the i flag, alternatives differing only in case overlap', () => {
    expect(backtrackingRisk('(a|A)+$')).toBeUndefined();
    expect(backtrackingRisk('(a|A)+$', 'i')).toMatch(/"a" and "A"/);
  });

  test.each(ORDINARY)('%s is accepted', (pattern) => {
    expect(backtrackingRisk(pattern)).toBeUndefined();
    expect(() => compileNormalizers([{ pattern }])).not.toThrow();
  });

  // A timed run on a string that makes these slow would be a slow test: what matters is that
  // no such pattern is ever run, so the proof is the refusal, naming the two repeats.
  test.each(SIDE_BY_SIDE)('%s is refused, naming the repeats %s and %s', (pattern, first, second) => {
    const reason = `the repeats "${first}" and "${second}" can match the same characters side by side (polynomial backtracking)`;
    expect(backtrackingRisk(pattern)).toBe(reason);
    expect(() => compileNormalizers([{ pattern }])).toThrow(
      expect.objectContaining({ code: 'unsafe_normalizer', message: expect.stringContaining(`: ${reason}. Rewrite it so that`) }),
    );
  });

  test.each(ACROSS_ROUNDS)('%s is refused: the end of one round meets the start of the next', (pattern, reason) => {
    expect(backtrackingRisk(pattern)).toBe(reason);
    expect(() => compileNormalizers([{ pattern }])).toThrow(expect.objectContaining({ code: 'unsafe_normalizer', message: expect.stringContaining(reason) }));
  });

  // As above: no such pattern is ever run.
  test.each(CHAINS)('%s is refused: a chain of short repeats', (pattern, reason) => {
    expect(backtrackingRisk(pattern)).toBe(reason);
    expect(() => compileNormalizers([{ pattern }])).toThrow(
      expect.objectContaining({ code: 'unsafe_normalizer', message: expect.stringContaining(`: ${reason}. Rewrite it so that`) }),
    );
  });

  // About 250 ways take 15 to 36 ms on 10,000 "a" that end without "!", 500 ways 45 to 65 ms.
  test.each([
    ['((a)\\2?)+!', '\\2'],
    ['(\\d+)\\1+!', '\\1'],
    ['(a*)\\1*b', '\\1'],
    ['(?<x>\\w+)\\k<x>*!', '\\k<x>'],
    ['(["\'])[^"\']*\\1', '\\1'],
  ])('%s is refused: a backreference (%s) backtracks in ways no check bounds', (pattern, reference) => {
    expect(backtrackingRisk(pattern)).toBe(
      `it uses the backreference "${reference}", whose backtracking no check can bound (backreferences are not allowed in normalizers)`,
    );
  });

  // Without the u flag, `\1` with no group 1 is an octal escape (the character U+0001) and
  // `\k<n>` with no named group is the text "k<n>": single characters, which V8 matches as such,
  // not backreferences. Refusing them would refuse safe patterns; only a reference to a group
  // that exists is one (the parser, @eslint-community/regexpp, says which it read).
  test.each([
    ['a\\1+b', 'a\u0001\u0001b'],
    ['(a)\\2*x', 'a\u0002\u0002x'],
    ['\\k<n>+!', 'k<n>>!'],
  ])('%s names no group, so it is no backreference, and is accepted', (pattern, matched) => {
    expect(new RegExp(pattern).test(matched)).toBe(true);
    expect(backtrackingRisk(pattern)).toBeUndefined();
    expect(() => compileNormalizers([{ pattern }])).not.toThrow();
  });

  test('(\\d+)\\1+! names its group, so it is a backreference, and is refused', () => {
    expect(backtrackingRisk('(\\d+)\\1+!')).toMatch(/^it uses the backreference "\\1"/);
    expect(() => compileNormalizers([{ pattern: '(\\d+)\\1+!' }])).toThrow(expect.objectContaining({ code: 'unsafe_normalizer' }));
  });

  test('a digit escape inside a class is no backreference', () => {
    expect(backtrackingRisk('[\\1-\\3]+x')).toBeUndefined();
  });

  test('a chain of 250 ways passes, one of 252 is refused', () => {
    expect(backtrackingRisk('a{1,10}a{1,5}a{1,5}!')).toBeUndefined();
    expect(backtrackingRisk('\\d?\\d?\\d?\\d?\\d?\\d?\\d?x')).toBeUndefined();
    expect(backtrackingRisk('a{1,7}a{1,6}a{1,6}!')).toBe(
      'the 3 repeats from "a{1,7}" to "a{1,6}" can match the same characters side by side in 252 ways (polynomial backtracking)',
    );
    expect(backtrackingRisk('\\d?\\d?\\d?\\d?\\d?\\d?\\d?\\d?x')).toMatch(/the 8 repeats .* in 256 ways/);
  });

  test.each(SHORT_APART)('%s is accepted: its short repeats split a string in few ways', (pattern) => {
    expect(backtrackingRisk(pattern)).toBeUndefined();
    expect(() => compileNormalizers([{ pattern }])).not.toThrow();
  });

  test('a pattern of thousands of repeats side by side is refused, not read to the end', () => {
    const distinct = Array.from({ length: 2000 }, (_, index) => `${String.fromCodePoint(0x4e00 + index)}?`).join('');
    expect(backtrackingRisk(distinct)).toBe('it holds more repeats side by side than this check reads (over 20,000 pairs of them)');
    expect(backtrackingRisk('\\d?'.repeat(5000))).toMatch(
      /^the \d+ repeats from "\\d\?" to "\\d\?" can match the same characters side by side in more than 10\^15 ways/,
    );
  });

  test('under the i flag, repeats of letters in different case overlap', () => {
    expect(backtrackingRisk('[a-z]*[A-Z]*!')).toBeUndefined();
    expect(backtrackingRisk('[a-z]*[A-Z]*!', 'i')).toMatch(/the repeats "\[a-z\]\*" and "\[A-Z\]\*"/);
  });

  test.each(DELIMITED)('%s is accepted: nothing lets two repeats trade characters', (pattern) => {
    expect(backtrackingRisk(pattern)).toBeUndefined();
    expect(() => compileNormalizers([{ pattern }])).not.toThrow();
  });

  test('every pattern the README, docs/ and examples/ suggest as a normalizer is accepted', () => {
    const root = new URL('../', import.meta.url);
    const texts = [
      docsText(),
      ...readdirSync(new URL('examples/', root), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => readFileSync(`${entry.parentPath}/${entry.name}`, 'utf8')),
    ];
    const patterns = texts.flatMap((text) => [...text.matchAll(/"pattern": ?"((?:[^"\\]|\\.)*)"/g)].map((match) => fromJson(match[1]!)));
    expect([...new Set(patterns)].sort()).toEqual([
      '/deployments/[^/]+/',
      '/projects/[^/]+/',
      '\\d{4}-\\d{2}',
      '\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z',
      'arn%3Aaws%3Abedrock%3A[a-z0-9-]+%3A\\d{12}%3A',
      'arn:aws:bedrock:[a-z0-9-]+:\\d{12}:',
    ]);
    for (const pattern of patterns) expect(backtrackingRisk(pattern), pattern).toBeUndefined();
  });

  test('every rewrite the advice and the docs suggest is accepted', () => {
    const readme = docsText();
    const rewrites = ['a+$', '[\\w\\s]+', '\\w+(?:\\s\\w+)*', '(?:ab?)*', '.*=', '\\d+(?:\\.\\d+)?', '\\w+\\s\\w+', '\\d{0,3}', 'a{2,20}'];
    for (const rewrite of rewrites) {
      expect(BACKTRACKING_ADVICE, rewrite).toContain(`"${rewrite}"`);
      expect(backtrackingRisk(rewrite), rewrite).toBeUndefined();
    }
    const inReadme = rewrites.filter((rewrite) => readme.includes(`\`${rewrite}\``));
    expect(inReadme).toEqual(['a+$', '[\\w\\s]+', '\\w+(?:\\s\\w+)*', '.*=', '\\d+(?:\\.\\d+)?', '\\w+\\s\\w+', '\\d{0,3}']);
  });
});

/** The README and every page of docs/, as one text. */
function docsText(): string {
  const docs = new URL('../docs/', import.meta.url);
  const pages = readdirSync(docs)
    .filter((name) => name.endsWith('.md'))
    .sort();
  return [readFileSync(new URL('../README.md', import.meta.url), 'utf8'), ...pages.map((name) => readFileSync(new URL(name, docs), 'utf8'))].join('\n');
}

// The docs' example of invalid JSON writes its pattern with single backslashes, as it means it.
function fromJson(text: string): string {
  try {
    return JSON.parse(`"${text}"`) as string;
  } catch {
    return text;
  }
}
