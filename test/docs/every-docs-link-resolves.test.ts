import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

/**
 * Every link of the README and the docs pages reaches a file that exists, and a link with an
 * `#anchor` a heading of that page with that GitHub anchor; every docs page a comment or a message
 * of the source names exists. When a page is split or a heading renamed, this says which link broke.
 * It reads files only: no build needed.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

/** The lines of a page outside its fenced code blocks, each with its 1-based number. */
function proseLines(page: string): Array<{ text: string; line: number }> {
  const lines: Array<{ text: string; line: number }> = [];
  let fence: string | undefined;
  readFileSync(join(ROOT, page), 'utf8')
    .split('\n')
    .forEach((text, index) => {
      const open = /^(`{3,}|~{3,})/.exec(text)?.[1];
      if (fence === undefined && open !== undefined) fence = open;
      else if (fence !== undefined && text.startsWith(fence) && text.slice(fence.length).trim() === '') fence = undefined;
      else if (fence === undefined) lines.push({ text, line: index + 1 });
    });
  return lines;
}

/**
 * The anchors GitHub gives a page's headings: the heading's text (a link's text, not its address),
 * lower case, every character but letters, digits, spaces, `-` and `_` dropped, each space a
 * hyphen; a repeated anchor gets `-1`, `-2`, … as GitHub numbers it.
 */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(file)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)?.[1];
    if (heading === undefined) continue;
    const slug = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

interface Link {
  /** Where the link is: `page:line`. */
  at: string;
  /** The file it names, relative to the project, or the page itself for `#anchor`. */
  file: string;
  anchor: string | undefined;
}

/** The links of a page to files of this project: `[text](target)`, not `http:` or `mailto:`. */
function linksOf(page: string): Link[] {
  const links: Link[] = [];
  for (const { text, line } of proseLines(page)) {
    // Inline code shows text; a `](…)` inside it is not a link.
    for (const [, target] of text.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z][a-z+.-]*:/i.test(target!)) continue;
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      const file = path === '' ? page : relative(ROOT, join(ROOT, dirname(page), decodeURIComponent(path)));
      links.push({ at: `${page}:${line}`, file, anchor });
    }
  }
  return links;
}

describe('every link of the docs resolves', () => {
  const links = PAGES.flatMap(linksOf);
  const anchors = new Map<string, Set<string>>();

  test('every linked file exists, and every #anchor is a heading of its page', () => {
    const broken: string[] = [];
    for (const { at, file, anchor } of links) {
      if (!existsSync(join(ROOT, file))) {
        broken.push(`${at}: no file ${file}`);
        continue;
      }
      if (anchor === undefined) continue;
      if (!file.endsWith('.md') || statSync(join(ROOT, file)).isDirectory()) {
        broken.push(`${at}: #${anchor} on ${file}, which is not a page`);
        continue;
      }
      if (!anchors.has(file)) anchors.set(file, anchorsOf(file));
      if (!anchors.get(file)!.has(anchor)) broken.push(`${at}: ${file} has no heading #${anchor}`);
    }
    expect(broken).toEqual([]);
    // A checker that found no links checked nothing.
    expect(links.length).toBeGreaterThan(150);
    expect(links.filter((link) => link.anchor !== undefined).length).toBeGreaterThan(20);
  });

  test('every docs page is linked from the docs index', () => {
    const indexed = new Set(linksOf('docs/README.md').map((link) => link.file));
    expect(PAGES.filter((page) => page.startsWith('docs/') && page !== 'docs/README.md' && !indexed.has(page))).toEqual([]);
  });

  test('every docs page the source names in a comment or a message exists, with its #anchor', () => {
    const skip = new Set(['node_modules', 'dist', 'test-output', '.git']);
    const sources: string[] = [];
    const walk = (folder: string) => {
      for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true })) {
        const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
        if (entry.isDirectory()) {
          if (!skip.has(entry.name) && path !== 'test/fixtures') walk(path);
        } else if (/\.(ts|mts|mjs|js)$/.test(entry.name)) sources.push(path);
      }
    };
    walk('');
    const broken: string[] = [];
    let named = 0;
    for (const source of sources) {
      readFileSync(join(ROOT, source), 'utf8')
        .split('\n')
        .forEach((text, index) => {
          for (const match of text.matchAll(/(?<![\w/.-])docs\/([\w-]+\.md)(?:#([\w-]+))?/g)) {
            // `ollama/ollama docs/api.md` is another repository's page.
            if (/[\w.-]+\/[\w.-]+ $/.test(text.slice(0, match.index))) continue;
            named++;
            const file = `docs/${match[1]}`;
            if (!PAGES.includes(file)) broken.push(`${source}:${index + 1}: no page ${file}`);
            else if (match[2] !== undefined && !anchorsOf(file).has(match[2])) broken.push(`${source}:${index + 1}: ${file} has no heading #${match[2]}`);
          }
        });
    }
    expect(broken).toEqual([]);
    expect(named).toBeGreaterThan(10);
  });
});
