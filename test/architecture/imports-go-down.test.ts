import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// An import goes down this list, never up (DESIGN.md, STYLE.md).
const MAY_IMPORT: Record<string, string[]> = {
  // The floor: the replay guard and its preload, Node's own modules only (see below).
  guard: [],
  schema: [],
  recordings: ['schema'],
  replay: ['recordings', 'schema'],
  'fake-provider': ['replay', 'recordings', 'schema'],
  proxy: ['guard', 'replay', 'recordings', 'schema'],
  // The test-facing replay API: it starts proxies, so it sits above them.
  session: ['guard', 'proxy', 'fake-provider', 'replay', 'recordings', 'schema'],
  runtime: ['fake-provider', 'replay', 'recordings', 'schema'],
  testkit: ['runtime', 'fake-provider', 'replay', 'recordings', 'schema'],
  cli: ['guard', 'session', 'proxy', 'runtime', 'testkit', 'fake-provider', 'replay', 'recordings', 'schema'],
};

// Each dependency lives behind one file.
const ONLY_FILE_IMPORTING: Record<string, string> = {
  undici: 'proxy/upstream.ts',
  msw: 'session/intercept-providers.ts',
  ajv: 'schema/ajv.ts',
  'fast-json-stable-stringify': 'recordings/canonical-json.ts',
  'better-sqlite3': 'runtime/better-sqlite3-driver.ts',
  ulid: 'runtime/ids.ts',
};

function sourceFiles(): string[] {
  const files: string[] = [];
  for (const part of Object.keys(MAY_IMPORT)) {
    const walk = (dir: string): void => {
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        return;
      }
      for (const name of names) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) files.push(relative(ROOT, path));
      }
    };
    walk(join(ROOT, part));
  }
  return files;
}

function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm)].map((match) => match[1] ?? match[2] ?? match[3]!);
}

describe('the architecture', () => {
  const files = sourceFiles();

  test('has source files in every part it checks', () => {
    expect(files.length).toBeGreaterThan(25);
    for (const part of ['guard', 'schema', 'recordings', 'replay', 'fake-provider', 'proxy', 'session', 'runtime', 'testkit', 'cli']) expect(files.some((file) => file.startsWith(`${part}/`)), part).toBe(true);
  });

  test('imports go down the layers and cross a part only through its index.ts', () => {
    const violations: string[] = [];
    for (const file of files) {
      const part = file.split('/')[0]!;
      for (const specifier of importsOf(file)) {
        if (!specifier.startsWith('..')) continue;
        const target = join(file, '..', specifier).split('/');
        const targetPart = target[0]!;
        if (targetPart === part) continue;
        if (!MAY_IMPORT[part]!.includes(targetPart)) violations.push(`${file} imports ${specifier}: ${part}/ may not import ${targetPart}/`);
        else if (target.slice(1).join('/') !== 'index.js') violations.push(`${file} imports ${specifier}: cross into ${targetPart}/ through its index.js`);
      }
    }
    expect(violations).toEqual([]);
  });

  test('guard/ imports only Node\'s own modules and its own files, so its preload stays light', () => {
    const guardFiles = files.filter((file) => file.startsWith('guard/'));
    expect(guardFiles.length).toBeGreaterThanOrEqual(5);
    const foreign = guardFiles.flatMap((file) => importsOf(file).filter((specifier) => !specifier.startsWith('node:') && !specifier.startsWith('./')).map((specifier) => `${file} imports ${specifier}`));
    expect(foreign).toEqual([]);
  });

  test('each third-party dependency is imported by exactly one file', () => {
    const importers = new Map<string, string[]>();
    for (const file of files) {
      for (const specifier of importsOf(file)) {
        const name = Object.keys(ONLY_FILE_IMPORTING).find((dependency) => specifier === dependency || specifier.startsWith(`${dependency}/`));
        if (name) importers.set(name, [...(importers.get(name) ?? []), file]);
      }
    }
    for (const [dependency, users] of importers) expect([...new Set(users)], dependency).toEqual([ONLY_FILE_IMPORTING[dependency]]);
    expect([...new Set(importers.get('undici'))]).toEqual(['proxy/upstream.ts']);
  });

  test('the package exports one subpath per part, each with an index', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown>; version: string };
    for (const part of ['recordings', 'fake-provider', 'proxy']) expect(manifest.exports[`./${part}`], part).toMatchObject({ default: `./dist/${part}/index.js`, types: `./dist/${part}/index.d.ts` });
    // modeltape/replay is the test-facing session API, which carries the replay engine too.
    expect(manifest.exports['./replay']).toMatchObject({ default: './dist/session/index.js', types: './dist/session/index.d.ts' });
  });

  test('the version written into tapes is the package version', async () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const { MODELTAPE_VERSION } = await import('modeltape/recordings');
    expect(MODELTAPE_VERSION).toBe(manifest.version);
  });
});
