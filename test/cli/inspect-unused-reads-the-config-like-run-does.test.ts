import { writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { startStandInUpstream } from '../support/stand-in-upstream.js';
import { recordTape } from '../support/record-tape.js';
import { runMain } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

describe('inspect --unused and modeltape.config.json', () => {
  const dir = tempDir({ inProject: true });

  test('an upstream declared in modeltape.config.json is routed, as modeltape run routes it', async () => {
    const vllm = await startStandInUpstream();
    const tape = `${dir}/vllm.jsonl`;
    const body = JSON.stringify({ model: 'qwen', messages: [{ role: 'user', content: 'hi' }] });
    await recordTape(
      tape,
      async ({ url }) => {
        await (await fetch(`${url}/vllm/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).arrayBuffer();
      },
      { proxy: { upstreams: { vllm: vllm.url } } },
    );
    await vllm.close();
    writeFileSync(`${dir}/modeltape.config.json`, JSON.stringify({ upstreams: { vllm: 'http://127.0.0.1:8000' } }));
    const script = `${dir}/uses-vllm.mjs`;
    writeFileSync(
      script,
      `const response = await fetch(process.env.MODELTAPE_URL + '/vllm/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(body)} });\nif (response.status !== 200) { console.error('status', response.status, await response.text()); process.exit(1); }\n`,
    );

    const run = await runMain(['run', '--tape', tape, '--', process.execPath, script], { cwd: dir });
    expect(run.code).toBe(0);
    // Today: 404 modeltape_unknown_upstream for /vllm, so the command fails and the one exchange is "unused".
    const unused = await runMain(['inspect', tape, '--unused', '--', process.execPath, script], { cwd: dir });
    expect(unused.stdout).toContain(`${tape}: 0 of 1 exchanges unused`);
    expect(unused.code).toBe(0);
  });
});
