import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// The drivers load lazily (require, process.getBuiltinModule), which an import scan does not see.
const LOADS = /(?:\bfrom\s+|\bimport\s*\(?\s*|\brequire\s*\(\s*|\bgetBuiltinModule\s*\(\s*)['"](better-sqlite3|node:sqlite)['"]/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' || entry.name === 'test' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [relative(ROOT, path)] : [];
  });
}

describe('the SQLite drivers', () => {
  test('are each loaded by exactly one file of runtime/, and by nothing outside it', () => {
    const files = sourceFiles(ROOT);
    expect(files.length).toBeGreaterThan(50);
    const loaders = new Map<string, string[]>();
    for (const file of files) {
      for (const match of readFileSync(join(ROOT, file), 'utf8').matchAll(LOADS))
        loaders.set(match[1]!, [...new Set([...(loaders.get(match[1]!) ?? []), file])]);
    }
    expect(Object.fromEntries(loaders)).toEqual({ 'better-sqlite3': ['runtime/better-sqlite3-driver.ts'], 'node:sqlite': ['runtime/node-sqlite-driver.ts'] });
  });
});
