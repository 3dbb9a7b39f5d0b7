import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { buildUpstreamTable, providerHosts } from '../../dist/proxy/internal.js';
import { EscapeGuard } from '../../dist/replay/internal.js';

/**
 * Every code example in README.md and docs/*.md runs, so the docs cannot rot.
 *
 * The convention (docs/README.md, "Examples run", says the same to the reader):
 * - a fenced block whose info string starts with `ts` or `js` is a program: it is run, in
 *   process, as an ES module importing the package through its public exports (`modeltape/…`
 *   resolves to the built dist/ through package.json `exports`: run `npm run build` first);
 * - `ts no-run` / `js no-run` marks a fragment that is shown, not run (it names things the
 *   reader has, like their agent), with an HTML comment on the line before saying why: its
 *   imports are still checked against the exports;
 * - `json` blocks must parse, `jsonl` blocks must parse line by line;
 * - every `modeltape <command> …` in a `sh` or `yaml` block or an inline code span names a command the
 *   CLI has, and only flags that command's `--help` names (flags after `--` belong to CMD).
 * - the README has a program importing each public entry (every link is followed by
 *   every-docs-link-resolves.test.ts).
 * Each example runs in a fresh temporary working directory, with CI, MODELTAPE_* and the
 * provider keys unset (as on a developer's machine), under a guard that stops and counts any
 * connection to a provider, and fails on any connection that leaves loopback.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
const ENTRIES = Object.keys(PACKAGE.exports)
  .filter((subpath) => subpath !== './package.json')
  .map((subpath) => `modeltape${subpath.slice(1)}`);
const RUNNABLE = new Set(['ts', 'js', 'mjs', 'typescript', 'javascript']);

interface Block {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  language: string;
  flags: string[];
  code: string;
}

function blocksOf(file: string): Block[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^(`{3,}|~{3,})\s*([^`\s]*)\s*(.*)$/.exec(lines[index]!);
    if (!open) continue;
    const fence = open[1]!;
    const start = index;
    const body: string[] = [];
    for (index++; index < lines.length && !(lines[index]!.startsWith(fence) && lines[index]!.slice(fence.length).trim() === ''); index++)
      body.push(lines[index]!);
    if (index >= lines.length) throw new Error(`${file}:${start + 1}: a code block is never closed`);
    blocks.push({ file, line: start + 1, language: open[2]!.toLowerCase(), flags: open[3]!.split(/\s+/).filter(Boolean), code: `${body.join('\n')}\n` });
  }
  return blocks;
}

const BLOCKS = PAGES.flatMap(blocksOf);
const PROGRAMS = BLOCKS.filter((block) => RUNNABLE.has(block.language));
const TO_RUN = PROGRAMS.filter((block) => !block.flags.includes('no-run'));
const where = (block: Block, offset = 0) => `${block.file}:${block.line + offset}`;

/**
 * The value imports of a program: specifier, the names it takes, and the line each is on.
 * Examples write plain `import … from '…'` statements (one or several lines); `import type`
 * and `type` names are left out, as TypeScript erases them.
 */
function importsOf(block: Block): Array<{ specifier: string; names: string[]; line: number }> {
  const found: Array<{ specifier: string; names: string[]; line: number }> = [];
  for (const match of block.code.matchAll(/^import\s+(type\s+)?([^'"]*?)\s*from\s*['"]([^'"]+)['"]|^import\s+['"]([^'"]+)['"]/gm)) {
    const line = block.code.slice(0, match.index).split('\n').length;
    if (match[4] !== undefined) {
      found.push({ specifier: match[4], names: [], line });
      continue;
    }
    const names: string[] = [];
    if (match[1] === undefined) {
      const clause = match[2]!;
      const named = /\{([^}]*)\}/.exec(clause);
      const before = clause
        .replace(/\{[^}]*\}/, '')
        .replace(/\*\s+as\s+\w+/, '')
        .replace(/,/g, ' ')
        .trim();
      if (before !== '') names.push('default');
      for (const part of named?.[1]?.split(',') ?? []) {
        const words = part.trim().split(/\s+/).filter(Boolean);
        if (words.length === 0 || words[0] === 'type') continue;
        names.push(words[0]!);
      }
    }
    found.push({ specifier: match[3]!, names, line });
  }
  return found;
}

// Vitest's module runner turns a missing named import into `undefined` instead of a link error,
// so the names are checked here against the real module: an example never imports what is gone.
async function checkImports(block: Block): Promise<void> {
  for (const { specifier, names, line } of importsOf(block)) {
    if (specifier.startsWith('modeltape')) {
      expect(ENTRIES, `${where(block, line)}: "${specifier}" is not an entry of package.json exports`).toContain(specifier);
    }
    if (specifier.startsWith('.') || specifier.startsWith('/'))
      throw new Error(`${where(block, line)}: an example imports "${specifier}"; import the package (modeltape/…) or a dependency`);
    const module = (await import(specifier)) as Record<string, unknown>;
    for (const name of names) {
      if (!(name in module)) throw new Error(`${where(block, line)}: "${specifier}" exports no ${name === 'default' ? 'default' : `"${name}"`}`);
    }
  }
}

// In the project (test-output/ is ignored by git), so `modeltape/…` and the dev dependencies resolve.
const SCRATCH = join(ROOT, 'test-output');
mkdirSync(SCRATCH, { recursive: true });
const scripts = mkdtempSync(join(SCRATCH, 'docs-examples-'));
const workDirs = mkdtempSync(join(tmpdir(), 'modeltape-docs-'));
afterAll(() => {
  rmSync(scripts, { recursive: true, force: true });
  rmSync(workDirs, { recursive: true, force: true });
});

const UNSET = ['CI', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY', ...Object.keys(process.env).filter((name) => name.startsWith('MODELTAPE_'))];
let ran = 0;

async function run(block: Block): Promise<void> {
  await checkImports(block);
  const slug = `${block.file.replace(/[^a-z0-9]+/gi, '-')}-${block.line}`;
  const script = join(scripts, `${slug}.${block.language.startsWith('t') ? 'ts' : 'mjs'}`);
  writeFileSync(script, block.code);
  const cwd = mkdtempSync(join(workDirs, `${slug}-`));
  const saved = Object.fromEntries(UNSET.map((name) => [name, process.env[name]]));
  for (const name of UNSET) delete process.env[name];
  const previous = process.cwd();
  const guard = new EscapeGuard(providerHosts(buildUpstreamTable()));
  // An example is a program, not a test: hide this test from modeltape's currentTest(), or
  // tapeForCurrentTest() and assertRenderedSnapshot() would write beside this file.
  const runner = (globalThis as unknown as Record<symbol, { getState(): Record<string, unknown>; setState(state: Record<string, unknown>): void }>)[
    Symbol.for('expect-global')
  ]!;
  // (Only the name: Vitest's testPath is a getter of the worker's file, which a value set here
  // would replace for every file this worker runs after this one.)
  const { currentTestName } = runner.getState();
  runner.setState({ currentTestName: undefined });
  guard.start();
  // Examples use relative paths (tapes/…, journal.sqlite): each gets its own working directory.
  // (process.chdir needs Vitest's default forks pool; worker threads cannot change directory.)
  process.chdir(cwd);
  try {
    await import(pathToFileURL(script).href);
  } catch (error) {
    // Point at the line of the page: the script's line n is the page's fence line + n.
    const at = new RegExp(`${script.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:(\\d+)`).exec(String((error as Error)?.stack ?? ''));
    const line = at ? Number(at[1]) : 0;
    throw new Error(
      `${where(block, line)}: the example ${line ? 'fails here' : `starting at ${where(block)} fails`}: ${(error as Error)?.message ?? String(error)}`,
      { cause: error },
    );
  } finally {
    process.chdir(previous);
    guard.stop();
    runner.setState({ currentTestName });
    for (const [name, value] of Object.entries(saved)) if (value !== undefined) process.env[name] = value;
  }
  expect(guard.escapes(), `${where(block)}: the example tried to reach a provider`).toEqual([]);
  expect(guard.outside(), `${where(block)}: the example left loopback`).toEqual([]);
  ran++;
}

describe('every example in the docs runs', () => {
  test.each(TO_RUN.map((block) => [where(block), block] as const))('%s', async (_name, block) => {
    await run(block);
  });

  test('no-run fragments say why they do not run, and still import only what the package exports', async () => {
    const fragments = PROGRAMS.filter((block) => block.flags.includes('no-run'));
    for (const block of fragments) {
      const before = readFileSync(join(ROOT, block.file), 'utf8').split('\n')[block.line - 2] ?? '';
      expect(before, `${where(block)}: a no-run fragment is preceded by an HTML comment saying why`).toMatch(/^<!--.*-->$/);
      await checkImports(block);
    }
  });

  test('json and jsonl blocks parse', () => {
    let checked = 0;
    for (const block of BLOCKS) {
      if (block.language === 'json') {
        expect(() => JSON.parse(block.code), where(block)).not.toThrow();
        checked++;
      }
      if (block.language === 'jsonl') {
        block.code.split('\n').forEach((text, index) => {
          if (text.trim() !== '') expect(() => JSON.parse(text), where(block, index + 1)).not.toThrow();
        });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(0);
  });

  test('the README has a program for every public entry, and every page it links to exists', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const importedByReadme = new Set(
      PROGRAMS.filter((block) => block.file === 'README.md').flatMap((block) => importsOf(block).map((entry) => entry.specifier)),
    );
    expect(ENTRIES.filter((entry) => !importedByReadme.has(entry))).toEqual([]);
    const links = [...readme.matchAll(/\]\((docs\/[^)#]+)(?:#[^)]*)?\)/g)].map((match) => match[1]!);
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) expect(PAGES, `README links to ${link}`).toContain(link);
  });

  test('ran every example it found, and found some', () => {
    expect(TO_RUN.length).toBeGreaterThanOrEqual(10);
    expect(ran).toBe(TO_RUN.length);
  });
});

// --- the command line in the docs ---------------------------------------------------------

async function helpOf(argv: string[]): Promise<string> {
  const { main } = (await import('../../dist/cli/main.js')) as {
    main: (argv: string[], io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream; env: NodeJS.ProcessEnv }) => Promise<number>;
  };
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk) => (text += chunk));
  expect(await main(argv, { stdout, stderr: new PassThrough(), env: {} })).toBe(0);
  return text;
}

/** Every `modeltape <word> …` the pages show, in sh and yaml blocks and inline code, with its place. */
function commandLines(): Array<{ where: string; words: string[] }> {
  const found: Array<{ where: string; words: string[] }> = [];
  const take = (text: string, place: string) => {
    const match = /(?:^|[\s;&|(])(?:npx\s+)?modeltape\s+([a-z][\w-]*)(.*)$/.exec(text);
    if (!match) return;
    const words = [match[1]!, ...match[2]!.split(/\s+/).filter(Boolean)];
    const dashes = words.indexOf('--');
    found.push({ where: place, words: dashes >= 0 ? words.slice(0, dashes) : words });
  };
  for (const file of PAGES) {
    const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
    let fence: string | undefined;
    let language = '';
    lines.forEach((text, index) => {
      const open = /^(`{3,}|~{3,})\s*(\S*)/.exec(text);
      if (open && fence === undefined) {
        fence = open[1];
        language = open[2]!;
        return;
      }
      if (fence !== undefined && text.startsWith(fence)) {
        fence = undefined;
        return;
      }
      if (fence !== undefined) {
        // A CI workflow's `run:` lines are command lines too.
        if (language === 'sh' || language === 'yaml') take(text.replace(/#.*$/, ''), `${file}:${index + 1}`);
        return;
      }
      for (const span of text.matchAll(/`([^`]+)`/g)) take(span[1]!, `${file}:${index + 1}`);
    });
  }
  return found;
}

test('every modeltape command line in the docs uses a command and flags the CLI has', async () => {
  const commands = [...(await helpOf(['--help'])).matchAll(/^ {2}([a-z]+) {2,}/gm)].map((match) => match[1]!);
  expect(commands.length).toBeGreaterThan(5);
  const flags = new Map<string, Set<string>>();
  for (const command of commands) flags.set(command, new Set([...(await helpOf([command, '--help'])).matchAll(/--[a-z][a-z-]*/g)].map((match) => match[0])));
  const lines = commandLines();
  expect(lines.length).toBeGreaterThan(10);
  const wrong: string[] = [];
  for (const { where: place, words } of lines) {
    const [command, ...rest] = words;
    if (!flags.has(command!)) {
      wrong.push(`${place}: modeltape ${command}: no such command (${commands.join(', ')})`);
      continue;
    }
    for (const word of rest) {
      const flag = /^--[a-z][a-z-]*/.exec(word)?.[0];
      if (flag && !flags.get(command!)!.has(flag)) wrong.push(`${place}: modeltape ${command} has no flag ${flag}`);
    }
  }
  expect(wrong).toEqual([]);
});
