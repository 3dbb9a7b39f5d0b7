import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { loadTape } from 'modeltape/recordings';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

const COMMITTED = fileURLToPath(new URL('../../examples/tapes/weather.jsonl', import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../../examples/weather.mjs', import.meta.url));

describe('the example', () => {
  const dir = tempDir();

  test('its committed tape is exactly what examples/record-example.mjs produces, and says so in a note', async () => {
    const recorder = '../../examples/record-example.mjs';
    const { recordExample } = (await import(recorder)) as { recordExample: (tape: string) => Promise<{ answer: string }> };
    const tape = `${dir}/weather.jsonl`;
    const result = await recordExample(tape);
    expect(result.answer).toBe('It is 14°C with light rain in Paris.');
    expect(readFileSync(tape, 'utf8')).toBe(readFileSync(COMMITTED, 'utf8'));
    const { header, exchanges } = loadTape(COMMITTED);
    expect(header._note).toMatch(/recorded by examples\/record-example\.mjs from a local stand-in upstream/);
    expect(exchanges.map(({ exchange }) => exchange.source)).toEqual(['live', 'live']);
  });

  test('the quick start replays it offline with no key: modeltape run around the openai script', async () => {
    const result = await runCli(['run', '--tape', COMMITTED, '--', process.execPath, EXAMPLE]);
    expect(result.stdout).toContain('answer: It is 14°C with light rain in Paris.');
    expect(result.stdout).toContain('tool call: get_weather({"city":"Paris"})');
    expect(result.stderr).toContain('2 hits, 0 misses, 0 recorded, 0 passthrough, 0 refused, 0 upstream connections');
    expect(result.code).toBe(0);
  });
});
