import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { expandGlob, expandTapeArguments } from './tape-globs.js';

const root = mkdtempSync(join(tmpdir(), 'modeltape-globs-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const cwd = join(root, 'project');
for (const file of [
  'tapes/agent.jsonl',
  'tapes/chat.jsonl',
  'tapes/notes.txt',
  'tapes/a/b/deep.jsonl',
  'tapes/.hidden/secret.jsonl',
  'tapes/.dot.jsonl',
  'tapes/node_modules/pkg.jsonl',
  'tapes/tape[1].jsonl',
  'tapes/x1.jsonl',
  'tapes/x2.jsonl',
  'other.jsonl',
  'outside-sibling/s.jsonl',
]) {
  const path = join(file.startsWith('outside-') ? root : cwd, file.replace('outside-', ''));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, '');
}
// A link back up: a cycle that `**` must not loop in.
symlinkSync(join(cwd, 'tapes'), join(cwd, 'tapes/a/loop'));

describe('expandGlob', () => {
  test('** reaches any depth, the folder itself included, and leaves dot folders, node_modules and linked folders out', () => {
    expect(expandGlob('tapes/**/*.jsonl', cwd)).toEqual([
      'tapes/a/b/deep.jsonl',
      'tapes/agent.jsonl',
      'tapes/chat.jsonl',
      'tapes/tape[1].jsonl',
      'tapes/x1.jsonl',
      'tapes/x2.jsonl',
    ]);
    expect(expandGlob('**/deep.jsonl', cwd)).toEqual(['tapes/a/b/deep.jsonl']);
  });

  test('a name starting with a dot, or node_modules, is matched when the pattern names it', () => {
    expect(expandGlob('tapes/.*.jsonl', cwd)).toEqual(['tapes/.dot.jsonl']);
    expect(expandGlob('tapes/.hidden/*.jsonl', cwd)).toEqual(['tapes/.hidden/secret.jsonl']);
    expect(expandGlob('tapes/node_modules/*.jsonl', cwd)).toEqual(['tapes/node_modules/pkg.jsonl']);
  });

  test('reads *, ?, classes, negated classes and braces', () => {
    expect(expandGlob('tapes/*.jsonl', cwd)).toEqual(['tapes/agent.jsonl', 'tapes/chat.jsonl', 'tapes/tape[1].jsonl', 'tapes/x1.jsonl', 'tapes/x2.jsonl']);
    expect(expandGlob('tapes/x?.jsonl', cwd)).toEqual(['tapes/x1.jsonl', 'tapes/x2.jsonl']);
    expect(expandGlob('tapes/x[2-9].jsonl', cwd)).toEqual(['tapes/x2.jsonl']);
    expect(expandGlob('tapes/x[!2].jsonl', cwd)).toEqual(['tapes/x1.jsonl']);
    expect(expandGlob('tapes/{agent,chat}.jsonl', cwd)).toEqual(['tapes/agent.jsonl', 'tapes/chat.jsonl']);
    expect(expandGlob('tapes/*.{jsonl,txt}', cwd)).toContain('tapes/notes.txt');
  });

  test('a file named like a glob is that file; a name that is no glob and no file is nothing', () => {
    expect(expandGlob('tapes/tape[1].jsonl', cwd)).toEqual(['tapes/tape[1].jsonl']);
    expect(expandGlob('tapes/missing.jsonl', cwd)).toEqual([]);
    expect(expandGlob('tapes/*.jsnol', cwd)).toEqual([]);
  });

  test('an absolute pattern gives absolute paths, and one that climbs out of the folder is followed', () => {
    expect(expandGlob(`${cwd}/tapes/x*.jsonl`, '/')).toEqual([`${cwd}/tapes/x1.jsonl`, `${cwd}/tapes/x2.jsonl`]);
    expect(expandGlob('../sibling/*.jsonl', cwd)).toEqual(['../sibling/s.jsonl']);
  });

  test("on Windows a pattern is read as cmd.exe and PowerShell pass it: backslashes separate folders, cmd's single quotes come off", () => {
    expect(expandGlob('tapes\\**\\*.jsonl', cwd, 'win32')).toEqual(expandGlob('tapes/**/*.jsonl', cwd));
    expect(expandGlob("'tapes\\x*.jsonl'", cwd, 'win32')).toEqual(['tapes/x1.jsonl', 'tapes/x2.jsonl']);
    // Elsewhere a backslash escapes: `tapes\*.jsonl` is a file named "*.jsonl", of which there is none.
    expect(expandGlob('tapes\\*.jsonl', cwd, 'linux')).toEqual([]);
  });
});

describe('expandTapeArguments', () => {
  test('lists each file once, in the order of the arguments', () => {
    expect(expandTapeArguments(['tapes/x*.jsonl', 'tapes/x1.jsonl', 'other.jsonl'], cwd, 'rekey', 'nothing was rekeyed')).toEqual([
      'tapes/x1.jsonl',
      'tapes/x2.jsonl',
      'other.jsonl',
    ]);
  });

  test('names every pattern that matches nothing, as a usage error', () => {
    expect(() => expandTapeArguments(['tapes/*.jsnol', 'other.jsonl', 'nope/**/*.jsonl'], cwd, 'report', 'nothing was read')).toThrow(
      `modeltape report: no tape matches "tapes/*.jsnol", "nope/**/*.jsonl" (the other arguments match 1 file; nothing was read). Check the path, or quote a glob: 'tapes/**/*.jsonl'.`,
    );
  });
});
