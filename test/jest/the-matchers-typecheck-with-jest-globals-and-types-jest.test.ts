import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { tempDir } from '../support/temp-dir.js';
import { binOf, runNode, userProject } from '../support/test-runner-project.js';

// The matchers through `@jest/globals` (expect's own `Matchers`) and through @types/jest's global
// `jest.Matchers`, with no declaration of the user; a matcher that does not exist must stay an
// error, or the types would be `any`.
const WITH_JEST_GLOBALS = `import { expect, test } from '@jest/globals';
import { openTape } from 'modeltape/replay';
import { tapePerTest } from 'modeltape/jest';

const tape = tapePerTest({ dir: 'tapes' });

test('every matcher is typed', async () => {
  expect(tape.session).toHaveReplayedStrictly();
  expect(tape.session).not.toHaveNeverCalledUpstream();
  expect(await openTape('t.jsonl')).toHaveConsumedAllExchanges();
  expect(tape.session).toHaveNoDrift();
  expect(tape.session).toHaveSurvivedChaos();
  // @ts-expect-error a matcher modeltape does not have
  expect(tape.session).toHaveReplayedLoosely();
});
`;

const WITH_TYPES_JEST = `import { tapePerTest } from 'modeltape/jest';

const tape = tapePerTest();

test('every matcher is typed', () => {
  expect(tape.session).toHaveReplayedStrictly();
  expect(tape.session).not.toHaveNeverCalledUpstream();
  expect(tape.session).toHaveConsumedAllExchanges();
  expect(tape.session).toHaveNoDrift();
  expect(tape.session).toHaveSurvivedChaos();
  // @ts-expect-error a matcher modeltape does not have
  expect(tape.session).toHaveReplayedLoosely();
});
`;

// A file that imports nothing from modeltape/jest (the setup file alone).
const UNTYPED = `import { expect, test } from '@jest/globals';
import { openTape } from 'modeltape/replay';

test('the matchers', async () => {
  expect(await openTape('t.jsonl')).toHaveReplayedStrictly();
});
`;

describe('the matchers of modeltape/jest typecheck', () => {
  const dir = tempDir({ inProject: true, scope: 'file' });
  userProject(dir, { 'globals.test.ts': WITH_JEST_GLOBALS, 'types-jest.test.ts': WITH_TYPES_JEST, 'untyped.test.ts': UNTYPED });

  const tsc = async (name: string, file: string, compilerOptions: Record<string, unknown>) => {
    const config = join(dir, `tsconfig.${name}.json`);
    writeFileSync(
      config,
      JSON.stringify({
        compilerOptions: { target: 'ES2023', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, types: [], ...compilerOptions },
        files: [file],
      }),
    );
    const run = await runNode([binOf('typescript', 'tsc'), '-p', config], { cwd: dir, timeoutMs: 120_000 });
    return { code: run.code, output: run.stdout + run.stderr };
  };

  test("with @jest/globals and with @types/jest's globals, with no declaration of the user, every library file checked", { timeout: 180_000 }, async () => {
    const [globals, typesJest] = await Promise.all([tsc('globals', 'globals.test.ts', {}), tsc('types-jest', 'types-jest.test.ts', { types: ['jest'] })]);
    expect(globals).toEqual({ code: 0, output: '' });
    expect(typesJest).toEqual({ code: 0, output: '' });
  });

  test('from the entry: without it the matchers are unknown', { timeout: 180_000 }, async () => {
    const untyped = await tsc('untyped', 'untyped.test.ts', { skipLibCheck: true });
    expect(untyped.code).toBe(2);
    expect(untyped.output).toContain("error TS2339: Property 'toHaveReplayedStrictly' does not exist on type");
  });
});
