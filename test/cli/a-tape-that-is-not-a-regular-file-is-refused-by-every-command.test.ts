import { spawn, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { openTape } from 'modeltape/replay';
import { loadTape, ModeltapeError, NotATapeFileError } from 'modeltape/recordings';
import { CLI } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

// Spawned, with a deadline: a command that opens a FIFO blocks its whole process (a synchronous
// open waits for a writer), so it could not be run in the test's own.
function runWithDeadline(args: string[], cwd: string): Promise<{ code: number | null; stderr: string; timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { PATH: process.env.PATH ?? '' }, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    let timedOut = false;
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const deadline = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, 30_000);
    child.stdin.end();
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(deadline);
      resolve({ code, stderr, timedOut });
    });
  });
}

// Every command that reads a tape, each naming the FIFO its own way.
const COMMANDS: Array<[string, (tape: string) => string[]]> = [
  ['verify', (tape) => ['verify', tape]],
  ['inspect', (tape) => ['inspect', tape]],
  ['report', (tape) => ['report', tape]],
  ['rekey', (tape) => ['rekey', tape]],
  ['run', (tape) => ['run', '--tape', tape, '--', process.execPath, '-e', '']],
  ['run --mode record', (tape) => ['run', '--tape', tape, '--mode', 'record', '--', process.execPath, '-e', '']],
  ['drift', (tape) => ['drift', '--tape', tape, '--', process.execPath, '-e', '']],
  ['proxy', (tape) => ['proxy', '--tape', tape, '--port', '0']],
  ['mcp', (tape) => ['mcp', '--tape', tape, '--', process.execPath, '-e', '']],
  ['mutate', (tape) => ['mutate', '--tape', tape, '--', process.execPath, '-e', '']],
];

describe('a --tape that names something other than a regular file', () => {
  const dir = tempDir({ scope: 'file' });

  test.skipIf(process.platform === 'win32')(
    'a FIFO is refused at once by every command that reads a tape, saying what it is',
    { timeout: 120_000 },
    async () => {
      const fifo = `${dir}/tape.jsonl`;
      execFileSync('mkfifo', [fifo]);
      // Two at a time: a loaded machine takes a while to start each.
      const results: Array<readonly [string, Awaited<ReturnType<typeof runWithDeadline>>]> = [];
      for (let index = 0; index < COMMANDS.length; index += 2) {
        const pair = COMMANDS.slice(index, index + 2).map(async ([name, args]) => [name, await runWithDeadline(args('tape.jsonl'), dir)] as const);
        results.push(...(await Promise.all(pair)));
      }
      expect(results).toHaveLength(COMMANDS.length);
      for (const [name, result] of results) {
        expect(result.timedOut, `${name} hung on the FIFO`).toBe(false);
        expect(result.stderr, name).toMatch(/Tape \S*tape\.jsonl is not a regular file: it is a FIFO \(named pipe\)/);
        expect(result.stderr, name).not.toContain('    at ');
        expect(result.code, name).toBe(1);
      }
      // Nothing was made beside it (no lock, no temporary file).
      expect(execFileSync('ls', ['-A', dir], { encoding: 'utf8' }).trim()).toBe('tape.jsonl');
    },
  );

  test.skipIf(process.platform !== 'linux')('a device and a /proc file are refused, not read as empty tapes', { timeout: 60_000 }, async () => {
    for (const [file, kind] of [
      ['/dev/urandom', 'a character device'],
      ['/proc/self/status', 'a /proc or /sys file'],
    ] as const) {
      if (!existsSync(file)) continue;
      for (const args of [
        ['verify', file],
        ['report', file],
        ['run', '--tape', file, '--', process.execPath, '-e', ''],
      ]) {
        const result = await runWithDeadline(args, dir);
        expect(result.stderr, args.join(' ')).toContain(`Tape ${file} is not a regular file: it is ${kind}`);
        expect(result.stderr, args.join(' ')).not.toContain('empty');
        expect(result.code).toBe(1);
      }
    }
  });

  test('from code, loadTape and openTape throw NotATapeFileError (code tape_not_a_file)', async () => {
    let caught: unknown;
    try {
      loadTape(dir);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(NotATapeFileError);
    expect(ModeltapeError.isInstance(caught) && caught.code).toBe('tape_not_a_file');
    expect((caught as NotATapeFileError).kind).toBe('a folder');
    if (process.platform === 'linux') await expect(openTape('/dev/zero', { config: false })).rejects.toThrow(/is not a regular file: it is a character device/);
  });
});
