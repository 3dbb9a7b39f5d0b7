import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PAGE = readFileSync(join(ROOT, 'docs/benchmarks.md'), 'utf8');
const BENCH = join(ROOT, 'bench');

// The results files the page links, as paths under the project.
const linked = [...PAGE.matchAll(/\]\(\.\.\/(bench\/results\/[^)]+\.md)\)/g)].map((match) => match[1]!);

describe('docs/benchmarks.md', () => {
  test('copies no table of numbers: every measured number is in a file a bench program wrote', () => {
    const numericRows = PAGE.split('\n').filter((line) => line.startsWith('|') && /\d[\d,.]*\s*(?:µs|ms|s|MB|×)?\s*\|/.test(line));
    expect(numericRows).toEqual([]);
  });

  test('links a results file for every program that writes one, and each was written by it', () => {
    const writers = readdirSync(BENCH)
      .filter((name) => name.endsWith('.mjs'))
      .flatMap((name) =>
        [...readFileSync(join(BENCH, name), 'utf8').matchAll(/writeResults\('([a-z0-9-]+)'/g)].map((match) => ({ program: name, results: match[1]! })),
      );
    expect(writers.length).toBeGreaterThanOrEqual(9);
    for (const { program, results } of writers) expect(linked, `${program} writes ${results}.md`).toContain(`bench/results/${results}.md`);
    expect(linked.length).toBeGreaterThanOrEqual(writers.length);
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
