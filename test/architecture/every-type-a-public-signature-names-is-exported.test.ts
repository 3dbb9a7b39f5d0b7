import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIST = join(ROOT, 'dist');
const ENTRIES = ['recordings', 'replay', 'fake-provider', 'proxy', 'runtime', 'testkit', 'vitest', 'jest', 'node-test'];

/**
 * Uses of a name no entry exports, each waiting for a change outside the `index.ts` files (an
 * `export` on a local declaration, a value export, or an `@internal` mark), as the start of their
 * message: what such a type names in turn is covered with it. The list only shrinks: the test
 * fails when an entry stops occurring, and a new use of the same name is reported.
 */
const AWAITING_A_SOURCE_CHANGE: string[] = [];

/**
 * Walks what consumers see: the built `dist/<part>/index.d.ts` (the integration project runs after
 * `npm run build`), where every inferred type is written out. For each export it follows the names its
 * declaration's types use (parameters, return types, properties, heritage, type alias bodies, type
 * arguments, `typeof` queries), and walks on into every named declaration of the package that no entry
 * exports, so a type reached only through another unexported type is found too.
 */
function walkPublicSignatures() {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2023,
    lib: ['lib.es2023.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  };
  const host = ts.createCompilerHost(options);
  // `@internal` lives in doc comments, which a program may skip parsing.
  host.jsDocParsingMode = ts.JSDocParsingMode.ParseAll;
  const program = ts.createProgram({ rootNames: ENTRIES.map((entry) => join(DIST, entry, 'index.d.ts')), options, host });
  const checker = program.getTypeChecker();
  const distPrefix = DIST.split('\\').join('/') + '/';
  const isOurs = (declaration: ts.Node): boolean => {
    const file = declaration.getSourceFile().fileName;
    return file.startsWith(distPrefix) && !file.includes('/node_modules/');
  };
  const resolve = (symbol: ts.Symbol): ts.Symbol => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);

  // What the entries export, by declaration identity (an alias resolved to the symbol it re-exports).
  const exported = new Map<ts.Symbol, string[]>();
  const exportedNames = new Map<string, string[]>();
  const roots: { entry: string; name: string; symbol: ts.Symbol }[] = [];
  for (const entry of ENTRIES) {
    const file = program.getSourceFile(join(DIST, entry, 'index.d.ts'));
    const module = file && checker.getSymbolAtLocation(file);
    if (!module) throw new Error(`dist/${entry}/index.d.ts is missing: run npm run build first`);
    if (statSync(file.fileName).mtimeMs < statSync(join(ROOT, entry, 'index.ts')).mtimeMs)
      throw new Error(`dist/${entry}/index.d.ts is older than ${entry}/index.ts: run npm run build first`);
    for (const symbol of checker.getExportsOfModule(module)) {
      const target = resolve(symbol);
      // Exported under its own name; `export { X as Y }` would leave X's name unimportable.
      if (symbol.name === target.name) exported.set(target, [...(exported.get(target) ?? []), entry]);
      exportedNames.set(symbol.name, [...(exportedNames.get(symbol.name) ?? []), entry]);
      roots.push({ entry, name: symbol.name, symbol: target });
    }
  }

  // Each declaration of the package (a type, or a value a `typeof` names) that a signature uses.
  const seen = new Set<ts.Symbol>();
  const edges = new Set<string>();
  const walked = new Set<ts.Symbol>();
  const walking = new Set<ts.Symbol>();
  const unresolved: string[] = [];
  /** `entry: Exported.member → UnexportedType (declared in file:line)` */
  const violations: string[] = [];
  let declarationsWalked = 0;

  const where = (symbol: ts.Symbol): { file: string; line: number } => {
    const declaration = symbol.declarations!.find(isOurs)!;
    const file = declaration.getSourceFile();
    const built = relative(ROOT, file.fileName);
    // Point at the source: dist/proxy/engine.d.ts was built from proxy/engine.ts.
    const source = join(ROOT, built.replace(/^dist[\\/]/, '').replace(/\.d\.ts$/, '.ts'));
    if (existsSync(source)) {
      const line = readFileSync(source, 'utf8')
        .split('\n')
        .findIndex((text) => new RegExp(`\\b(?:interface|type|class|enum|function|const|let|var)\\s+${symbol.name.replaceAll('$', '\\$')}\\b`).test(text));
      if (line >= 0) return { file: relative(ROOT, source), line: line + 1 };
    }
    return { file: built, line: file.getLineAndCharacterOfPosition(declaration.getStart()).line + 1 };
  };

  const hidden = (node: ts.Node): boolean => {
    const name = (node as ts.NamedDeclaration).name;
    if (name && ts.isPrivateIdentifier(name)) return true;
    if (ts.getCombinedModifierFlags(node as ts.Declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) return true;
    return ts.getJSDocTags(node).some((tag) => tag.tagName.text === 'internal');
  };

  const reach = (name: ts.Node, via: string): void => {
    const found = checker.getSymbolAtLocation(name);
    if (!found) {
      unresolved.push(`${via}: ${name.getText()} (${relative(ROOT, name.getSourceFile().fileName)})`);
      return;
    }
    const symbol = resolve(found);
    if (symbol.flags & ts.SymbolFlags.TypeParameter || !symbol.declarations?.some(isOurs)) return;
    seen.add(symbol);
    edges.add(`${via} → ${symbol.name}`);
    // An unexported type naming itself (a class's method returning one) was reported where it was reached.
    if (exported.has(symbol) || walking.has(symbol)) return;
    const { file, line } = where(symbol);
    const elsewhere = exportedNames.get(symbol.name);
    violations.push(`${via} → ${symbol.name} (declared in ${file}:${line})` + (elsewhere ? `; ${elsewhere.join(', ')} export another ${symbol.name}` : ''));
    walkSymbol(symbol, `${via} → ${symbol.name}`);
  };

  const label = (node: ts.Node): string => {
    const name = (node as ts.NamedDeclaration).name;
    if (ts.isConstructorDeclaration(node) || ts.isConstructSignatureDeclaration(node)) return '.constructor';
    if (ts.isCallSignatureDeclaration(node)) return '()';
    if (ts.isIndexSignatureDeclaration(node)) return '[]';
    return name ? `.${name.getText()}` : '';
  };

  const visit = (node: ts.Node, via: string): void => {
    if (ts.isTypeReferenceNode(node)) reach(node.typeName, via);
    else if (ts.isExpressionWithTypeArguments(node)) reach(node.expression, via);
    else if (ts.isTypeQueryNode(node)) reach(node.exprName, via);
    else if (ts.isImportTypeNode(node) && node.qualifier) reach(node.qualifier, via);
    if (ts.isTypeElement(node) || ts.isClassElement(node)) {
      if (hidden(node)) return;
      via += label(node);
    }
    if (ts.isParameter(node)) via += `(${node.name.getText()})`;
    if (ts.isHeritageClause(node)) via += node.token === ts.SyntaxKind.ExtendsKeyword ? ' extends' : ' implements';
    if (ts.isFunctionLike(node) && node.type) {
      // The return type gets its own label; the rest (type parameters, parameters) keeps this one.
      ts.forEachChild(node, (child) => (child === node.type ? visit(child, `${via}()`) : visit(child, via)));
      return;
    }
    ts.forEachChild(node, (child) => visit(child, via));
  };

  const walkSymbol = (symbol: ts.Symbol, via: string): void => {
    if (walked.has(symbol)) return;
    walked.add(symbol);
    walking.add(symbol);
    for (const declaration of symbol.declarations ?? []) {
      if (!isOurs(declaration) || hidden(declaration)) continue;
      declarationsWalked++;
      visit(declaration, via);
    }
    walking.delete(symbol);
  };

  for (const { entry, name, symbol } of roots) walkSymbol(symbol, `${entry}: ${name}`);

  const types = [...seen].filter((symbol) => symbol.flags & (ts.SymbolFlags.Type & ~ts.SymbolFlags.TypeParameter));
  return { roots: roots.length, distinctExports: exported.size, declarationsWalked, edges, seen: seen.size, types: types.length, unresolved, violations };
}

test('every type a public signature names is exported by one of the eight entries', () => {
  const started = performance.now();
  const result = walkPublicSignatures();
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `walked ${result.roots} exports (${result.distinctExports} distinct), ${result.declarationsWalked} declarations;` +
      ` saw ${result.seen} named declarations of the package (${result.types} types) in ${seconds.toFixed(1)} s`,
  );
  const awaiting = (message: string): string | undefined =>
    AWAITING_A_SOURCE_CHANGE.find((known) => message.startsWith(known) && /^[ .(]/.test(message.slice(known.length)));
  const messages = result.violations;
  expect(messages.filter((message) => !awaiting(message))).toEqual([]);
  // The list above only shrinks: an entry that no longer occurs is taken off it.
  expect(AWAITING_A_SOURCE_CHANGE.filter((known) => !messages.some((message) => awaiting(message) === known))).toEqual([]);
  // Every name a signature uses resolves: a name the checker cannot find would be skipped unseen.
  expect(result.unresolved).toEqual([]);
  // Each kind of use is followed: a property, a parameter, a return type, heritage, a type alias's `typeof`.
  const kinds = [
    'proxy: RunningProxy.engine → ReplayEngine',
    'proxy: startProxy(options) → ProxyOptions',
    'proxy: startProxy() → RunningProxy',
    'replay: KeyRulesMismatchError extends → ModeltapeError',
    'proxy: ProxyMode → PROXY_MODES',
  ];
  expect(kinds.filter((edge) => !result.edges.has(edge))).toEqual([]);
  // It checked something: the eight entries, their exports, and the types they name.
  expect(result.roots).toBeGreaterThanOrEqual(300);
  expect(result.types).toBeGreaterThanOrEqual(100);
  expect(result.declarationsWalked).toBeGreaterThanOrEqual(result.distinctExports);
});
