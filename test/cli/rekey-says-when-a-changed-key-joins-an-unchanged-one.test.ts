import { writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { loadTape } from 'modeltape/recordings';
import { recordTape } from '../support/record-tape.js';
import { runMain } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

describe('modeltape rekey and colliding keys', () => {
  const dir = tempDir();

  test('reports that requests now share a key when a changed key lands on one that did not change', async () => {
    const tape = `${dir}/cities.jsonl`;
    const ask = (content: string) => JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content }] });
    await recordTape(tape, async ({ openai }) => {
      for (const content of ['Ship to <city>', 'Ship to Paris']) {
        await (
          await fetch(`${openai}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: ask(content) })
        ).arrayBuffer();
      }
    });
    const config = `${dir}/cities.config.json`;
    writeFileSync(config, JSON.stringify({ normalizers: [{ pattern: 'Paris|Lyon', placeholder: '<city>' }] }));
    const result = await runMain(['rekey', tape, '--config', config]);
    expect(result.stdout).toContain('1 of 2 keys changed');
    const keys = loadTape(tape).exchanges.map(({ exchange }) => `${exchange.key}#${exchange.ordinal}`);
    expect(new Set(keys.map((key) => key.split('#')[0])).size).toBe(1); // they do share a key now
    // Today: no warning, because only the changed keys are compared with each other.
    expect(result.stdout).toContain('some requests now share a key');
  });
});
