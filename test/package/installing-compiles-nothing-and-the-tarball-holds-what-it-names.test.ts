import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, test } from 'vitest';
import { tempDir } from '../support/temp-dir.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Manifest {
  license: string;
  scripts: Record<string, string>;
  bin: Record<string, string>;
  exports: Record<string, string | { types: string; default: string }>;
  files: string[];
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
}
interface LockedPackage {
  dev?: boolean;
  optional?: boolean;
  peer?: boolean;
  hasInstallScript?: boolean;
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockedPackage> };

describe('npm install modeltape', () => {
  test('installs no package with an install script: nothing compiles, no native module', () => {
    const installed = Object.entries(lock.packages).filter(([path, entry]) => path !== '' && entry.dev !== true);
    expect(installed.length).toBeGreaterThan(4);
    expect(installed.filter(([, entry]) => entry.hasInstallScript === true).map(([path]) => path)).toEqual([]);
    // better-sqlite3 compiles when installed: it is an optional peer, and ours is a dev dependency.
    expect(lock.packages['node_modules/better-sqlite3']).toMatchObject({ dev: true, hasInstallScript: true });
  });

  test('takes better-sqlite3 only when asked: an optional peer, pinned for our own tests at the version the store names', () => {
    expect(manifest.dependencies).not.toHaveProperty('better-sqlite3');
    expect(manifest.peerDependencies['better-sqlite3']).toBe('^12.11.1');
    expect(manifest.peerDependenciesMeta['better-sqlite3']).toEqual({ optional: true });
    expect(manifest.devDependencies['better-sqlite3']).toBe('12.11.1');
  });

  test('takes Vitest and Jest only when asked: optional peers of their own entries, dev dependencies for our tests', () => {
    for (const runner of ['vitest', 'jest']) {
      expect(manifest.dependencies, runner).not.toHaveProperty(runner);
      expect(manifest.peerDependencies[runner], runner).toMatch(/^\^\d+\.0\.0$/);
      expect(manifest.peerDependenciesMeta[runner], runner).toEqual({ optional: true });
      expect(manifest.devDependencies[runner], runner).toMatch(/^\d+\.\d+\.\d+$/);
      expect(lock.packages[`node_modules/${runner}`], runner).toMatchObject({ dev: true });
    }
  });

  test('pins every dependency and dev dependency to one version (an alias, npm:name@version, to one version of its package)', () => {
    const all = { ...manifest.dependencies, ...manifest.devDependencies };
    expect(Object.keys(all).length).toBeGreaterThan(10);
    expect(Object.entries(all).filter(([, version]) => !/^(npm:(@[a-z0-9-]+\/)?[a-z0-9.-]+@)?\d+\.\d+\.\d+$/.test(version))).toEqual([]);
    // A second major of a client lives under an alias (Vercel ai 5 beside ai 6): it is only a dev dependency.
    expect(Object.values(manifest.dependencies ?? {}).filter((version) => String(version).startsWith('npm:'))).toEqual([]);
  });
});

// The lifecycle scripts npm runs when a package is installed (prepare too, for a git or local install).
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare'];

describe('the published tarball', () => {
  const dir = tempDir({ scope: 'file' });
  let paths: string[] = [];
  let packed: Manifest;
  beforeAll(async () => {
    // --ignore-scripts: pack the current build (the suite runs after npm run build) without building again.
    const { stdout } = await promisify(execFile)('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: ROOT });
    const [pack] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    paths = pack!.files.map((file) => file.path);
    const { stdout: text } = await promisify(execFile)('tar', ['-xzOf', join(dir, pack!.filename), 'package/package.json'], { maxBuffer: 1 << 20 });
    packed = JSON.parse(text) as Manifest;
  });

  test('runs no script where it is installed, and is built afresh whenever it is packed', () => {
    expect(Object.keys(packed.scripts).length).toBeGreaterThan(5);
    expect(Object.keys(packed.scripts).filter((name) => INSTALL_SCRIPTS.includes(name))).toEqual([]);
    // npm pack and npm publish run prepack (and never on install): the tarball holds a fresh build.
    expect(packed.scripts.prepack).toBe('npm run build');
    expect(packed.scripts.build).toMatch(/^tsc -p tsconfig\.build\.json/);
    expect(packed.exports).toEqual(manifest.exports);
  });

  test('holds the built JavaScript and its types, the README and the docs it links to, the LICENSE and the manifest; no source maps', () => {
    expect(paths.filter((path) => !path.startsWith('dist/') && !path.startsWith('docs/')).sort()).toEqual(['LICENSE', 'README.md', 'package.json']);
    // The README's links point into docs/: every page it links to ships with it.
    const linked = [...readFileSync(join(ROOT, 'README.md'), 'utf8').matchAll(/\]\((docs\/[a-z-]+\.md)/g)].map((match) => match[1]!);
    expect(linked.length).toBeGreaterThan(5);
    for (const page of linked) expect(paths, page).toContain(page);
    expect(paths.filter((path) => path.startsWith('docs/') && !path.endsWith('.md'))).toEqual([]);
    expect(paths.filter((path) => path.startsWith('dist/') && !/\.(js|d\.ts)$/.test(path))).toEqual([]);
    const scripts = paths.filter((path) => path.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(50);
    // Maps would point at .ts files that are not shipped; the JavaScript is tsc's, readable as it is.
    expect(scripts.filter((path) => readFileSync(join(ROOT, path), 'utf8').includes('sourceMappingURL'))).toEqual([]);
    const targets = [
      ...Object.values(manifest.bin),
      ...Object.values(manifest.exports).flatMap((target) => (typeof target === 'string' ? [target] : [target.types, target.default])),
    ];
    expect(targets.length).toBeGreaterThan(10);
    expect(targets.map((target) => target.replace(/^\.\//, '')).filter((target) => !paths.includes(target))).toEqual([]);
  });

  test('carries the MIT license the manifest names', () => {
    const license = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    expect(manifest.license).toBe('MIT');
    expect(license.split('\n').slice(0, 3)).toEqual(['MIT License', '', 'Copyright (c) 2026 modeltape contributors']);
    expect(license).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
  });
});
