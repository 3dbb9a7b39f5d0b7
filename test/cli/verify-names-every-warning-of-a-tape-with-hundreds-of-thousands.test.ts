import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { runMain } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

const dir = tempDir();

// More warnings than a function call takes arguments: spreading them once crashed verify.
test('verify reports 300,000 blank lines as warnings and keeps both exchanges, without a crash', async () => {
  const example = readFileSync(new URL('../../examples/tapes/weather.jsonl', import.meta.url), 'utf8');
  const newline = example.indexOf('\n') + 1;
  const file = join(dir, 'blank-lines.jsonl');
  writeFileSync(file, example.slice(0, newline) + '\n'.repeat(300_000) + example.slice(newline));
  const result = await runMain(['verify', file]);
  expect(result.stderr).not.toContain('RangeError');
  expect(result.code).toBe(0);
  expect(result.stdout).toContain('ok, 2 exchanges, 300000 warnings');
}, 60_000);
