import { writeFileSync } from 'node:fs';
import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { loadTape } from 'modeltape/recordings';
import { recordTape } from '../support/record-tape.js';
import { runMain } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

describe('run --mode auto --prune', () => {
  const dir = tempDir({ inProject: true });

  test('does not drop recordings a failed run never reached', async () => {
    const tape = `${dir}/two-steps.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      const client = new OpenAI({ apiKey: 'k', baseURL: openai, maxRetries: 0 });
      await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'step one' }] });
      await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'step two' }] });
    });
    // The suite crashes (a bug, a flaky assertion, a Ctrl-C) after its first request.
    const script = `${dir}/crashes.mjs`;
    writeFileSync(
      script,
      "const base = process.env.OPENAI_BASE_URL;\nawait (await fetch(`${base}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer k' }, body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'step one' }] }) })).arrayBuffer();\nthrow new Error('test failed');\n",
    );
    const result = await runMain(['run', '--tape', tape, '--mode', 'auto', '--prune', '--', process.execPath, script], { env: { OPENAI_API_KEY: 'fake-key' } });
    expect(result.code).toBe(1);
    // Today: "step two" is gone from the tape, although nothing says it is stale.
    expect(loadTape(tape).exchanges).toHaveLength(2);
  });
});
