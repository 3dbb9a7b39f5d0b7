import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { openTape, type TapeSession } from 'modeltape/replay';
import { loadTape } from 'modeltape/recordings';
import { closeAfterEach } from '../support/close-after-each.js';
import { startStandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

const ask = (client: OpenAI) => client.chat.completions.create({ model: 'gpt-4.1-nano', messages: [{ role: 'user', content: 'Say hello' }] });

async function recordOneExchange(tape: string): Promise<void> {
  const standIn = await startStandInUpstream();
  const recorder = await openTape(tape, { mode: 'record', allowRecordInCi: true, upstreams: { openai: standIn.url, anthropic: standIn.url }, config: false });
  // The SDK keeps its real base URL; the session's fetch routes api.openai.com to its proxy.
  await ask(new OpenAI({ apiKey: 'fake-key', fetch: recorder.fetch, maxRetries: 0 }));
  await new Anthropic({ apiKey: 'fake-key', fetch: recorder.fetch, maxRetries: 0 }).messages.create({
    model: 'claude-opus-4-8',
    max_tokens: 10,
    messages: [{ role: 'user', content: 'Hi' }],
  });
  const summary = await recorder.close();
  expect(summary.recorded).toBe(2);
  await standIn.close();
}

describe('openTape', () => {
  const dir = tempDir();
  const started = closeAfterEach();

  test('records through session.fetch, then replays through session.fetch and session.baseUrls alike, offline', async () => {
    const tape = `${dir}/session.jsonl`;
    await recordOneExchange(tape);
    expect(loadTape(tape).exchanges.map(({ exchange }) => `${exchange.upstream} ${exchange.request.path}`)).toEqual([
      'openai /v1/chat/completions',
      'anthropic /v1/messages',
    ]);

    const session: TapeSession = started(await openTape(tape, { config: false, env: { CI: 'true' } }));
    expect(session.mode).toBe('replay');
    // One base URL per provider, the values `modeltape run` puts in each client's variable.
    const url = session.baseUrls.url;
    expect(session.baseUrls).toEqual({
      openai: `${url}/openai/v1`,
      anthropic: `${url}/anthropic`,
      gemini: `${url}/gemini`,
      ollama: `${url}/ollama`,
      azure: `${url}/azure`,
      bedrock: `${url}/bedrock`,
      vertex: `${url}/vertex`,
      url,
    });
    const viaFetch = await ask(new OpenAI({ apiKey: 'unused', fetch: session.fetch, maxRetries: 0 }));
    expect(viaFetch.choices[0]!.message.content).toContain('Galaxy Day');
    const summaryAfterFetch = session.summary();
    expect(summaryAfterFetch).toMatchObject({ hits: 1, misses: 0, upstreamConnections: 0, escapes: [] });

    const viaBaseUrl = await new Anthropic({ apiKey: 'unused', baseURL: session.baseUrls.anthropic, maxRetries: 0 }).messages.create({
      model: 'claude-opus-4-8',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'Hi' }],
    });
    expect(viaBaseUrl.content[0]).toMatchObject({ type: 'text' });
    const summary = await session.close();
    expect(summary).toMatchObject({ hits: 2, misses: 0, recorded: 0, upstreamConnections: 0 });
    expect(session.unused()).toEqual([]);
  });

  test('MODELTAPE_MODE chooses the mode when the options do not, and CI still refuses recording', async () => {
    const tape = `${dir}/env-mode.jsonl`;
    await recordOneExchange(tape);
    await expect(openTape(tape, { config: false, env: { MODELTAPE_MODE: 'auto', CI: 'true' } })).rejects.toThrow(
      /Refusing to record misses \(--mode auto\) in CI/,
    );
    const session = started(await openTape(tape, { config: false, env: { MODELTAPE_MODE: 'passthrough' } }));
    expect(session.mode).toBe('passthrough');
    await expect(openTape(tape, { config: false, env: { MODELTAPE_MODE: 'replya' } })).rejects.toThrow(
      'Invalid tape session mode "replya": expected one of replay, record, auto, passthrough',
    );
  });

  test("session.fetch refuses a URL that is none of the session's upstreams, naming them", async () => {
    const tape = `${dir}/unknown.jsonl`;
    await recordOneExchange(tape);
    const session = started(await openTape(tape, { config: false }));
    await expect(session.fetch('https://example.com/v1/chat/completions', { method: 'POST', body: '{}' })).rejects.toThrow(
      /none of the session's upstreams \(openai, anthropic, gemini, ollama, azure, bedrock, vertex, openrouter, groq, together, fireworks, deepseek, mistral, xai, vllm, lmstudio\b[^)]*\)/,
    );
  });
});
