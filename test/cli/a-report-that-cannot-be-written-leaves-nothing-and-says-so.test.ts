import { readFileSync, readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../support/cli.js';
import { writeChatSuite, writeChatTape } from '../support/chat-tape.js';
import { mountSmallDisk } from '../support/small-disk.js';
import { tempDir } from '../support/temp-dir.js';

// A real disk that fills up: a 256 KB tmpfs (it needs root and mount; elsewhere the tests say why
// they were skipped).
const disk = mountSmallDisk(256 * 1024);
afterAll(() => {
  if (disk.mounted) disk.unmount();
});

// Fills the disk but for `room` bytes (a tmpfs counts whole 4 KB pages).
function fill(dir: string, room: number): void {
  rmSync(join(dir, 'filler'), { force: true });
  const { bavail, bsize } = statfsSync(dir);
  writeFileSync(join(dir, 'filler'), Buffer.alloc(Math.max(0, bavail * bsize - room)));
}

function expectCleanFailure(result: { code: number | null; stderr: string }, file: string): void {
  expect(result.stderr).toContain(`could not write ${file}: the disk is full (ENOSPC)`);
  expect(result.stderr).not.toContain('unexpected error');
  expect(result.stderr).not.toMatch(/^\s+at /m);
  expect(result.code).toBe(1);
}

describe.skipIf(!disk.mounted)(`a report written to a full disk${disk.mounted ? '' : ` (skipped: ${disk.reason})`}`, () => {
  const dir = tempDir({ scope: 'file' });
  const full = disk.mounted ? disk.dir : '';
  beforeAll(() => {
    writeChatTape(`${dir}/parcels.jsonl`, 40);
    writeChatSuite(`${dir}/suite.mjs`, [3]);
  });

  test('report --html: a clear error naming the file, and the report that was there stays whole', async () => {
    const file = join(full, 'report.html');
    writeFileSync(file, '<p>last week</p>');
    fill(full, 0);
    const result = await runCli(['report', 'parcels.jsonl', '--html', file], { cwd: dir });
    expectCleanFailure(result, file);
    expect(readFileSync(file, 'utf8')).toBe('<p>last week</p>');
    expect(readdirSync(full).sort()).toEqual(['filler', 'report.html']);
  });

  test('drift --html: a clear error naming the file, and no file at all', async () => {
    fill(full, 0);
    const file = join(full, 'drift.html');
    const result = await runCli(['drift', '--tape', 'parcels.jsonl', '--html', file, '--', process.execPath, 'suite.mjs'], { cwd: dir });
    expectCleanFailure(result, file);
    expect(readdirSync(full).sort()).toEqual(['filler', 'report.html']);
  });

  test('mutate --html: a clear error naming the file, and no file at all', async () => {
    fill(full, 0);
    const file = join(full, 'mutants.html');
    const result = await runCli(['mutate', '--tape', 'parcels.jsonl', '--max', '1', '--html', file, '--', process.execPath, 'suite.mjs'], { cwd: dir });
    expectCleanFailure(result, file);
    // The report itself was printed before the page failed.
    expect(result.stdout).toContain('modeltape mutate: 1 mutant');
    expect(readdirSync(full).sort()).toEqual(['filler', 'report.html']);
  });

  test('mutate with a full temporary folder: a clear error naming it, and no copy left there', async () => {
    // Room for a run's own small files, not for a copy of the 40-exchange tape.
    fill(full, 12 * 1024);
    const result = await runCli(['mutate', '--tape', 'parcels.jsonl', '--max', '2', '--', process.execPath, 'suite.mjs'], {
      cwd: dir,
      env: { TMPDIR: full },
    });
    expect(result.stderr).toMatch(
      new RegExp(
        `could not write m\\d's copy of parcels\\.jsonl in the temporary folder ${full.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: the disk is full \\(ENOSPC\\)`,
      ),
    );
    expect(result.stderr).toContain('point TMPDIR to a folder with room');
    expect(result.stderr).not.toContain('unexpected error');
    expect(result.stderr).not.toMatch(/^\s+at /m);
    expect(result.code).toBe(1);
    expect(readdirSync(full).sort()).toEqual(['filler', 'report.html']);
  });
});
