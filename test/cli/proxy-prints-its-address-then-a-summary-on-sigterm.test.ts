import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { recordTape } from '../support/record-tape.js';
import { startCli, startMain } from '../support/cli.js';
import { closeAfterEach } from '../support/close-after-each.js';
import { tempDir } from '../support/temp-dir.js';

describe('modeltape proxy', () => {
  const dir = tempDir();
  const running = closeAfterEach();

  test.each(['SIGTERM', 'SIGINT'] as const)('prints exactly its address on the first line, serves the tape, and on %s prints the summary', async (signal) => {
    const tape = `${dir}/cli-proxy.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      await new OpenAI({ apiKey: 'fake-key', baseURL: openai, maxRetries: 0 }).chat.completions.create({
        model: 'gpt-4.1-nano',
        messages: [{ role: 'user', content: 'hi' }],
      });
    });
    const proxy = running(await startMain(['proxy', '--tape', tape]));
    expect(proxy.firstLine).toMatch(/^modeltape proxy listening on http:\/\/127\.0\.0\.1:\d+$/);
    const url = proxy.firstLine.slice('modeltape proxy listening on '.length);

    const client = new OpenAI({ apiKey: 'fake-key', baseURL: `${url}/openai/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'gpt-4.1-nano', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0]!.message.content).toContain('Galaxy Day');

    const { code, stdout } = await proxy.stop(signal);
    expect(stdout).toContain(`modeltape replay ${tape}: 1 hit, 0 misses, 0 recorded, 0 passthrough, 0 refused, 0 upstream connections`);
    expect(code).toBe(0);
  });

  // Spawned: a real SIGTERM to a real process, which must finish its write before it exits.
  test('records through --upstream and finishes the in-flight write before exiting on SIGTERM', async () => {
    const { startStandInUpstream } = await import('../support/stand-in-upstream.js');
    const { loadTape } = await import('modeltape/recordings');
    const standIn = await startStandInUpstream();
    const tape = `${dir}/cli-record.jsonl`;
    const proxy = await startCli(['proxy', '--tape', tape, '--mode', 'record', '--upstream', `openai=${standIn.url}`, '--port', '0']);
    const url = proxy.firstLine.slice('modeltape proxy listening on '.length);
    // A stream the upstream holds open until the proxy has been told to stop.
    let release!: () => void;
    standIn.beforeFrame = (index) => (index === 3 ? new Promise<void>((resolve) => (release = resolve)) : undefined);
    const response = fetch(`${url}/openai/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"model":"gpt-4o","stream":true,"messages":[]}',
    });
    const reader = (await response).body!.getReader();
    await reader.read();
    proxy.child.kill('SIGTERM');
    // Release the stream only once the proxy has begun to shut down.
    while (!proxy.output().stderr.includes('finishing in-flight requests')) await new Promise((resolve) => setTimeout(resolve, 10));
    release();
    while (!(await reader.read()).done);
    expect(await proxy.exited).toBe(0);
    expect(proxy.output().stdout).toContain('0 misses, 1 recorded');
    expect(loadTape(tape).exchanges).toHaveLength(1);
    await standIn.close();
  });
});
