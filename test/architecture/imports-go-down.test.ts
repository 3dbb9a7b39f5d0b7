import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// The parts and their arrows, as docs/architecture.md states them: the test holds the page true.
const ARCHITECTURE = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
const MAY_IMPORT: Record<string, string[]> = Object.fromEntries(
  ARCHITECTURE.split('<!-- dependency-table')[1]!
    .split('\n')
    .map((line) => /^\| `([a-z-]+)\/` \|[^|]*\| ([^|]*) \|$/.exec(line))
    .filter((match) => match !== null)
    .map((match) => [match[1]!, match[2]!.trim() === '—' ? [] : match[2]!.split(',').map((part) => part.trim().replace(/^`|\/`$/g, ''))]),
);
const PARTS = Object.keys(MAY_IMPORT);

// Each dependency lives behind one file.
const ONLY_FILE_IMPORTING: Record<string, string> = {
  undici: 'proxy/http/upstream.ts',
  msw: 'replay/intercept-providers.ts',
  ajv: 'schema/ajv.ts',
  'fast-json-stable-stringify': 'recordings/canonical-json.ts',
  'better-sqlite3': 'runtime/better-sqlite3-driver.ts',
  pg: 'runtime/pg-driver.ts',
  ulid: 'runtime/ids.ts',
  '@modelcontextprotocol/sdk': 'fake-provider/mcp/mcp-sdk.ts',
  ws: 'proxy/realtime/websocket.ts',
  vitest: 'vitest/index.ts',
  expect: 'jest/index.ts',
  '@eslint-community/regexpp': 'core/regex-syntax.ts',
  tinyglobby: 'cli/tape-globs.ts',
  '@smithy/core': 'recordings/event-stream.ts',
};

// proxy/ is one core and a folder per transport around it.
const PROXY_TRANSPORTS = ['http', 'mcp-stdio', 'realtime', 'run'];

// The entries of an import or export list (`X`, `type X`, `X as Y`), each as [X, Y]: Y is X unless renamed.
function entriesOf(list: string): Array<[string, string]> {
  return list
    .split(',')
    .map((entry) => entry.trim().replace(/^type\s+/, ''))
    .filter((entry) => entry !== '')
    .map((entry) => {
      const [name, alias] = entry.split(/\s+as\s+/);
      return [name!, alias ?? name!];
    });
}

// The file each name proxy/internal.ts exports is defined in, as its export lines (and those of
// index.ts, which it takes whole) name it.
function proxyExportSources(): Map<string, string> {
  const sources = new Map<string, string>();
  for (const barrel of ['proxy/index.ts', 'proxy/internal.ts']) {
    for (const match of readFileSync(join(ROOT, barrel), 'utf8').matchAll(/^export (?:type )?\{([^}]*)\} from '(\.[^']+)';$/gm)) {
      const file = join(barrel, '..', match[2]!).replace(/\.js$/, '.ts');
      for (const [, exported] of entriesOf(match[1]!)) sources.set(exported, file);
    }
  }
  return sources;
}

function sourceFiles(): string[] {
  const files: string[] = [];
  for (const part of PARTS) {
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
  return [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm)].map(
    (match) => match[1] ?? match[2] ?? match[3]!,
  );
}

describe('the architecture', () => {
  const files = sourceFiles();

  test('the page names every top-level folder of source, and each has files', () => {
    expect(PARTS.length).toBe(19);
    const folders = readdirSync(ROOT).filter(
      (name) =>
        !['node_modules', 'dist', 'test', 'bench', 'examples', 'docs'].includes(name) &&
        !name.startsWith('.') &&
        statSync(join(ROOT, name)).isDirectory() &&
        readdirSync(join(ROOT, name)).some((file) => file.endsWith('.ts')),
    );
    expect(folders.sort()).toEqual([...PARTS].sort());
    expect(files.length).toBeGreaterThan(100);
    for (const part of PARTS)
      expect(
        files.some((file) => file.startsWith(`${part}/`)),
        part,
      ).toBe(true);
  });

  test('imports go down the table and cross a part only through its internal.ts', () => {
    const violations: string[] = [];
    for (const file of files) {
      const part = file.split('/')[0]!;
      for (const specifier of importsOf(file)) {
        if (!specifier.startsWith('..')) continue;
        const target = join(file, '..', specifier).split('/');
        const targetPart = target[0]!;
        if (targetPart === part) continue;
        if (!MAY_IMPORT[part]!.includes(targetPart)) violations.push(`${file} imports ${specifier}: ${part}/ may not import ${targetPart}/`);
        else if (target.slice(1).join('/') !== 'internal.js')
          violations.push(`${file} imports ${specifier}: cross into ${targetPart}/ through its internal.js`);
      }
    }
    expect(violations).toEqual([]);
  });

  test('every arrow the page allows is one some file uses, and the arrows never loop', () => {
    const used = new Set<string>();
    for (const file of files) {
      const part = file.split('/')[0]!;
      for (const specifier of importsOf(file)) {
        if (!specifier.startsWith('..')) continue;
        const targetPart = join(file, '..', specifier).split('/')[0]!;
        if (targetPart !== part) used.add(`${part} -> ${targetPart}`);
      }
    }
    const allowed = PARTS.flatMap((part) => MAY_IMPORT[part]!.map((target) => `${part} -> ${target}`));
    expect(allowed.length).toBeGreaterThan(30);
    expect(allowed.filter((arrow) => !used.has(arrow))).toEqual([]);
    // Each part may import only parts listed above it, so the table is an order with no loop.
    for (const [index, part] of PARTS.entries())
      for (const target of MAY_IMPORT[part]!) expect(PARTS.indexOf(target), `${part} -> ${target}`).toBeLessThan(index);
  });

  test('no file imports a file that imports it back, not even for a type', () => {
    const graph = new Map(
      files.map((file) => [
        file,
        importsOf(file)
          .filter((specifier) => specifier.startsWith('.'))
          .map((specifier) => join(file, '..', specifier).replace(/\.js$/, '.ts')),
      ]),
    );
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]): void => {
      state.set(file, 'open');
      for (const next of graph.get(file) ?? []) {
        if (!graph.has(next)) continue;
        if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), next].join(' -> '));
        else if (!state.has(next)) visit(next, [...path, next]);
      }
      state.set(file, 'done');
    };
    for (const file of files) if (!state.has(file)) visit(file, [file]);
    expect(graph.size).toBeGreaterThan(100);
    expect(cycles).toEqual([]);
  });

  test("no part imports another part's public index.ts, which is the package's entry only", () => {
    const publicEntries = PARTS.filter((part) => files.includes(`${part}/index.ts`));
    expect(publicEntries.sort()).toEqual(['fake-provider', 'jest', 'node-test', 'proxy', 'recordings', 'replay', 'runtime', 'testkit', 'vitest']);
    const offenders = files.flatMap((file) =>
      importsOf(file)
        .filter((specifier) => /^\.\.\/[a-z-]+\/index\.js$/.test(specifier))
        .map((specifier) => `${file} imports ${specifier}`),
    );
    expect(offenders).toEqual([]);
  });

  test("guard/ imports only Node's own modules and its own files, so its preload stays light", () => {
    const guardFiles = files.filter((file) => file.startsWith('guard/'));
    expect(guardFiles.length).toBeGreaterThanOrEqual(5);
    const foreign = guardFiles.flatMap((file) =>
      importsOf(file)
        .filter((specifier) => !specifier.startsWith('node:') && !specifier.startsWith('./'))
        .map((specifier) => `${file} imports ${specifier}`),
    );
    expect(foreign).toEqual([]);
  });

  test("proxy/'s root holds its two barrels, and every other file is in core/ or a transport's folder", () => {
    const proxyFiles = files.filter((file) => file.startsWith('proxy/'));
    expect(proxyFiles.filter((file) => file.split('/').length === 2).sort()).toEqual(['proxy/index.ts', 'proxy/internal.ts']);
    const folders = new Set(proxyFiles.filter((file) => file.split('/').length > 2).map((file) => file.split('/')[1]!));
    expect([...folders].sort()).toEqual(['core', ...PROXY_TRANSPORTS].sort());
  });

  test('proxy/core/ imports no transport: no file of http/, mcp-stdio/, realtime/ or run/, nor the barrels that take them in', () => {
    const coreFiles = files.filter((file) => file.startsWith('proxy/core/'));
    expect(coreFiles.length).toBeGreaterThanOrEqual(15);
    const inProxy = coreFiles.flatMap((file) =>
      importsOf(file)
        .filter((specifier) => specifier.startsWith('.'))
        .map((specifier) => ({ file, specifier, target: join(file, '..', specifier) }))
        .filter(({ target }) => target.startsWith('proxy/')),
    );
    expect(inProxy.length).toBeGreaterThan(30);
    expect(inProxy.filter(({ target }) => !target.startsWith('proxy/core/')).map(({ file, specifier }) => `${file} imports ${specifier}`)).toEqual([]);
  });

  test('fake-provider/ takes from proxy/ only what proxy/core/ defines (the decision, never a transport), but for the ws wrapper its Realtime sessions speak through and the HTTP/2 sessions its listen() serves', () => {
    const sources = proxyExportSources();
    // The fake's own Realtime sessions speak WebSocket through the one file that loads ws, as the proxy's do.
    const WEBSOCKET = ['acceptWebSocket', 'MessageSocket'];
    // Its listen() takes cleartext HTTP/2 on its one port (the AWS SDK's default) as the proxy does.
    const HTTP2 = ['Http2Sessions', 'serveHttp2WithPriorKnowledge', 'Http2ProxyRequest', 'Http2ProxyResponse'];
    const taken: string[] = [];
    const offenders: string[] = [];
    let statements = 0;
    const fakeFiles = files.filter((file) => file.startsWith('fake-provider/'));
    for (const file of fakeFiles) {
      for (const match of readFileSync(join(ROOT, file), 'utf8').matchAll(/^(?:import|export)\s+(?:type\s+)?([^'"]*?)\s*from\s+'([^']+)'/gm)) {
        if (join(file, '..', match[2]!) !== 'proxy/internal.js') continue;
        statements++;
        const list = /^\{([^}]*)\}$/.exec(match[1]!);
        if (list === null) {
          offenders.push(`${file}: ${match[0]} (name what it takes)`);
          continue;
        }
        for (const [name] of entriesOf(list[1]!)) {
          const source = sources.get(name);
          taken.push(`${file}: ${name} (${source})`);
          const allowed =
            source?.startsWith('proxy/core/') === true ||
            (WEBSOCKET.includes(name) && source === 'proxy/realtime/websocket.ts' && file !== 'fake-provider/tape-fake.ts') ||
            (HTTP2.includes(name) && source === 'proxy/http/http2-sessions.ts' && file === 'fake-provider/http-listener.ts');
          if (!allowed) offenders.push(`${file} imports ${name}, defined in ${source ?? 'no file proxy/internal.ts names'}`);
        }
      }
    }
    // Every way into proxy/ was read (no dynamic import, no import this test cannot parse).
    expect(statements).toBe(fakeFiles.flatMap((file) => importsOf(file).filter((specifier) => join(file, '..', specifier) === 'proxy/internal.js')).length);
    expect(taken.filter((line) => line.startsWith('fake-provider/tape-fake.ts: ')).length).toBeGreaterThanOrEqual(5);
    expect(offenders).toEqual([]);
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
    expect([...new Set(importers.get('undici'))]).toEqual(['proxy/http/upstream.ts']);
  });

  test('the package exports each public part from the folder of its name, and nothing else', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown>; version: string };
    const subpaths = Object.keys(manifest.exports).filter((subpath) => subpath !== './package.json');
    expect(subpaths.sort()).toEqual(['./fake-provider', './jest', './node-test', './proxy', './recordings', './replay', './runtime', './testkit', './vitest']);
    for (const subpath of subpaths)
      expect(manifest.exports[subpath], subpath).toEqual({ types: `./dist/${subpath.slice(2)}/index.d.ts`, default: `./dist/${subpath.slice(2)}/index.js` });
  });

  test('a public entry lists its exports by name, and an internal barrel adds to it only by name', () => {
    const barrels = files.filter((file) => /\/(index|internal)\.ts$/.test(file));
    expect(barrels.length).toBeGreaterThanOrEqual(PARTS.length);
    // The one export * allowed: an internal barrel taking its part's public entry whole, so a
    // public name is listed once.
    const wildcards = barrels.flatMap((file) => [...readFileSync(join(ROOT, file), 'utf8').matchAll(/^export \*.*$/gm)].map((match) => `${file}: ${match[0]}`));
    expect(wildcards.filter((line) => !/^[a-z-]+\/internal\.ts: export \* from '\.\/index\.js';$/.test(line))).toEqual([]);
    expect(wildcards.length).toBe(5);
  });

  test('the version written into tapes is the package version', async () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const { MODELTAPE_VERSION } = await import('modeltape/recordings');
    expect(MODELTAPE_VERSION).toBe(manifest.version);
  });
});
