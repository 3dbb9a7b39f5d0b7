import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { MODELTAPE_VERSION, WRITTEN_BY } from './version.js';

describe('MODELTAPE_VERSION', () => {
  test('equals the version in package.json', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(MODELTAPE_VERSION).toBe(manifest.version);
    expect(WRITTEN_BY).toBe(`modeltape@${manifest.version}`);
  });
});
