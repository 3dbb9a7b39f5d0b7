import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runMain } from '../support/cli.js';
import { chatCompletion, lastUserMessage, recordRequests } from '../support/recheck-tapes.js';
import { startStandInUpstream, type StandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// Four recorded turns of gpt-4o, each 1000 tokens in and 1000 out: $0.0125 each at the shipped
// prices ($2.50 and $10 per million), $0.05 for the four.
const PROMPTS = ['one', 'two', 'three', 'four'];
const chat = (content: string) => ({ upstream: 'openai', path: '/v1/chat/completions', body: { model: 'gpt-4o', messages: [{ role: 'user', content }] } });

describe('modeltape recheck within a budget', () => {
  const dir = tempDir({ scope: 'file' });
  let upstream: StandInUpstream;

  beforeAll(async () => {
    upstream = await startStandInUpstream((request) => ({ body: chatCompletion(`answer ${lastUserMessage(request.body)}`, 1000) }));
    await recordRequests(join(dir, 'costly.jsonl'), { openai: upstream.url }, PROMPTS.map(chat));
    upstream.received.length = 0;
  });
  afterAll(async () => {
    await upstream.close();
  });

  test('--max-cost stops before the estimate would pass it, and the report lists what was not checked and why', async () => {
    const result = await runMain(['recheck', 'costly.jsonl', '--upstream', `openai=${upstream.url}`, '--max-cost', '0.03', '--concurrency', '1'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('modeltape recheck: 2 checked: 2 identical, 0 equivalent, 0 changed, 0 regression; 2 not checked.');
    expect(result.stdout).toContain(
      'Not checked (2):\n  costly.jsonl:4  not sent: --max-cost $0.0300 would be passed ($0.0250 spent or in flight, about $0.0125 more for this one)\n  costly.jsonl:5  not sent: --max-cost $0.0300 would be passed',
    );
    expect(result.stdout).toContain('Spent: 2 requests, 2000 input and 2000 output tokens, $0.0250');
    expect(upstream.received).toHaveLength(2);
    upstream.received.length = 0;
  });

  test('--max-requests sends no more than it says', async () => {
    const result = await runMain(['recheck', 'costly.jsonl', '--upstream', `openai=${upstream.url}`, '--max-requests', '1'], { cwd: dir });
    expect(result.stdout).toContain('1 checked');
    expect(result.stdout).toContain('costly.jsonl:5  not sent: --max-requests 1 was reached');
    expect(upstream.received).toHaveLength(1);
    upstream.received.length = 0;
  });

  test('--dry-run lists what it would send and its estimated cost, and sends nothing, even without --live', async () => {
    const result = await runMain(['recheck', 'costly.jsonl', '--dry-run'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('modeltape recheck --dry-run: would send 4 recorded requests; nothing was sent.');
    expect(result.stdout).toContain('  costly.jsonl:2  POST /openai/v1/chat/completions  gpt-4o  ~$0.0125');
    expect(result.stdout).toContain('Estimated cost: $0.0500');
    expect(upstream.received).toHaveLength(0);
  });

  test('a --json FILE that cannot be written is a clear error naming that flag, with nothing left behind', async () => {
    writeFileSync(join(dir, 'a-file'), '');
    const result = await runMain(['recheck', 'costly.jsonl', '--dry-run', '--json', 'a-file/recheck.json'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('could not write a-file/recheck.json');
    expect(result.stderr).toContain('choose another --json FILE');
    expect(result.stderr).not.toContain('unexpected error');
    expect(upstream.received).toHaveLength(0);
  });

  test('--sample N --seed S checks the same N exchanges every time, and a budget of nothing checks nothing and fails', async () => {
    const lines = async (seed: string): Promise<string> => {
      const result = await runMain(['recheck', 'costly.jsonl', '--dry-run', '--sample', '2', '--seed', seed], { cwd: dir });
      expect(result.stdout).toContain('would send 2 recorded requests');
      expect(result.stdout.match(/not in the sample \(--sample 2\)/g)).toHaveLength(2);
      return [...result.stdout.matchAll(/^ {2}costly\.jsonl:(\d+) {2}POST/gm)].map((match) => match[1]).join(',');
    };
    const first = await lines('nightly');
    expect(await lines('nightly')).toBe(first);
    const seeds = await Promise.all(['a', 'b', 'c', 'd', 'e'].map(lines));
    expect(new Set([first, ...seeds]).size).toBeGreaterThan(1);

    const none = await runMain(['recheck', 'costly.jsonl', '--upstream', `openai=${upstream.url}`, '--max-cost', '0'], { cwd: dir });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('modeltape recheck: nothing was checked (see "Not checked" above); a recheck that checked nothing fails.');
    expect(upstream.received).toHaveLength(0);
  });
});
