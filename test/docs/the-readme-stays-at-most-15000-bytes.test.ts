import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

/**
 * A design rule: the README is the front door (what, why, quick start, modes, one example per
 * entry) and stays at most 15,000 bytes; detail goes to a page of docs/ and the README links it.
 * Bytes, not characters: what a reader downloads and a registry shows. Reads a file only: no build needed.
 */
const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const LIMIT = 15_000;

test('the README is at most 15,000 bytes', () => {
  const bytes = readFileSync(README).byteLength;
  expect(bytes, 'README.md is empty or missing: nothing was measured').toBeGreaterThan(0);
  expect(
    bytes,
    `README.md is ${bytes.toLocaleString('en-US')} bytes, over the ${LIMIT.toLocaleString('en-US')} a design rule allows (the README is the front door: what, why, quick start, modes, one example per entry). Move the detail to its page in docs/ and link it.`,
  ).toBeLessThanOrEqual(LIMIT);
});
