import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runMain } from '../support/cli.js';
import { chatCompletion, lastUserMessage, recordRequests } from '../support/recheck-tapes.js';
import { startStandInUpstream, type StandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

const PROMPTS = ['one', 'two', 'three', 'four'];
const chat = (content: string) => ({ upstream: 'openai', path: '/v1/chat/completions', body: { model: 'gpt-4o', messages: [{ role: 'user', content }] } });

describe('modeltape recheck against an upstream that answers 429 and 503 with retry-after', () => {
  const dir = tempDir();
  const closers: StandInUpstream[] = [];
  afterEach(async () => {
    for (const standIn of closers.splice(0)) await standIn.close();
  });

  test('waits as each answer asks, then checks every exchange; one that never gets through is listed as not checked', async () => {
    const tape = join(dir, 'rate.jsonl');
    const recorder = await startStandInUpstream((request) => ({ body: chatCompletion(`answer ${lastUserMessage(request.body)}`) }));
    closers.push(recorder);
    await recordRequests(tape, { openai: recorder.url }, PROMPTS.map(chat));

    const seen = new Map<string, number>();
    const busy = await startStandInUpstream((request) => {
      const prompt = lastUserMessage(request.body);
      const times = (seen.get(prompt) ?? 0) + 1;
      seen.set(prompt, times);
      const limited = (headers: Record<string, string>, status = 429) => ({
        status,
        headers,
        body: JSON.stringify({ error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } }),
      });
      if (prompt === 'one' && times <= 2) return limited({ 'retry-after-ms': '100' });
      if (prompt === 'two' && times === 1) return limited({ 'retry-after': '1' });
      if (prompt === 'three' && times === 1) return limited({ 'retry-after-ms': '50' }, 503);
      if (prompt === 'four') return limited({ 'retry-after-ms': '10' });
      return { body: chatCompletion(`answer ${prompt}`) };
    });
    closers.push(busy);

    const started = Date.now();
    const result = await runMain(['recheck', 'rate.jsonl', '--upstream', `openai=${busy.url}`, '--concurrency', '2', '--json', 'rate.json'], { cwd: dir });
    const elapsed = Date.now() - started;
    expect(result.stderr).not.toContain('unexpected');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('modeltape recheck: 3 checked: 3 identical, 0 equivalent, 0 changed, 0 regression; 1 not checked.');
    expect(result.stdout).toContain('rate.jsonl:5  the upstream still answered 429 after 5 tries; run again later or with a lower --concurrency');
    // one: 3 tries, two: 2, three: 2, four: 5 (given up).
    expect(Object.fromEntries(seen)).toEqual({ one: 3, two: 2, three: 2, four: 5 });
    expect(busy.received).toHaveLength(12);
    // retry-after: 1 was honoured (a second), not retried at once.
    expect(elapsed).toBeGreaterThanOrEqual(1000);
    const report = JSON.parse(readFileSync(join(dir, 'rate.json'), 'utf8')) as { checked: Array<{ line: number; tries: number }> };
    expect(report.checked.map((entry) => [entry.line, entry.tries])).toEqual([
      [2, 3],
      [3, 2],
      [4, 2],
    ]);
  }, 60_000);
});
