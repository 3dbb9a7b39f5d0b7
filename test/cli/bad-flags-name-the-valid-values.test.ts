import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { runMain } from '../support/cli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('the modeltape command line', () => {
  test('--help lists the commands and exits 0', async () => {
    const result = await runMain(['--help']);
    expect(result.code).toBe(0);
    for (const command of ['proxy', 'run', 'inspect', 'verify']) expect(result.stdout).toContain(`  ${command} `);
  });

  test('npx modeltape --help works in the installed project: the bin is built by install', async () => {
    const { stdout } = await promisify(execFile)('npx', ['--no-install', 'modeltape', '--help'], { cwd: ROOT });
    expect(stdout).toContain('Usage: modeltape <command> [flags]');
  });

  test('each command has --help with its flags', async () => {
    const result = await runMain(['run', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--mode MODE');
    expect(result.stdout).toContain('(replay|record|auto|passthrough)');
  });

  test('an invalid mode lists the valid modes and exits 2', async () => {
    const result = await runMain(['proxy', '--tape', 't.jsonl', '--mode', 'recrod']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Invalid --mode "recrod": expected one of replay, record, auto, passthrough');
  });

  test('an unknown flag suggests the nearest and lists the valid ones', async () => {
    const result = await runMain(['run', '--tpae', 'x.jsonl', '--', 'true']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Unknown flag --tpae for "run". Did you mean --tape?');
    expect(result.stderr).toContain('Valid flags: --tape, --mode');
  });

  test('an unknown command suggests the nearest', async () => {
    const result = await runMain(['inspekt', 'x.jsonl']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Unknown command "inspekt". Did you mean "inspect"?');
  });

  test('invalid --repeat and --pace values list theirs', async () => {
    expect((await runMain(['proxy', '--tape', 't.jsonl', '--repeat', 'forever'])).stderr).toContain('Invalid --repeat "forever": expected one of none, last');
    expect((await runMain(['proxy', '--tape', 't.jsonl', '--pace', 'slow'])).stderr).toContain('Invalid --pace "slow": expected one of instant, recorded');
  });

  test('an invalid --chaos-rate is echoed as it was given', async () => {
    for (const given of ['NaN', 'abc', '', '1/4', '2']) {
      const result = await runMain(['run', '--tape', 't.jsonl', '--chaos', '1', '--chaos-rate', given, '--', 'true']);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`Invalid chaos rate ${JSON.stringify(given)}: the share of exchanges to fault, above 0 and at most 1`);
    }
  });

  test('an --upstream without a URL says what it expects', async () => {
    const result = await runMain(['proxy', '--tape', 't.jsonl', '--upstream', 'openai']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Invalid --upstream "openai": expected name=url');
  });
});
