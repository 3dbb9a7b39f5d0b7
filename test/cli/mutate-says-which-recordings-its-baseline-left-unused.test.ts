import { describe, expect, test } from 'vitest';
import { runMain } from '../support/cli.js';
import { writeChatSuite, writeChatTape } from '../support/chat-tape.js';
import { tempDir } from '../support/temp-dir.js';

// mutate's first run is the suite on the real tapes: what it never read is never mutated, so that
// run says which recordings it left unused, as every replay says it.
describe('modeltape mutate and the recordings its suite leaves unused', () => {
  const dir = tempDir();
  const unusedLine = /^ {2}\d+ of \d+ recordings? unused: /m;

  test('names the recording the baseline left unused, by its tape and line', async () => {
    // Two recordings (lines 2 and 3); the suite asks for the first only.
    writeChatTape(`${dir}/parcels.jsonl`, 2);
    writeChatSuite(`${dir}/suite.mjs`, [0]);
    const result = await runMain(['mutate', '--tape', 'parcels.jsonl', '--max', '1', '--', process.execPath, 'suite.mjs'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    // The path is shown from the test's own directory (in process), so only its end is fixed.
    expect(result.stderr).toMatch(/^ {2}1 of 2 recordings unused: \S*parcels\.jsonl:3 \(modeltape inspect \S*parcels\.jsonl --unused -- CMD lists them\)$/m);
    // Said once, with the baseline's line, not again per mutant.
    expect(result.stderr.match(new RegExp(unusedLine.source, 'gm'))).toHaveLength(1);
  });

  test('says nothing of unused recordings when the suite uses them all', async () => {
    writeChatTape(`${dir}/parcels.jsonl`, 2);
    writeChatSuite(`${dir}/suite.mjs`, [0, 1]);
    const result = await runMain(['mutate', '--tape', 'parcels.jsonl', '--max', '1', '--', process.execPath, 'suite.mjs'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    // The baseline did run and say its line: the absence below is of the unused line alone.
    expect(result.stderr).toContain('modeltape mutate: the suite passed on the real tapes in ');
    expect(result.stderr).not.toMatch(unusedLine);
  });
});
