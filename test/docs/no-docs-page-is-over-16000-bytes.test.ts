import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

/**
 * The design rule: a docs page over about 15 KB is split where it serves the reader, its first page
 * linking the others (docs/README.md says so). The limit leaves room over 15 KB for a page to grow a
 * little before it must be split; a page past it is named with its size.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LIMIT = 16_000;

test('no docs page is over 16,000 bytes', () => {
  const pages = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => ({ page: `docs/${name}`, bytes: statSync(join(ROOT, 'docs', name)).size }));
  const over = pages
    .filter(({ bytes }) => bytes > LIMIT)
    .map(
      ({ page, bytes }) =>
        `${page} is ${bytes.toLocaleString('en-US')} bytes, over the limit of ${LIMIT.toLocaleString('en-US')}: a docs page over about 15 KB is split where it serves the reader, its first page linking the others (docs/README.md)`,
    );
  expect(over).toEqual([]);
  // A check that read no pages checked nothing.
  expect(pages.length).toBeGreaterThan(30);
});
