import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { USAGE } from '../../dist/cli/main.js';
import { runCli, runMain } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

const modeltape = runMain;

const COMMANDS = ['proxy', 'run', 'fake', 'drift', 'inspect', 'verify', 'rekey', 'mutate', 'report', 'recheck'];

describe('exit status 2: a usage error, said on stderr, with nothing started', () => {
  const dir = tempDir();
  const tape = () => join(dir, 'absent.jsonl');

  test('no command at all prints the usage on stderr', async () => {
    const result = await modeltape([]);
    expect(result).toEqual({ code: 2, stdout: '', stderr: `${USAGE}\n` });
    // While asking for it is not an error.
    expect(await modeltape(['--help'])).toEqual({ code: 0, stdout: `${USAGE}\n`, stderr: '' });
  });

  test('an unknown command, or a flag where the command goes', async () => {
    for (const args of [['recrod'], ['--tape', 'x.jsonl']]) {
      const result = await modeltape(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`modeltape: Unknown command ${JSON.stringify(args[0])}.`);
    }
  });

  test('in every command: an unknown flag, and a value given to a flag that takes none', async () => {
    const checked: string[] = [];
    for (const command of COMMANDS) {
      for (const args of [
        [command, '--nope'],
        [command, '--help=yes'],
      ]) {
        const result = await modeltape(args);
        expect(result.code, args.join(' ')).toBe(2);
        expect(result.stdout, args.join(' ')).toBe('');
        expect(result.stderr, args.join(' ')).toMatch(/^modeltape: (Unknown flag --nope for "\w+"\.|Flag --help takes no value\.)/);
        checked.push(args.join(' '));
      }
    }
    expect(checked).toHaveLength(2 * COMMANDS.length);
  });

  test('in every command: what it needs is missing, or something is there it does not take', async () => {
    // Only the part of each message that names what is missing: the wording is the command's.
    const cases: Array<[string[], string]> = [
      [['proxy'], '--tape FILE'],
      [['proxy', '--tape'], '--tape'],
      [['run', '--tape', tape()], 'after --'],
      [['run', 'node', 'app.mjs'], 'after --'],
      [['fake', 'extra'], '"extra"'],
      [['fake', '--port', 'eighty'], '"eighty"'],
      [['drift', '--tape', tape()], 'after --'],
      [['inspect'], 'tape file'],
      [['inspect', tape(), '--unused'], 'after --'],
      [['verify'], 'tape file'],
      [['rekey'], 'tape file'],
      [['mutate', '--tape', tape()], 'after --'],
      [['report'], 'tapes to report on'],
      [['recheck'], 'tapes to recheck'],
    ];
    for (const [args, message] of cases) {
      const result = await modeltape(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout, args.join(' ')).toBe('');
      expect(result.stderr, args.join(' ')).toMatch(/^modeltape: /);
      expect(result.stderr, args.join(' ')).toContain(message);
    }
    expect(new Set(cases.map(([args]) => args[0]))).toEqual(new Set(COMMANDS));
  });

  test('a flag value that cannot be: outside its choices, a malformed --upstream or --port, --prune without auto', async () => {
    const cases: Array<[string[], string]> = [
      [['proxy', '--tape', tape(), '--mode', 'recrod'], 'Invalid --mode "recrod": expected one of replay, record, auto, passthrough'],
      [['run', '--repeat', 'forever', '--', 'true'], 'Invalid --repeat "forever": expected one of none, last'],
      [['proxy', '--tape', tape(), '--upstream', 'openai'], 'Invalid --upstream "openai": expected name=url'],
      [['proxy', '--tape', tape(), '--upstream', 'openai=not a url'], 'Invalid URL for upstream "openai"'],
      [['proxy', '--tape', tape(), '--port', '70000'], 'Invalid port 70000: expected an integer from 0 to 65535'],
      [['run', '--tape', tape(), '--prune', '--', 'true'], '--prune drops the exchanges a run did not use, so it needs --mode auto'],
      [['report', tape(), '--max-age', '3m'], '--max-age is "3m": write a number of days or weeks'],
      [['verify', tape(), '--stale', 'fail'], '--stale says what a tape older than --max-age does: give --max-age too'],
      [['run', '--stale', 'sometimes', '--', 'true'], 'Invalid --stale "sometimes": expected one of warn, fail'],
      [['report', tape(), '--max-cost', 'lots'], '--max-cost is "lots": give a number of US dollars'],
      [['report', tape(), '--max-cost', ''], '--max-cost is "": give a number of US dollars'],
      [['report', tape(), '--max-cost', '0x10'], '--max-cost is "0x10": give a number of US dollars'],
      [['recheck', tape(), '--max-cost', 'lots'], '--max-cost is "lots": give a number of US dollars'],
      [['recheck', tape(), '--fail-on', 'sometimes'], 'Invalid --fail-on "sometimes": expected one of regression, changed'],
      [['recheck', tape(), '--concurrency', '0'], '--concurrency is 0: give a number from 1'],
    ];
    for (const [args, message] of cases) {
      const result = await modeltape(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout, args.join(' ')).toBe('');
      expect(result.stderr, args.join(' ')).toContain(message);
    }
  });

  test('the installed bin exits 2 too, with the usage on stderr', async () => {
    const result = await runCli([]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Usage: modeltape <command> [flags]');
  });
});

describe('exit status 1: a failure', () => {
  const dir = tempDir();

  test('a file the command line names (a tape, a script, a config) that is not there or not valid', async () => {
    const broken = join(dir, 'broken.jsonl');
    writeFileSync(broken, 'not json\n');
    const badConfig = join(dir, 'bad.config.json');
    writeFileSync(badConfig, '{ "normalizers": 3 }\n');
    const cases: Array<[string[], string]> = [
      [['verify', join(dir, 'absent.jsonl')], `Tape ${join(dir, 'absent.jsonl')} does not exist.`],
      [['inspect', join(dir, 'absent.jsonl')], `Tape ${join(dir, 'absent.jsonl')} does not exist.`],
      [['inspect', broken], 'Invalid tape: 1 problem.'],
      [['rekey', broken], 'Invalid tape: 1 problem.'],
      [['report', broken], 'Invalid tape: 1 problem.'],
      [['recheck', broken, '--dry-run'], 'Invalid tape: 1 problem.'],
      [['fake', '--script', join(dir, 'absent.script.jsonl')], `Could not read FakeProvider script ${join(dir, 'absent.script.jsonl')}`],
      [['rekey', broken, '--config', badConfig], `Config file ${badConfig}`],
      [['rekey', broken, '--config', join(dir, 'absent.config.json')], `Config file ${join(dir, 'absent.config.json')} does not exist.`],
      [
        ['inspect', broken, '--unused', '--config', join(dir, 'absent.config.json'), '--', 'true'],
        `Config file ${join(dir, 'absent.config.json')} does not exist.`,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await modeltape(args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr, args.join(' ')).toContain(message);
    }
  });

  test('verify finding a problem in a tape', async () => {
    const broken = join(dir, 'broken.jsonl');
    writeFileSync(broken, 'not json\n');
    const result = await modeltape(['verify', broken]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`${broken}: 1 problem in 1 lines`);
  });
});
