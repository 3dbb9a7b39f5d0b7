import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { loadTape } from 'modeltape/recordings';
import { openTape } from 'modeltape/replay';
import { startStandInUpstream } from '../support/stand-in-upstream.js';
import { recordTape } from '../support/record-tape.js';
import { tempDir } from '../support/temp-dir.js';

const ask = (client: OpenAI, content: string) => client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }] });

describe('prune and a second writer', () => {
  const dir = tempDir();

  test('an exchange another session appended while this one ran survives its prune', async () => {
    const tape = `${dir}/shared.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      const client = new OpenAI({ apiKey: 'k', baseURL: openai, maxRetries: 0 });
      await ask(client, 'used');
      await ask(client, 'stale');
    });
    const provider = await startStandInUpstream();
    // Two test files (workers) on one tape: docs/proxy.md says parallel workers can record into one tape.
    const pruning = await openTape(tape, { mode: 'auto', prune: true, allowRecordInCi: true, config: false, upstreams: { openai: provider.url } });
    const other = await openTape(tape, { mode: 'auto', allowRecordInCi: true, config: false, upstreams: { openai: provider.url } });
    await ask(new OpenAI({ apiKey: 'k', fetch: pruning.fetch, maxRetries: 0 }), 'used');
    await ask(new OpenAI({ apiKey: 'k', fetch: other.fetch, maxRetries: 0 }), 'new in the other worker');
    expect((await other.close()).recorded).toBe(1);
    expect((await pruning.close()).pruned).toBeGreaterThan(0);
    await provider.close();
    const prompts = loadTape(tape).exchanges.map(({ exchange }) => JSON.stringify(exchange.request.body));
    // Today: only "used" is left; the other worker's fresh recording was dropped with "stale".
    expect(prompts.some((prompt) => prompt.includes('new in the other worker'))).toBe(true);
    expect(prompts.some((prompt) => prompt.includes('stale'))).toBe(false);
  });
});
