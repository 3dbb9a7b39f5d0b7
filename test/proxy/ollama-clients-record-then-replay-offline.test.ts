import { Ollama, type Tool } from 'ollama';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startProxy, type RunningProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { sample, startStandInUpstream, type ReceivedRequest, type StandInReply, type StandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

const weatherTool: Tool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Get the weather in a given city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

/** The real NDJSON lines of a captured sample, each with its newline. */
function ndjsonLines(path: string): string[] {
  return sample(path)
    .toString('utf8')
    .split(/(?<=\n)/)
    .filter((line) => line.length > 0);
}

const TEXT_STREAM = ndjsonLines('ollama/chat-stream-text.ndjson');
const TOOL_STREAM = ndjsonLines('ollama/chat-stream-tool-call.ndjson');
const TAGS = { models: [{ name: 'llama3.2:latest', model: 'llama3.2:latest', modified_at: '2025-01-01T00:00:00Z', size: 1, digest: 'd', details: {} }] };

/** A stand-in Ollama: the captured answers of ollama/ollama docs/api.md, NDJSON when the body does not turn streaming off. */
function ollamaReply(request: ReceivedRequest): StandInReply {
  const path = request.url.split('?')[0];
  if (path === '/api/tags') return { body: JSON.stringify(TAGS) };
  const body = JSON.parse(request.body) as { stream?: boolean; tools?: unknown[] };
  if (path === '/api/chat') {
    if (body.stream === false) return { body: sample('ollama/chat-tool-call.json') };
    // Ollama streams unless told not to.
    return { headers: { 'content-type': 'application/x-ndjson' }, frames: body.tools ? TOOL_STREAM : TEXT_STREAM };
  }
  return { status: 404, headers: { 'content-type': 'text/plain' }, body: '404 page not found' };
}

async function scenario(ollama: Ollama) {
  const parts = [];
  for await (const part of await ollama.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'why is the sky blue?' }], stream: true }))
    parts.push(part);
  const toolParts = [];
  for await (const part of await ollama.chat({
    model: 'llama3.2',
    messages: [{ role: 'user', content: 'what is the weather in tokyo?' }],
    tools: [weatherTool],
    stream: true,
  }))
    toolParts.push(part);
  const plain = await ollama.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'What is the weather today in Paris?' }], tools: [weatherTool] });
  const list = await ollama.list();
  return { parts, toolParts, plain, list };
}

describe('the ollama client through the proxy', () => {
  let standIn: StandInUpstream;
  let proxy: RunningProxy | undefined;
  const dir = tempDir();
  beforeEach(async () => {
    standIn = await startStandInUpstream(ollamaReply);
  });
  afterEach(async () => {
    await proxy?.close();
    await standIn.close();
  });

  test('records NDJSON streams line by line and plain answers, then replays them frame-exact with no upstream connection', async () => {
    const tape = `${dir}/ollama.jsonl`;
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { ollama: standIn.url } });
    const recorded = await scenario(new Ollama({ host: `${proxy.url}/ollama` }));
    const recordSummary = await proxy.close();
    expect(recordSummary.recorded).toBe(4);
    expect(standIn.received.map((request) => `${request.method} ${request.url}`)).toEqual([
      'POST /api/chat',
      'POST /api/chat',
      'POST /api/chat',
      'GET /api/tags',
    ]);
    expect(recorded.parts.map((part) => part.message.content)).toEqual(['The', '']);
    expect(recorded.toolParts[0]!.message.tool_calls).toEqual([{ function: { name: 'get_weather', arguments: { city: 'Tokyo' } } }]);

    const { exchanges } = loadTape(tape);
    expect(exchanges.map(({ exchange }) => [exchange.request.path, exchange.response.stream?.format ?? 'body'])).toEqual([
      ['/api/chat', 'ndjson'],
      ['/api/chat', 'ndjson'],
      ['/api/chat', 'body'],
      ['/api/tags', 'body'],
    ]);
    // Frame-exact: each recorded frame is one line of the upstream's stream.
    expect(exchanges[0]!.exchange.response.stream!.frames.map((frame) => ('text' in frame ? frame.text : ''))).toEqual(TEXT_STREAM);
    expect(exchanges[1]!.exchange.response.stream!.frames.map((frame) => ('text' in frame ? frame.text : ''))).toEqual(TOOL_STREAM);

    const connectionsBefore = standIn.connections();
    proxy = await startProxy({ tape, mode: 'replay' });
    const replayed = await scenario(new Ollama({ host: `${proxy.url}/ollama` }));
    const replaySummary = await proxy.close();
    expect(replayed).toEqual(recorded);
    expect(replaySummary.upstreamConnections).toBe(0);
    expect(standIn.connections()).toBe(connectionsBefore);
    expect(standIn.received).toHaveLength(4);

    // The client's own request, sent again byte for byte, gets the upstream's exact bytes back.
    proxy = await startProxy({ tape, mode: 'replay' });
    const raw = await fetch(`${proxy.url}/ollama/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: standIn.received[1]!.body,
    });
    expect(raw.headers.get('content-type')).toBe('application/x-ndjson');
    expect(await raw.text()).toBe(TOOL_STREAM.join(''));
    expect(standIn.connections()).toBe(connectionsBefore);
  });

  test("a drifted prompt fails on replay in Ollama's error shape, naming the path", async () => {
    const tape = `${dir}/ollama-drift.jsonl`;
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { ollama: standIn.url } });
    await new Ollama({ host: `${proxy.url}/ollama` }).chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'why is the sky blue?' }], stream: false });
    await proxy.close();

    proxy = await startProxy({ tape, mode: 'replay' });
    const drifted = await new Ollama({ host: `${proxy.url}/ollama` })
      .chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'why is the sea blue?' }], stream: false })
      .then(
        () => undefined,
        (error: unknown) => error as { status_code: number; error: string },
      );
    expect(drifted).toBeDefined();
    expect(drifted!.status_code).toBeGreaterThanOrEqual(400);
    // `error` is the message itself: the client read Ollama's `{"error":"…"}` body.
    expect(typeof drifted!.error).toBe('string');
    expect(drifted!.error).toContain('/api/chat');
    expect(drifted!.error).toContain('sea');
    expect(standIn.received).toHaveLength(1);
  });
});
