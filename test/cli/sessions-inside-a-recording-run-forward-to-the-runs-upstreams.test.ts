import { writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { loadTape } from 'modeltape/recordings';
import { runMain } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

const dir = tempDir({ inProject: true });

// A per-test tape under `modeltape run --mode record --upstream openai=URL` records from URL, as the
// run's own proxy does: before, the session forwarded to api.openai.com, which the run never named.
test('a tape session opened inside a recording run forwards to the upstreams the run was given', async () => {
  const fake = new FakeProvider().willSay('From the stand-in.');
  const upstream = await fake.listen({ port: 0 });
  try {
    const tape = `${dir}/session.jsonl`;
    writeFileSync(
      `${dir}/records.mjs`,
      `import OpenAI from 'openai';
import { openTape } from 'modeltape/replay';
const session = await openTape(${JSON.stringify(tape)}, { config: false });
const answer = await new OpenAI({ apiKey: process.env.OPENAI_API_KEY, fetch: session.fetch, maxRetries: 0 }).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
console.log(answer.choices[0].message.content);
await session.close();
`,
    );
    const result = await runMain(
      ['run', '--tape', `${dir}/run.jsonl`, '--mode', 'record', '--upstream', `openai=${upstream.url}`, '--', process.execPath, `${dir}/records.mjs`],
      { env: { OPENAI_API_KEY: 'sk-fake-test-key-for-a-stand-in' } },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('From the stand-in.');
    expect(fake.calls()).toHaveLength(1);
    expect(loadTape(tape).exchanges.map(({ exchange }) => exchange.source)).toEqual(['fake']);
  } finally {
    await upstream.close();
  }
});
