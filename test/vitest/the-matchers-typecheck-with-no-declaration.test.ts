import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { tempDir } from '../support/temp-dir.js';
import { binOf, runNode, userProject } from '../support/test-runner-project.js';

// A test file that imports modeltape/vitest and uses every matcher, with no `declare module` of
// its own; a matcher that does not exist must stay an error, or the types would be `any`.
const TYPED = `import { expect, test } from 'vitest';
import { openTape } from 'modeltape/replay';
import { tapePerTest } from 'modeltape/vitest';

const tape = tapePerTest({ dir: 'tapes', mode: 'replay' });

test('every matcher is typed', async () => {
  const base: string = tape.baseUrls.openai;
  expect(base).toBeTypeOf('string');
  expect(tape.session).toHaveReplayedStrictly();
  expect(tape.session).not.toHaveNeverCalledUpstream();
  expect(await openTape('t.jsonl')).toHaveConsumedAllExchanges();
  expect(tape.session).toHaveNoDrift();
  expect(tape.session).toHaveSurvivedChaos();
  // @ts-expect-error a matcher modeltape does not have
  expect(tape.session).toHaveReplayedLoosely();
});
`;

// The same matchers, in a file that imports nothing from modeltape/vitest (the setup file alone).
const UNTYPED = `import { expect, test } from 'vitest';
import { openTape } from 'modeltape/replay';

test('the matchers', async () => {
  expect(await openTape('t.jsonl')).toHaveReplayedStrictly();
});
`;

describe('the matchers of modeltape/vitest typecheck', () => {
  const dir = tempDir({ inProject: true, scope: 'file' });
  userProject(dir, { 'typed.test.ts': TYPED, 'untyped.test.ts': UNTYPED });

  // skipLibCheck as most projects set it; the first test checks every library file too.
  const tsc = async (name: string, file: string, compilerOptions: Record<string, unknown>) => {
    const config = join(dir, `tsconfig.${name}.json`);
    writeFileSync(
      config,
      JSON.stringify({ compilerOptions: { target: 'ES2023', strict: true, noEmit: true, skipLibCheck: true, types: [], ...compilerOptions }, files: [file] }),
    );
    const run = await runNode([binOf('typescript', 'tsc'), '-p', config], { cwd: dir, timeoutMs: 120_000 });
    return { code: run.code, output: run.stdout + run.stderr };
  };

  test('with no declaration of the user, under nodenext and bundler, every library file checked', { timeout: 180_000 }, async () => {
    const [nodenext, bundler] = await Promise.all([
      tsc('nodenext', 'typed.test.ts', { module: 'NodeNext', moduleResolution: 'NodeNext', skipLibCheck: false }),
      tsc('bundler', 'typed.test.ts', { module: 'ESNext', moduleResolution: 'Bundler', skipLibCheck: false }),
    ]);
    expect(nodenext).toEqual({ code: 0, output: '' });
    expect(bundler).toEqual({ code: 0, output: '' });
  });

  test('from the entry: a file that never imports it gets them through "types", and without either they are unknown', { timeout: 180_000 }, async () => {
    const [listed, unlisted] = await Promise.all([
      tsc('types', 'untyped.test.ts', { module: 'NodeNext', moduleResolution: 'NodeNext', types: ['modeltape/vitest'] }),
      tsc('untyped', 'untyped.test.ts', { module: 'NodeNext', moduleResolution: 'NodeNext' }),
    ]);
    expect(listed).toEqual({ code: 0, output: '' });
    expect(unlisted.code).toBe(2);
    expect(unlisted.output).toContain("error TS2339: Property 'toHaveReplayedStrictly' does not exist on type 'Assertion<TapeSession>'.");
  });

  test('under node10, which reads no exports, the import fails and TypeScript names the settings that work', { timeout: 180_000 }, async () => {
    // TypeScript 6 deprecates node10 and refuses it unless told to ignore that.
    const node10 = await tsc('node10', 'typed.test.ts', { module: 'CommonJS', moduleResolution: 'Node10', ignoreDeprecations: '6.0' });
    expect(node10.code).toBe(2);
    expect(node10.output).toContain("typed.test.ts(3,29): error TS2307: Cannot find module 'modeltape/vitest' or its corresponding type declarations.");
    expect(node10.output).toContain("Consider updating to 'node16', 'nodenext', or 'bundler'.");
  });
});
