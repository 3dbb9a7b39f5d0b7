import Anthropic from '@anthropic-ai/sdk';
import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText } from 'ai';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startProxy, type RunningProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { fakeAnthropicKey } from '../support/fake-keys.js';
import { startStandInUpstream, type StandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

const FAKE_ANTHROPIC_KEY = fakeAnthropicKey();

const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a place',
  input_schema: { type: 'object' as const, properties: { location: { type: 'string' } }, required: ['location'] },
};

async function scenario(client: Anthropic) {
  const plain = await client.messages.create({ model: 'claude-opus-4-8', max_tokens: 64, messages: [{ role: 'user', content: 'Say hello' }] });
  const streamed = await client.messages
    .stream({ model: 'claude-opus-4-8', max_tokens: 64, messages: [{ role: 'user', content: 'Tell me a joke' }] })
    .finalMessage();
  const toolUse = await client.messages
    .stream({ model: 'claude-opus-4-8', max_tokens: 256, tools: [weatherTool], messages: [{ role: 'user', content: 'Weather in Paris?' }] })
    .finalMessage();
  return { plain, streamed, toolUse };
}

describe('the Anthropic clients through the proxy', () => {
  let standIn: StandInUpstream;
  let proxy: RunningProxy | undefined;
  const dir = tempDir();
  beforeEach(async () => {
    standIn = await startStandInUpstream();
  });
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    await standIn.close();
  });

  test('@anthropic-ai/sdk records plain, text-stream and tool-use exchanges and replays them identically offline', async () => {
    const tape = `${dir}/anthropic.jsonl`;
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { anthropic: standIn.url } });
    const recorded = await scenario(new Anthropic({ apiKey: FAKE_ANTHROPIC_KEY, baseURL: proxy.baseUrls.anthropic, maxRetries: 0 }));
    expect((await proxy.close()).recorded).toBe(3);
    // The SDK's own path, with the key it sent reaching the upstream only.
    expect(standIn.received.map((request) => request.url)).toEqual(['/v1/messages', '/v1/messages', '/v1/messages']);
    expect(standIn.received[0]!.headers.authorization).toBe(`Bearer ${FAKE_ANTHROPIC_KEY}`);
    await standIn.close();

    const { exchanges } = loadTape(tape);
    expect(exchanges.map(({ exchange }) => exchange.request.headers['anthropic-version'])).toEqual(['2026-10-21', '2026-10-21', '2026-10-21']);
    expect(exchanges.map(({ exchange }) => exchange.response.stream?.format ?? 'body')).toEqual(['body', 'sse', 'sse']);

    proxy = await startProxy({ tape });
    const replayed = await scenario(new Anthropic({ apiKey: 'another-fake-key', baseURL: proxy.baseUrls.anthropic, maxRetries: 0 }));
    const summary = await proxy.close();
    expect(replayed).toEqual(recorded);
    expect(replayed.toolUse.content.find((block) => block.type === 'tool_use')).toMatchObject({ name: 'get_weather', input: { location: 'Paris' } });
    expect(replayed.streamed.content[0]).toMatchObject({ type: 'text' });
    expect(summary).toMatchObject({ hits: 3, misses: 0, upstreamConnections: 0 });
  });

  test('@ai-sdk/anthropic and @anthropic-ai/sdk reach /v1/messages from one ANTHROPIC_BASE_URL, so one recording serves both', async () => {
    const tape = `${dir}/both.jsonl`;
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { anthropic: standIn.url } });
    // @ai-sdk/anthropic appends /messages to the base URL: /anthropic/messages.
    const vercel = createAnthropic({ baseURL: proxy.baseUrls.anthropic, apiKey: FAKE_ANTHROPIC_KEY });
    const viaVercel = await generateText({ model: vercel('claude-opus-4-8'), prompt: 'Say hello', maxOutputTokens: 64, maxRetries: 0 });
    await proxy.close();
    expect(standIn.received.map((request) => request.url)).toEqual(['/v1/messages']);
    expect(standIn.received[0]!.headers['x-api-key']).toBe(FAKE_ANTHROPIC_KEY);
    await standIn.close();

    const { exchanges } = loadTape(tape);
    expect(exchanges).toHaveLength(1);
    const { exchange } = exchanges[0]!;
    expect(exchange.request.path).toBe('/v1/messages');

    // Replay the same request from the official SDK (it appends /v1/messages): the same key.
    proxy = await startProxy({ tape });
    const official = new Anthropic({ apiKey: 'another-fake-key', baseURL: proxy.baseUrls.anthropic, maxRetries: 0 });
    const body = (exchange.request.body as { json: Anthropic.MessageCreateParamsNonStreaming }).json;
    const viaOfficial = await official.messages.create(body, { headers: { 'anthropic-version': exchange.request.headers['anthropic-version']! } });
    const summary = await proxy.close();
    expect(summary).toMatchObject({ hits: 1, misses: 0, upstreamConnections: 0 });
    expect(viaOfficial.content[0]).toMatchObject({ type: 'text', text: viaVercel.text });
  });
});
