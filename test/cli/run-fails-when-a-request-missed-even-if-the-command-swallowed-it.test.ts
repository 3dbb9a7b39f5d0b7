import { writeFileSync } from 'node:fs';
import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { recordTape } from '../support/record-tape.js';
import { runCli, runMain } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

describe('modeltape run', () => {
  const dir = tempDir({ inProject: true });

  const recordHello = (tape: string) =>
    recordTape(tape, async ({ openai }) => {
      await new OpenAI({ apiKey: 'fake-key', baseURL: openai, maxRetries: 0 }).chat.completions.create({
        model: 'gpt-4.1-nano',
        messages: [{ role: 'user', content: 'hi' }],
      });
    });

  test('gives the command OPENAI_BASE_URL, ANTHROPIC_BASE_URL and MODELTAPE_URL, and a placeholder key in replay', async () => {
    const tape = `${dir}/env.jsonl`;
    await recordHello(tape);
    const script = `${dir}/print-env.mjs`;
    writeFileSync(script, 'console.log(JSON.stringify(process.env))\n');
    // The script asks nothing: --allow-empty accepts a replay no request reached.
    const result = await runMain(['run', '--tape', tape, '--allow-empty', '--', process.execPath, script], {
      env: { NODE_OPTIONS: '--max-old-space-size=512', OPENAI_API_BASE: 'https://api.openai.com/v1' },
    });
    expect(result.code).toBe(0);
    const env = JSON.parse(result.stdout.trim()) as Record<string, string>;
    expect(env.MODELTAPE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // Every name a client in common use reads for the provider's address.
    for (const name of ['OPENAI_BASE_URL', 'OPENAI_API_BASE', 'OPENAI_BASE']) expect(env[name], name).toBe(`${env.MODELTAPE_URL}/openai/v1`);
    for (const name of ['ANTHROPIC_BASE_URL', 'ANTHROPIC_API_URL', 'ANTHROPIC_API_BASE']) expect(env[name], name).toBe(`${env.MODELTAPE_URL}/anthropic`);
    expect(env.GOOGLE_GEMINI_BASE_URL).toBe(`${env.MODELTAPE_URL}/gemini`);
    expect(env.OLLAMA_HOST).toBe(`${env.MODELTAPE_URL}/ollama`);
    expect(env.OPENAI_API_KEY).toBe('modeltape-replay-placeholder');
    expect(env.MODELTAPE_MODE).toBe('replay');
    // The guard is preloaded before what the user had; other languages get the proxy variables.
    expect(env.NODE_OPTIONS).toMatch(/^--import=file:\/\/\S+\/guard\/preload\.js --max-old-space-size=512$/);
    for (const name of ['HTTPS_PROXY', 'HTTP_PROXY', 'https_proxy', 'http_proxy', 'ALL_PROXY']) expect(env[name], name).toBe(env.MODELTAPE_URL);
    expect(env.NO_PROXY).toBe('localhost,127.0.0.1,::1,[::1]');
    expect(env.MODELTAPE_GUARD_HOSTS!.split(',')).toEqual(
      expect.arrayContaining(['api.openai.com', 'api.anthropic.com', 'generativelanguage.googleapis.com', '127.0.0.1:11434', 'api.smith.langchain.com']),
    );
    expect(result.stderr).toContain('no request reached a tape; accepted (--allow-empty)');
  });

  test('fails a replay that no request reached: it proved nothing', async () => {
    const tape = `${dir}/empty-run.jsonl`;
    await recordHello(tape);
    const result = await runMain(['run', '--tape', tape, '--', process.execPath, '-e', '0']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('modeltape replay');
    expect(result.stderr).toContain('no request reached a tape: a replay that replayed nothing proved nothing.');
    expect(result.stderr).toContain('--allow-empty');
  });

  test('replays for the official SDK and exits 0 with a summary on stderr', async () => {
    const tape = `${dir}/ok.jsonl`;
    await recordHello(tape);
    const script = `${dir}/ask.mjs`;
    writeFileSync(
      script,
      "import OpenAI from 'openai';\nconst c = await new OpenAI({ maxRetries: 0 }).chat.completions.create({ model: 'gpt-4.1-nano', messages: [{ role: 'user', content: 'hi' }] });\nconsole.log(c.choices[0].message.content.slice(0, 40));\n",
    );
    const result = await runMain(['run', '--tape', tape, '--', process.execPath, script], { cwd: process.cwd() });
    expect(result.stderr).toContain('1 hit, 0 misses');
    expect(result.stdout).toContain('Galaxy Day');
    expect(result.code).toBe(0);
  });

  test('exits non-zero when a request missed, even though the command caught the error and exited 0', async () => {
    const tape = `${dir}/swallow.jsonl`;
    await recordHello(tape);
    const script = `${dir}/swallow.mjs`;
    writeFileSync(
      script,
      "import OpenAI from 'openai';\ntry { await new OpenAI({ maxRetries: 0 }).chat.completions.create({ model: 'gpt-4.1-nano', messages: [{ role: 'user', content: 'drifted' }] }); } catch { console.log('swallowed'); }\n",
    );
    const result = await runMain(['run', '--tape', tape, '--', process.execPath, script], { cwd: process.cwd() });
    expect(result.stdout).toContain('swallowed');
    expect(result.stderr).toContain('0 hits, 1 miss');
    expect(result.stderr).toContain('at .messages[0].content: recorded "hi" sent "drifted"');
    expect(result.stderr).toContain('a swallowed error is still an error');
    expect(result.code).toBe(1);
  });

  test("passes the command's own failure status through, as the bin's exit status", async () => {
    const tape = `${dir}/status.jsonl`;
    await recordHello(tape);
    // Spawned: the status is the process's own, set by the bin from what main returned.
    const result = await runCli(['run', '--tape', tape, '--', process.execPath, '-e', 'process.exit(7)']);
    expect(result.code).toBe(7);
    expect(result.stderr).toContain('exited with status 7');
  });

  test('refuses to record in CI before starting the command', async () => {
    const result = await runMain(['run', '--tape', `${dir}/ci.jsonl`, '--mode', 'record', '--', process.execPath, '-e', 'console.log("ran")'], {
      env: { CI: 'true' },
    });
    expect(result.code).toBe(1);
    expect(result.stdout).not.toContain('ran');
    expect(result.stderr).toContain('Refusing to record (--mode record) in CI');
  });
});
