import { describe, expect, test } from 'vitest';
import { runMain } from '../support/cli.js';

describe('the command line', () => {
  test('an unknown flag is matched against every flag of the command, each with its value', async () => {
    const result = await runMain(['run', '--chaos-seed', '7', '--', 'true']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Unknown flag --chaos-seed for "run". Did you mean --chaos SEED?');
    // A plain misspelling still gets the flag itself.
    expect((await runMain(['run', '--tpae', 'x', '--', 'true'])).stderr).toContain('Did you mean --tape?');
  });

  test('an error that names its command is not prefixed twice', async () => {
    const result = await runMain(['report', 'no-such-tape.jsonl']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^modeltape report: no tape matches "no-such-tape\.jsonl"/);
    expect(result.stderr).not.toContain('modeltape: modeltape');
  });

  test('drift --help does not say drift records, nor offer the flags of recording', async () => {
    const help = (await runMain(['drift', '--help'])).stdout;
    expect(help).toContain('--tape FILE');
    expect(help).toContain('the tape to replay; drift never writes to it');
    expect(help).not.toMatch(/record to|--append|--prune|--allow-record-in-ci|--max-response-body|--mode/);
  });
});
