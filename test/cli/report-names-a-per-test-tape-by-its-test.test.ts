import { copyFileSync, mkdirSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { tapeForCurrentTest } from 'modeltape/replay';
import { runMain } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

// A tape tapeForCurrentTest() named after its test is listed in the report by that test (its test
// file and the test's name as Vitest gives it), not by the path the name was made safe into; every
// path the report shows is relative to the working directory, and absolute only outside it.

const HERE = fileURLToPath(import.meta.url);
const EXAMPLE_TAPE = fileURLToPath(new URL('../../examples/tapes/weather.jsonl', import.meta.url));

// Where tapeForCurrentTest() puts the tapes of the two tests below, relative to this file's folder.
const written: string[] = [];

describe('checkout', () => {
  test('pays with a card', () => {
    written.push(relative(dirname(HERE), tapeForCurrentTest()));
  });
  test('refunds €10 — twice', () => {
    written.push(relative(dirname(HERE), tapeForCurrentTest()));
  });
});

test('the report lists each per-test tape by its test, with paths relative to the working directory', async () => {
  expect(written).toHaveLength(2);
  // A project whose test file is this one, with the tapes its tests named, and a tape outside it.
  const root = tempDir();
  const project = join(root, 'project');
  mkdirSync(join(project, 'test'), { recursive: true });
  copyFileSync(HERE, join(project, 'test', basename(HERE)));
  for (const tape of written) {
    expect(tape).toMatch(/^__tapes__\//);
    mkdirSync(dirname(join(project, 'test', tape)), { recursive: true });
    copyFileSync(EXAMPLE_TAPE, join(project, 'test', tape));
  }
  mkdirSync(join(root, 'shared'));
  const outside = join(root, 'shared', 'weather.jsonl');
  copyFileSync(EXAMPLE_TAPE, outside);

  const result = await runMain(['report', 'test/**/*.jsonl', outside, '--json'], { cwd: project });
  expect(result.code, result.stderr).toBe(0);
  const report = JSON.parse(result.stdout) as {
    tapes: Array<{ file: string; test?: { file: string; name: string } }>;
    coverage: { behaviours: Array<{ where: string[] }> };
  };
  const testFile = `test/${basename(HERE)}`;
  expect(report.tapes.map((tape) => [tape.file, tape.test])).toEqual([
    [`test/${written[0]}`, { file: testFile, name: 'checkout > pays with a card' }],
    [`test/${written[1]}`, { file: testFile, name: 'checkout > refunds €10 — twice' }],
    [outside, undefined],
  ]);
  // Where a behaviour was seen: a path from here, or the absolute path of a tape outside it.
  const where = report.coverage.behaviours.flatMap((behaviour) => behaviour.where);
  expect(where.length).toBeGreaterThan(0);
  for (const place of where) expect(place.startsWith('test/__tapes__/') || place.startsWith(`${outside}:`), place).toBe(true);

  const text = (await runMain(['report', 'test/**/*.jsonl', outside], { cwd: project })).stdout;
  const rows = text.slice(text.indexOf('Tokens and cost per tape')).split('\n').slice(2, 5);
  expect(rows.map((row) => row.trim().split(/\s{2,}/)[0])).toEqual([
    `${testFile} › checkout › pays with a card`,
    `${testFile} › checkout › refunds €10 — twice`,
    outside,
  ]);
});
