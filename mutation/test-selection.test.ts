import { describe, expect, test } from 'vitest';
import type { ReportedTest } from '../guard/internal.js';
import { lineReaders, narrowCommand } from './test-selection.js';

const vitest = (name: string, file = '/project/test/checkout.test.ts'): ReportedTest => ({ runner: 'vitest', file, name });
const tests = (...list: ReportedTest[]) => new Map(list.map((test) => [`${test.runner}\u0000${test.file}\u0000${test.name ?? ''}`, test]));
const nodeTest = (leaf: string | undefined, file = '/project/test/checkout.test.mjs', suite = 'checkout'): ReportedTest =>
  leaf === undefined ? { runner: 'node:test', file } : { runner: 'node:test', file, name: `${suite} > ${leaf}`, leaf };

describe('which tests read each line', () => {
  test("the tests of every session that read a line, by its tape's real path; the proxy's lines and a session without tests are unknown", () => {
    const readers = lineReaders(
      {
        sessions: [
          { path: '/t/a.jsonl', used: [2, 3], tests: [vitest('one')] },
          { path: '/t/a.jsonl', used: [3], tests: [vitest('two')] },
          { path: '/t/a.jsonl', used: [4], tests: [vitest('three')] },
          { path: '/t/a.jsonl', used: [4] },
          { path: '/t/b.jsonl', used: [5], tests: [vitest('other tape')] },
        ] as never,
      },
      '/t/a.jsonl',
      [6],
    );
    expect([...readers.keys()].sort()).toEqual([2, 3, 4, 6]);
    expect([...readers.get(2)!.values()].map((test) => test.name)).toEqual(['one']);
    expect([...readers.get(3)!.values()].map((test) => test.name)).toEqual(['one', 'two']);
    expect(readers.get(4)).toBeNull();
    expect(readers.get(6)).toBeNull();
  });
});

describe('narrowCommand', () => {
  test('Vitest: the files, relative to where it runs, and -t matching the names as Vitest joins them', () => {
    const narrowed = narrowCommand(
      ['npx', 'vitest', 'run'],
      '/project',
      tests(vitest('checkout > pays (card)'), vitest('refunds', '/project/test/refund.test.ts')),
    );
    expect(narrowed.command).toEqual([
      'npx',
      'vitest',
      'run',
      'test/checkout.test.ts',
      'test/refund.test.ts',
      '-t',
      '(?:^| )(?:checkout pays \\(card\\)|refunds)$',
    ]);
    expect(narrowed.ran).toEqual({ tests: ['test/checkout.test.ts > checkout > pays (card)', 'test/refund.test.ts > refunds'] });
    expect(new RegExp(narrowed.command.at(-1)!).test('test/checkout.test.ts checkout pays (card)')).toBe(true);
    expect(new RegExp(narrowed.command.at(-1)!).test('checkout pays (card) twice')).toBe(false);
  });

  test('Jest: the files as path patterns, and -t matching the whole name', () => {
    const narrowed = narrowCommand(
      ['node', '/project/node_modules/jest/bin/jest.js'],
      '/project',
      tests({ runner: 'jest', file: '/project/a.test.js', name: 'checkout pays' }),
    );
    expect(narrowed.command).toEqual(['node', '/project/node_modules/jest/bin/jest.js', 'a\\.test\\.js', '-t', '^(?:checkout pays)$']);
  });

  test('a reader known by its file alone runs its whole file: no -t', () => {
    const narrowed = narrowCommand(['npx', 'vitest', 'run'], '/project', tests(vitest('one'), { runner: 'vitest', file: '/project/test/setup-read.test.ts' }));
    expect(narrowed.command).toEqual(['npx', 'vitest', 'run', 'test/checkout.test.ts', 'test/setup-read.test.ts']);
    expect(narrowed.ran).toEqual({ tests: ['test/checkout.test.ts > one', 'test/setup-read.test.ts (the whole file)'] });
  });

  test("node --test: its options kept, its files replaced by the readers' files, and a pattern of the tests' own names", () => {
    const narrowed = narrowCommand(
      ['node', '--import', 'tsx', '--test', '--test-reporter', 'dot', '--test-concurrency=1', 'test/', 'test/**/*.test.mjs'],
      '/project',
      tests(nodeTest('pays (card)'), nodeTest('refunds', '/project/test/refund.test.mjs', 'money')),
    );
    expect(narrowed.command).toEqual([
      'node',
      '--import',
      'tsx',
      '--test',
      '--test-reporter',
      'dot',
      '--test-concurrency=1',
      '--test-name-pattern=^(?:pays \\(card\\)|refunds)$',
      'test/checkout.test.mjs',
      'test/refund.test.mjs',
    ]);
    expect(narrowed.ran).toEqual({ tests: ['test/checkout.test.mjs > checkout > pays (card)', 'test/refund.test.mjs > money > refunds'] });
    // A file-level reader: its file, whole.
    expect(narrowCommand(['node', '--test'], '/project', tests(nodeTest(undefined))).command).toEqual(['node', '--test', 'test/checkout.test.mjs']);
  });

  test('the whole command, and why, where the tests are not known or the command cannot be narrowed', () => {
    const why = (command: string[], readers: Parameters<typeof narrowCommand>[2]) => {
      const narrowed = narrowCommand(command, '/project', readers);
      expect(narrowed.command).toBe(command);
      return 'whole' in narrowed.ran ? narrowed.ran.whole : undefined;
    };
    expect(why(['npx', 'vitest', 'run'], null)).toContain('which tests read its exchange is not known');
    expect(why(['npm', 'test'], tests(vitest('one')))).toContain('the command is not vitest, jest or node --test run directly (npm)');
    expect(why(['node', 'test/run.mjs'], tests(nodeTest('one')))).toContain('the command is not vitest, jest or node --test run directly (node)');
    expect(why(['node', '--test', '--frobnicate', 'test/'], tests(nodeTest('one')))).toBe(
      'the command\'s --frobnicate is unknown here, so whether "test/" is its value or a test file cannot be told',
    );
    expect(why(['node', '--test', '--', 'x'], tests(nodeTest('one')))).toContain('arguments after --');
    expect(why(['node', '--test', '--test-name-pattern=pays'], tests(nodeTest('one')))).toBe('the command chooses its tests by name already (-t)');
    expect(why(['npx', 'vitest', 'run'], tests(nodeTest('one')))).toBe('a test that read it ran under node:test, and the command runs vitest');
    expect(why(['npx', 'jest'], tests(vitest('one')))).toBe('a test that read it ran under vitest, and the command runs jest');
    expect(why(['npx', 'vitest', 'run', '-t', 'pays'], tests(vitest('one')))).toBe('the command chooses its tests by name already (-t)');
  });
});
