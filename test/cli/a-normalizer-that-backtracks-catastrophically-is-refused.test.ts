import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { createHeader, serializeLine } from 'modeltape/recordings';
import { runMain } from '../support/cli.js';
import { chatExchange } from '../support/exchanges.js';
import { tempDir } from '../support/temp-dir.js';

const dir = tempDir();

test('in a config file: refused at its line and column before any tape is read, with the rewrite', async () => {
  const config = join(dir, 'evil.config.json');
  writeFileSync(config, '{\n  "normalizers": [\n    { "pattern": "(a+)+$", "placeholder": "<a>" }\n  ]\n}\n');
  writeFileSync(join(dir, 'any.jsonl'), '');
  const started = Date.now();
  const result = await runMain(['rekey', join(dir, 'any.jsonl'), '--config', config]);
  expect(Date.now() - started).toBeLessThan(5000);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(`${config}:3:18: ".normalizers[0].pattern": a pattern "(a+)+$" that can backtrack catastrophically`);
  expect(result.stderr).toContain('"(a+)+$" matches what "a+$" does');
});

test('in a tape header: verify names line 1 in a moment instead of running the pattern for 38 s', async () => {
  const file = join(dir, 'evil.jsonl');
  const header = createHeader({ headers: [], normalizers: [{ pattern: '(a+)+$' }] });
  const exchange = chatExchange(`${'a'.repeat(40)}!`);
  writeFileSync(file, serializeLine(header) + serializeLine(exchange));
  const started = Date.now();
  const result = await runMain(['verify', file]);
  expect(Date.now() - started).toBeLessThan(5000);
  expect(result.code).toBe(1);
  expect(result.stdout).toContain(`${file}:1: the header's key rules cannot be used: Normalizer 0 has a pattern "(a+)+$" that can backtrack catastrophically`);
});
