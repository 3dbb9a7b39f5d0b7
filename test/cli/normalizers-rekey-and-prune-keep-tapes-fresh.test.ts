import { readFileSync, writeFileSync } from 'node:fs';
import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { loadTape } from 'modeltape/recordings';
import { openTape } from 'modeltape/replay';
import { startStandInUpstream } from '../support/stand-in-upstream.js';
import { recordTape } from '../support/record-tape.js';
import { runMain } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

const withTime = (time: string, requestId: string) => ({
  model: 'gpt-4o',
  metadata: { request_id: requestId },
  messages: [{ role: 'user', content: `It is ${time}. What should I do today?` }],
});

describe('keeping tapes fresh', () => {
  const dir = tempDir({ inProject: true });

  test('config normalizers key volatile parts identically at record and replay, and the tape header says how it was keyed', async () => {
    const config = `${dir}/modeltape.config.json`;
    writeFileSync(
      config,
      JSON.stringify({
        _note: 'volatile fields',
        normalizers: [{ path: '.metadata.request_id' }, { pattern: '\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z', placeholder: '<timestamp>' }],
      }),
    );
    const tape = `${dir}/normalized.jsonl`;
    const standIn = await startStandInUpstream();
    const recorder = await openTape(tape, { mode: 'record', allowRecordInCi: true, config, upstreams: { openai: standIn.url } });
    await new OpenAI({ apiKey: 'k', fetch: recorder.fetch, maxRetries: 0 }).chat.completions.create(withTime('2026-11-30T09:00:00.000Z', 'req-1') as never);
    await recorder.close();
    await standIn.close();
    expect(loadTape(tape).header.keyRules.normalizers).toEqual([
      { path: '.metadata.request_id' },
      { pattern: '\\d{4}-\\d{2}-\\d{2}T[0-9:.]+Z', placeholder: '<timestamp>' },
    ]);
    // The stored body keeps what was sent.
    expect(JSON.stringify(loadTape(tape).exchanges[0]!.exchange.request.body)).toContain('2026-11-30T09:00:00.000Z');

    const replay = await openTape(tape, { config });
    const later = await new OpenAI({ apiKey: 'k', fetch: replay.fetch, maxRetries: 0 }).chat.completions.create(
      withTime('2026-12-01T17:45:12.345Z', 'req-2') as never,
    );
    expect(later.choices[0]!.message.content).toContain('Galaxy Day');
    expect(await replay.close()).toMatchObject({ hits: 1, misses: 0 });
  });

  test('modeltape rekey applies changed rules and reports which keys changed; the tape then replays under them', async () => {
    const tape = `${dir}/rekey.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      await new OpenAI({ apiKey: 'k', baseURL: openai, maxRetries: 0 }).chat.completions.create(withTime('2026-11-30T09:00:00.000Z', 'req-1') as never);
      await new OpenAI({ apiKey: 'k', baseURL: openai, maxRetries: 0 }).chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'no time here' }],
      });
    });
    const config = `${dir}/rekey.config.json`;
    writeFileSync(config, JSON.stringify({ normalizers: [{ path: '.metadata.request_id' }] }));
    // Replaying with rules the tape was not keyed with is refused, and says how to fix it.
    await expect(openTape(tape, { config })).rejects.toThrow(`Run modeltape rekey ${tape} --config ${config} to re-key it`);

    const dry = await runMain(['rekey', tape, '--config', config, '--dry-run']);
    expect(dry.stdout).toContain(`${tape}: 1 of 2 keys changed (new key rules)`);
    expect(dry.stdout).toMatch(/line 2: [0-9a-f]{12}… → [0-9a-f]{12}…/);
    expect(loadTape(tape).header.keyRules.normalizers).toEqual([]);

    const applied = await runMain(['rekey', tape, '--config', config]);
    expect(applied.stdout).toContain(`${tape}: rewritten`);
    expect(loadTape(tape).header.keyRules.normalizers).toEqual([{ path: '.metadata.request_id' }]);
    expect((await runMain(['verify', tape])).stdout).toBe(`${tape}: ok, 2 exchanges\n`);
    const replay = await openTape(tape, { config });
    await new OpenAI({ apiKey: 'k', fetch: replay.fetch, maxRetries: 0 }).chat.completions.create(withTime('2026-11-30T09:00:00.000Z', 'another-id') as never);
    expect(await replay.close()).toMatchObject({ hits: 1, misses: 0 });
  });

  test('inspect --unused lists what a run never used, and --mode auto --prune drops it', async () => {
    const tape = `${dir}/prune.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      const client = new OpenAI({ apiKey: 'k', baseURL: openai, maxRetries: 0 });
      await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'kept' }] });
      await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'stale' }] });
    });
    const script = `${dir}/uses-one.mjs`;
    writeFileSync(
      script,
      "import OpenAI from 'openai';\nawait new OpenAI({ maxRetries: 0 }).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'kept' }] });\n",
    );
    const unused = await runMain(['inspect', tape, '--unused', '--', process.execPath, script], { cwd: process.cwd() });
    expect(unused.code).toBe(0);
    expect(unused.stdout).toContain(`${tape}: 1 of 2 exchanges unused by`);
    expect(unused.stdout).toMatch(/3\s+POST \/v1\/chat\/completions \(openai\)\s+0\s+stale\n/);

    const before = readFileSync(tape, 'utf8').split('\n');
    // Auto mode may go upstream for a miss, so it gets no placeholder key: the script brings one.
    const pruned = await runMain(['run', '--tape', tape, '--mode', 'auto', '--prune', '--', process.execPath, script], {
      cwd: process.cwd(),
      env: { OPENAI_API_KEY: 'fake-key' },
    });
    expect(pruned.code).toBe(0);
    const after = readFileSync(tape, 'utf8').split('\n');
    expect(after).toEqual([before[0], before[1], '']);
    expect((await runMain(['run', '--tape', tape, '--prune', '--', process.execPath, script])).stderr).toContain(
      '--prune drops the exchanges a run did not use, so it needs --mode auto',
    );
  });

  test('a config file with an unknown field names it and the nearest known one', async () => {
    const config = `${dir}/bad.config.json`;
    writeFileSync(config, JSON.stringify({ normalisers: [] }));
    const result = await runMain(['run', '--config', config, '--', process.execPath, '-e', '']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('unknown field ".normalisers" in config; did you mean ".normalizers"?');
  });

  test('a config path that is a directory, or not JSON, or missing, is named with what to do', async () => {
    const notJson = `${dir}/not-json.config.json`;
    writeFileSync(notJson, '{ normalizers: [] }');
    const asDirectory = await runMain(['run', '--config', dir, '--', process.execPath, '-e', '']);
    const asText = await runMain(['run', '--config', notJson, '--', process.execPath, '-e', '']);
    const missing = await runMain(['run', '--config', `${dir}/nowhere.json`, '--', process.execPath, '-e', '']);
    expect([asDirectory.code, asText.code, missing.code]).toEqual([1, 1, 1]);
    expect(asDirectory.stderr).toContain(`Config file ${dir} is a directory, not a file. Pass a JSON file with --config`);
    expect(asText.stderr).toContain(`Config file ${notJson} is not valid JSON`);
    expect(missing.stderr).toContain(`Config file ${dir}/nowhere.json does not exist.`);
  });
});
