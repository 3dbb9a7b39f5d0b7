// The test a tape belongs to, when it sits in the tape-per-test layout of `tapeForCurrentTest()`
// (`<test dir>/__tapes__/<test file>/<test name>.jsonl`): the report names it by its test.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { TEST_TAPES_FOLDER, testNameOf } from '../recordings/internal.js';

/** The test a tape was recorded by. */
export interface TapeTest {
  /** The test file, as {@link displayPath} shows it (`test/checkout.test.ts`); without its extension when it is not beside its tapes' folder. */
  file: string;
  /** The test's name as the runner gave it (`checkout > pays with a card`). */
  name: string;
}

// The extensions a test file has: the one tapeForCurrentTest() dropped from its tapes' folder name.
const TEST_FILE_EXTENSIONS = new Set(['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs']);

/**
 * The test of a tape in the tape-per-test layout, or undefined for any other tape. Its name is read
 * back from the tape's file name with the titles its test file holds; `titles` keeps each test
 * file's titles, read once.
 */
export function testOfTape(file: string, cwd: string, titles: Map<string, readonly string[]>): TapeTest | undefined {
  const folder = dirname(resolve(file));
  if (basename(dirname(folder)) !== TEST_TAPES_FOLDER) return undefined;
  const testDir = dirname(dirname(folder));
  const stem = basename(folder);
  const source = testFileOf(testDir, stem);
  const key = source ?? join(testDir, stem);
  if (!titles.has(key)) titles.set(key, source === undefined ? [] : titlesIn(source));
  return { file: displayPath(key, cwd), name: testNameOf(basename(file).replace(/\.jsonl$/, ''), titles.get(key)!) };
}

/** A path for people: relative to `cwd` when inside it, absolute outside it. */
export function displayPath(file: string, cwd: string): string {
  const absolute = resolve(cwd, file);
  const path = relative(cwd, absolute);
  return path === '' || path.startsWith('..') || isAbsolute(path) ? absolute : path;
}

function testFileOf(testDir: string, stem: string): string | undefined {
  let names: string[];
  try {
    names = readdirSync(testDir);
  } catch {
    return undefined;
  }
  const name = names.sort().find((entry) => TEST_FILE_EXTENSIONS.has(extname(entry)) && basename(entry, extname(entry)) === stem);
  return name === undefined ? undefined : join(testDir, name);
}

// Every string literal of a test file, its `describe` and `test` titles among them: a title is a
// literal in the source ('…', "…" or a `…` without ${}), on one line unless it is a template.
function titlesIn(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const titles = new Set<string>();
  for (const match of text.matchAll(/'((?:\\.|[^'\\\n])*)'|"((?:\\.|[^"\\\n])*)"|`((?:\\[\s\S]|[^`\\])*)`/g)) {
    const body = match[1] ?? match[2] ?? match[3]!;
    if (match[3] !== undefined && body.includes('${')) continue;
    titles.add(unescaped(body));
  }
  return [...titles];
}

function unescaped(body: string): string {
  return body.replace(/\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[\s\S])/g, (_all, escape: string) => {
    if (escape.startsWith('u{')) {
      const point = parseInt(escape.slice(2, -1), 16);
      return point <= 0x10ffff ? String.fromCodePoint(point) : escape;
    }
    if (escape.length > 1) return String.fromCharCode(parseInt(escape.slice(1), 16));
    return { n: '\n', t: '\t', r: '\r', '0': '\0' }[escape] ?? escape;
  });
}
