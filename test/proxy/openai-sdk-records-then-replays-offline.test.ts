import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startProxy, type RunningProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { fakeOpenAiKey } from '../support/fake-keys.js';
import { startStandInUpstream, type StandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// An obviously fake key, shaped like a real one so redaction is really exercised.
const FAKE_OPENAI_KEY = fakeOpenAiKey();

const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

async function scenario(client: OpenAI) {
  const plain = await client.chat.completions.create({ model: 'gpt-4.1-nano', messages: [{ role: 'user', content: 'Say hello' }] });
  const stream = client.chat.completions.stream({
    model: 'gpt-4o',
    messages: [{ role: 'user', content: 'Count to three' }],
    stream_options: { include_usage: true },
  });
  const deltas: string[] = [];
  stream.on('content', (delta) => deltas.push(delta));
  const streamed = await stream.finalChatCompletion();
  const toolStream = client.chat.completions.stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [weatherTool] });
  const toolCall = await toolStream.finalChatCompletion();
  return { plain, streamed, deltas, toolCall };
}

describe('the official openai SDK through the proxy', () => {
  let standIn: StandInUpstream;
  let proxy: RunningProxy | undefined;
  const dir = tempDir();
  beforeEach(async () => {
    standIn = await startStandInUpstream();
  });
  afterEach(async () => {
    await proxy?.close();
    await standIn.close();
  });

  test('records plain, streamed and tool-call exchanges, then replays them identically with the upstream gone', async () => {
    const tape = `${dir}/openai.jsonl`;
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: standIn.url } });
    const recorded = await scenario(new OpenAI({ apiKey: FAKE_OPENAI_KEY, baseURL: proxy.baseUrls.openai, maxRetries: 0 }));
    const recordSummary = await proxy.close();
    expect(recordSummary.recorded).toBe(3);
    expect(recordSummary.upstreamConnections).toBeGreaterThan(0);
    expect(standIn.received).toHaveLength(3);
    // The key reached the upstream, and never the tape.
    expect(standIn.received[0]!.headers.authorization).toBe(`Bearer ${FAKE_OPENAI_KEY}`);
    await standIn.close();

    const { exchanges } = loadTape(tape);
    expect(exchanges.map(({ exchange }) => [exchange.request.path, exchange.response.stream?.format ?? 'body'])).toEqual([
      ['/v1/chat/completions', 'body'],
      ['/v1/chat/completions', 'sse'],
      ['/v1/chat/completions', 'sse'],
    ]);

    proxy = await startProxy({ tape, mode: 'replay' });
    const replayed = await scenario(new OpenAI({ apiKey: 'a-different-fake-key', baseURL: proxy.baseUrls.openai, maxRetries: 0 }));
    const replaySummary = await proxy.close();

    expect(replayed).toEqual(recorded);
    expect(replayed.plain.choices[0]!.message.content).toContain('Galaxy Day');
    expect(replayed.deltas.length).toBeGreaterThan(3);
    expect(replayed.toolCall.choices[0]!.message.tool_calls?.[0]).toMatchObject({
      function: { name: 'get_weather', arguments: '{"city":"San Francisco","state":"CA"}' },
    });
    expect(replaySummary).toMatchObject({ hits: 3, misses: 0, recorded: 0, upstreamConnections: 0 });
  });
});
