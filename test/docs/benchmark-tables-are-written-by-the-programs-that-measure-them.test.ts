import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BENCH = join(ROOT, 'bench');
// The benchmarks page and its parts (benchmarks-peers.md, …): the first lists every program.
const FRONT = 'docs/benchmarks.md';
const PAGES = readdirSync(join(ROOT, 'docs'))
  .filter((name) => /^benchmarks(?:-[a-z0-9-]+)?\.md$/.test(name))
  .sort()
  .map((name) => `docs/${name}`);
const text = (page: string) => readFileSync(join(ROOT, page), 'utf8');

// The results files a page links, as paths under the project.
const linkedBy = (page: string) => [...text(page).matchAll(/\]\(\.\.\/(bench\/results\/[^)]+\.md)\)/g)].map((match) => match[1]!);

describe('docs/benchmarks.md and its parts', () => {
  test('copy no table of numbers: every measured number is in a file a bench program wrote', () => {
    expect(PAGES).toContain(FRONT);
    for (const page of PAGES) {
      const numericRows = text(page)
        .split('\n')
        .filter((line) => line.startsWith('|') && /\d[\d,.]*\s*(?:µs|ms|s|MB|×)?\s*\|/.test(line));
      expect(numericRows, page).toEqual([]);
    }
  });

  test('the first page links a results file for every program that writes one, and each file any page links was written by it', () => {
    const writers = readdirSync(BENCH)
      .filter((name) => name.endsWith('.mjs'))
      .flatMap((name) =>
        [...readFileSync(join(BENCH, name), 'utf8').matchAll(/writeResults\('([a-z0-9-]+)'/g)].map((match) => ({ program: name, results: match[1]! })),
      );
    expect(writers.length).toBeGreaterThanOrEqual(9);
    const listed = linkedBy(FRONT);
    for (const { program, results } of writers) expect(listed, `${program} writes ${results}.md`).toContain(`bench/results/${results}.md`);
    expect(listed.length).toBeGreaterThanOrEqual(writers.length);
    const linked = [...new Set(PAGES.flatMap(linkedBy))];
    for (const file of linked) {
      expect(existsSync(join(ROOT, file)), `${file} is committed`).toBe(true);
      const [title, blank, written] = readFileSync(join(ROOT, file), 'utf8').split('\n');
      expect(title, file).toMatch(/^# \S/);
      expect(blank, file).toBe('');
      // Which command wrote it, when, and on which Node and machine.
      expect(written, file).toMatch(/^Written by `[^`]+` on \d{4}-\d{2}-\d{2}T[\d:]+Z · Node v\d+\.\d+\.\d+ · \w+ \w+ · \d+ × .+ · \d+ GiB$/);
      expect(readFileSync(join(ROOT, file), 'utf8'), file).toMatch(/\n\|.*\d.*\|\n/);
    }
  });
});
