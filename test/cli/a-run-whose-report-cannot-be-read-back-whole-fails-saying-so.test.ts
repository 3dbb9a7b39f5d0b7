import { writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { runMain } from '../support/cli.js';
import { chatRequestBody, writeChatTape } from '../support/chat-tape.js';
import { tempDir } from '../support/temp-dir.js';

// The command's processes append what their guard stopped to the run's report file (named to them
// in MODELTAPE_REPORT). A line that cannot be read back (a process killed mid-write, a disk full
// mid-line) may have been an escape: the run cannot call itself clean, so it fails, saying so.
describe('a run whose report cannot be read back whole', () => {
  const dir = tempDir();

  test('fails, saying how many report lines could not be read, even though the command passed', async () => {
    writeChatTape(`${dir}/parcels.jsonl`, 1);
    writeFileSync(
      `${dir}/torn-report.mjs`,
      `import { appendFileSync } from 'node:fs';
const response = await fetch(process.env.OPENAI_BASE_URL + '/chat/completions', {
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: 'Bearer fake-test-key' },
  body: ${JSON.stringify(JSON.stringify(chatRequestBody(0)))},
});
if (response.status !== 200) process.exit(1);
await response.text();
// A record cut off mid-write, as a process killed while appending it leaves it.
appendFileSync(process.env.MODELTAPE_REPORT, '{"kind":"escape","escape":{"host":"api.open');
`,
    );
    const result = await runMain(['run', '--tape', `${dir}/parcels.jsonl`, '--', process.execPath, 'torn-report.mjs'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "1 report line from the command's processes could not be read back (a process killed mid-write, or a disk that filled up mid-line): what they stopped or saw is not all known, so the run fails.",
    );
    // The request itself was answered: the failure is the report's alone.
    expect(result.stderr).toContain('offline: guard. 1 request reached the tapes (1 answered).');
    expect(result.stderr).not.toContain('no guarded process reached a provider');
  });
});
