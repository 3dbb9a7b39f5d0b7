import { ApiError, GoogleGenAI } from '@google/genai';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startProxy, type RunningProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { fakeGoogleKey } from '../support/fake-keys.js';
import { sample, startStandInUpstream, type ReceivedRequest, type StandInReply, type StandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// An obviously fake key in a real key's shape, so that redaction is really exercised.
const FAKE_GOOGLE_KEY = fakeGoogleKey();

const STREAM_LINES = sample('gemini/stream-text.data.jsonl').toString('utf8').split('\n');
// The same chunks as one streamed JSON array (`:streamGenerateContent` without alt=sse), framed
// as Google's streaming JSON writes it: `[`, elements apart by `\n,\r\n`, `\n]`.
const ARRAY_FRAMES = [...STREAM_LINES.map((line, index) => `${index === 0 ? '[' : '\n,\r\n'}${JSON.stringify(JSON.parse(line), null, 2)}`), '\n]'];

/** A stand-in Gemini: the captured tool-call answer for generateContent, the captured text stream (framed as Gemini frames alt=sse) for streamGenerateContent. */
function geminiReply(request: ReceivedRequest): StandInReply {
  const path = request.url.split('?')[0]!;
  if (path.endsWith(':generateContent')) return { body: sample('gemini/generate-content-tool-call.json') };
  if (path.endsWith(':streamGenerateContent')) {
    if (!request.url.includes('alt=sse')) return { headers: { 'content-type': 'application/json; charset=UTF-8' }, frames: ARRAY_FRAMES };
    const frames = STREAM_LINES.map((line) => `data: ${line}\r\n\r\n`);
    return { frames };
  }
  return { status: 404, body: JSON.stringify({ error: { code: 404, message: `stand-in has no route ${path}`, status: 'NOT_FOUND' } }) };
}

const weatherDeclaration = {
  name: 'weather',
  description: 'Weather for a location',
  parametersJsonSchema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
};

async function scenario(client: GoogleGenAI, city = 'San Francisco') {
  const plain = await client.models.generateContent({
    model: 'gemini-2.5-flash',
    contents: `Weather in ${city}?`,
    config: { tools: [{ functionDeclarations: [weatherDeclaration] }] },
  });
  const texts: string[] = [];
  for await (const chunk of await client.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'How many r in strawberry?' }))
    texts.push(chunk.text ?? '');
  return { functionCalls: plain.functionCalls, usage: plain.usageMetadata, texts };
}

describe('@google/genai through the proxy', () => {
  let standIn: StandInUpstream;
  let proxy: RunningProxy | undefined;
  const dir = tempDir();
  beforeEach(async () => {
    standIn = await startStandInUpstream(geminiReply);
  });
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    await standIn.close();
  });

  test('records a function call and a text stream, then replays them identically with the upstream gone, and the key never reaches the tape', async () => {
    const tape = `${dir}/gemini.jsonl`;
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { gemini: standIn.url } });
    const recorded = await scenario(new GoogleGenAI({ apiKey: FAKE_GOOGLE_KEY, httpOptions: { baseUrl: `${proxy.url}/gemini` } }));
    // A client that sends the key in the query, as Gemini's REST docs show.
    const byQuery = await fetch(`${proxy.url}/gemini/v1beta/models/gemini-2.5-flash:generateContent?key=${FAKE_GOOGLE_KEY}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Weather by query key?' }] }] }),
    });
    expect(byQuery.status).toBe(200);
    const recordSummary = await proxy.close();
    proxy = undefined;
    expect(recordSummary.recorded).toBe(3);
    expect(standIn.received).toHaveLength(3);
    // The key reached the upstream, and never the tape.
    expect(standIn.received[0]!.headers['x-goog-api-key']).toBe(FAKE_GOOGLE_KEY);
    expect(standIn.received[2]!.url).toContain(`key=${FAKE_GOOGLE_KEY}`);
    await standIn.close();

    expect(recorded.functionCalls).toEqual([{ name: 'weather', args: { location: 'San Francisco' } }]);
    expect(recorded.texts.join('')).toBe('There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y');
    const { exchanges, text } = { ...loadTape(tape), text: (await import('node:fs')).readFileSync(tape, 'utf8') };
    expect(exchanges.map(({ exchange }) => [exchange.request.path, exchange.response.stream?.format ?? 'body'])).toEqual([
      ['/v1beta/models/gemini-2.5-flash:generateContent', 'body'],
      ['/v1beta/models/gemini-2.5-flash:streamGenerateContent', 'sse'],
      ['/v1beta/models/gemini-2.5-flash:generateContent', 'body'],
    ]);
    expect(text).not.toContain(FAKE_GOOGLE_KEY);
    expect(text).not.toContain('FAKEFAKE');

    proxy = await startProxy({ tape, mode: 'replay' });
    const replayed = await scenario(new GoogleGenAI({ apiKey: 'a-different-fake-key', httpOptions: { baseUrl: `${proxy.url}/gemini` } }));
    const replaySummary = await proxy.close();
    proxy = undefined;
    expect(replayed).toEqual(recorded);
    expect(replaySummary).toMatchObject({ hits: 2, misses: 0, recorded: 0, upstreamConnections: 0 });
  });

  test('records a streamed JSON array (no alt=sse) whole, and replays the same bytes and content type offline', async () => {
    const tape = `${dir}/gemini-array.jsonl`;
    const body = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'How many r in strawberry?' }] }] });
    const ask = (url: string) =>
      fetch(`${url}/gemini/v1beta/models/gemini-2.5-flash:streamGenerateContent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': 'fake-key' },
        body,
      });
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { gemini: standIn.url } });
    const live = await ask(proxy.url);
    const liveText = await live.text();
    expect(live.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    expect(liveText).toBe(ARRAY_FRAMES.join(''));
    expect((JSON.parse(liveText) as unknown[]).length).toBe(STREAM_LINES.length);
    await proxy.close();
    await standIn.close();
    const { exchanges } = loadTape(tape);
    expect(exchanges).toHaveLength(1);
    // application/json is not a stream format: the array is kept as one body.
    expect(exchanges[0]!.exchange.response.stream).toBeUndefined();

    proxy = await startProxy({ tape, mode: 'replay' });
    const replayed = await ask(proxy.url);
    expect(replayed.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    expect(await replayed.text()).toBe(liveText);
    const summary = await proxy.close();
    proxy = undefined;
    expect(summary).toMatchObject({ hits: 1, misses: 0, upstreamConnections: 0 });
  });

  test('a drifted prompt fails in replay with a Gemini-shaped error naming the path that differs', async () => {
    const tape = `${dir}/gemini-drift.jsonl`;
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { gemini: standIn.url } });
    await scenario(new GoogleGenAI({ apiKey: 'fake-key', httpOptions: { baseUrl: `${proxy.url}/gemini` } }));
    await proxy.close();
    await standIn.close();

    proxy = await startProxy({ tape, mode: 'replay' });
    const client = new GoogleGenAI({ apiKey: 'fake-key', httpOptions: { baseUrl: `${proxy.url}/gemini` } });
    const error = await client.models
      .generateContent({ model: 'gemini-2.5-flash', contents: 'Weather in Lyon?', config: { tools: [{ functionDeclarations: [weatherDeclaration] }] } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    // @google/genai's message is the body, Google's RPC shape: {error:{code,message,status}}.
    const body = JSON.parse((error as ApiError).message) as { error: { code: number; message: string; status: string } };
    expect(body.error).toMatchObject({ code: (error as ApiError).status, status: 'MODELTAPE_REPLAY_MISS' });
    expect(body.error.message).toContain('Failed to replay POST /gemini/v1beta/models/gemini-2.5-flash:generateContent: no recorded exchange matches.');
    expect(body.error.message).toContain('at .contents[0].parts[0].text: recorded "Weather in San Francisco?" sent "Weather in Lyon?"');
    const summary = await proxy.close();
    proxy = undefined;
    expect(summary).toMatchObject({ hits: 0, misses: 1, upstreamConnections: 0 });
  });
});
