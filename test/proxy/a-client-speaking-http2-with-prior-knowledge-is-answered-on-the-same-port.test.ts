import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { describe, expect, test } from 'vitest';
import { startProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { closeAfterEach } from '../support/close-after-each.js';
import { fakeOpenAiKey } from '../support/fake-keys.js';
import { writeTapeByHand } from '../support/hand-written-tape.js';
import { connectHttp2, http2Request } from '../support/http2-client.js';
import { sample, sseFrames, startStandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// The AWS SDK's Bedrock Runtime client, given an http:// endpoint, opens its connection with the
// HTTP/2 preface (prior knowledge, no upgrade): the proxy answers it on the port HTTP/1.1 uses.
const CHAT = '/openai/v1/chat/completions';
const ASKED = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Name a river' }] };
const STREAMED = { ...ASKED, stream: true };
const ANSWER = { id: 'chatcmpl-fake-0', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'The Loire.' } }] };
const FRAMES = ['data: {"n":1}\n\n', 'data: {"n":2}\n\n', 'data: {"n":3}\n\n', 'data: [DONE]\n\n'];
const GAP_MS = 150;

// The connection-specific headers HTTP/2 forbids (RFC 9113 §8.2.2).
const CONNECTION_SPECIFIC = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade'];

describe('a client speaking HTTP/2 with prior knowledge', () => {
  const dir = tempDir();
  const closing = closeAfterEach();

  const replaying = async () => {
    const { tape } = writeTapeByHand(dir, 'h2', [
      { request: ASKED, response: { json: ANSWER } },
      { request: STREAMED, response: { sse: FRAMES, everyMs: GAP_MS } },
    ]);
    return closing(await startProxy({ tape, pace: 'recorded', repeat: 'last', log: () => undefined }));
  };
  const ask = (body: unknown) => ({ path: CHAT, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  test('gets a recorded JSON answer replayed, with no connection-specific header', async () => {
    const proxy = await replaying();
    const session = await connectHttp2(proxy.url, closing);
    const answer = await http2Request(session, ask(ASKED));
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(JSON.parse(answer.body.toString('utf8'))).toEqual(ANSWER);
    expect(Object.keys(answer.headers).filter((name) => CONNECTION_SPECIFIC.includes(name))).toEqual([]);
    expect(answer.rstCode).toBe(0);
    expect((await proxy.close()).hits).toBe(1);
  });

  test('gets a recorded stream at its recorded pace, frame by frame', async () => {
    const proxy = await replaying();
    const session = await connectHttp2(proxy.url, closing);
    const answer = await http2Request(session, ask(STREAMED));
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/event-stream');
    expect(answer.body.toString('utf8')).toBe(FRAMES.join(''));
    // Each frame its own DATA chunk, each arriving about GAP_MS after the one before it: never
    // before its time counted from the request (the proxy paces from its answer, which comes
    // after), and not long after its time counted from the headers (a busy machine delays both).
    expect(answer.chunks.map((chunk) => chunk.text)).toEqual(FRAMES);
    for (const [index, chunk] of answer.chunks.entries()) {
      expect(chunk.sinceRequestMs).toBeGreaterThanOrEqual(index * GAP_MS - 5);
      expect(chunk.atMs).toBeLessThan(index * GAP_MS + 2_000);
    }
    expect((await proxy.close()).hits).toBe(1);
  });

  test('that asks what was not recorded gets the provider-shaped miss error', async () => {
    const proxy = await replaying();
    const session = await connectHttp2(proxy.url, closing);
    const answer = await http2Request(session, ask({ ...ASKED, messages: [{ role: 'user', content: 'Name a mountain' }] }));
    expect(answer.status).toBe(400);
    expect(answer.headers['x-modeltape-error']).toBe('modeltape_replay_miss');
    const error = JSON.parse(answer.body.toString('utf8')) as { error: { type: string; message: string } };
    expect(error.error.type).toBe('modeltape_replay_miss');
    expect(error.error.message).toContain('POST /openai/v1/chat/completions');
    const summary = await proxy.close();
    expect([summary.hits, summary.misses]).toEqual([0, 1]);
  });

  test('records through the proxy: the upstream and the tape see HTTP/1.1-style headers, no pseudo-header', async () => {
    const standIn = closing(await startStandInUpstream());
    const tape = `${dir}/recorded.jsonl`;
    const proxy = closing(await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: standIn.url }, log: () => undefined }));
    const session = await connectHttp2(proxy.url, closing);
    const request = { model: 'gpt-4o', messages: [{ role: 'user', content: 'Say hello' }] };
    const answer = await http2Request(session, {
      path: CHAT,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${fakeOpenAiKey()}`, 'user-agent': 'h2-test/1.0' },
      body: JSON.stringify(request),
    });
    expect(answer.status).toBe(200);
    expect(answer.body.equals(sample('openai/chat-completion.json'))).toBe(true);
    expect(Object.keys(answer.headers).filter((name) => CONNECTION_SPECIFIC.includes(name))).toEqual([]);
    await proxy.close();

    // The stand-in heard the request as any HTTP/1.1 client's, on the path past the route.
    expect(standIn.received).toHaveLength(1);
    const heard = standIn.received[0]!;
    expect([heard.method, heard.url]).toEqual(['POST', '/v1/chat/completions']);
    expect(Object.keys(heard.headers).filter((name) => name.startsWith(':'))).toEqual([]);
    expect(heard.headers['user-agent']).toBe('h2-test/1.0');
    expect(JSON.parse(heard.body)).toEqual(request);

    const { exchanges } = loadTape(tape);
    expect(exchanges).toHaveLength(1);
    const { exchange } = exchanges[0]!;
    expect([exchange.request.method, exchange.request.path]).toEqual(['POST', '/v1/chat/completions']);
    expect(exchange.request.headers['content-type']).toBe('application/json');
    expect(Object.keys(exchange.request.headers).filter((name) => name.startsWith(':'))).toEqual([]);
    expect(Object.keys(exchange.response.headers).filter((name) => name.startsWith(':'))).toEqual([]);
  });

  test('records a stream frame by frame through the proxy', async () => {
    const standIn = closing(await startStandInUpstream());
    const tape = `${dir}/recorded-stream.jsonl`;
    const proxy = closing(await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: standIn.url }, log: () => undefined }));
    const session = await connectHttp2(proxy.url, closing);
    const answer = await http2Request(session, ask({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'Count to three' }] }));
    expect(answer.status).toBe(200);
    expect(answer.body.equals(sample('openai/chat-stream-text.sse'))).toBe(true);
    await proxy.close();
    const frames = loadTape(tape).exchanges[0]!.exchange.response.stream!.frames;
    expect(frames.map((frame) => ('text' in frame ? frame.text : ''))).toEqual(sseFrames('openai/chat-stream-text.sse'));
  });

  test('shares the port with HTTP/1.1 clients, served at the same time', async () => {
    const proxy = await replaying();
    const session = await connectHttp2(proxy.url, closing);
    // An HTTP/2 stream in flight (its frames GAP_MS apart) while HTTP/1.1 requests come and go.
    const streaming = http2Request(session, ask(STREAMED));
    const overHttp1 = await Promise.all(
      [1, 2, 3].map(() => fetch(`${proxy.url}${CHAT}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ASKED) })),
    );
    const bodies = await Promise.all(overHttp1.map((response) => response.json()));
    expect(overHttp1.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(bodies).toEqual([ANSWER, ANSWER, ANSWER]);
    // Two more on HTTP/2 at the same time, on the same session.
    const more = await Promise.all([http2Request(session, ask(ASKED)), http2Request(session, ask(ASKED))]);
    expect(more.map((answer) => JSON.parse(answer.body.toString('utf8')))).toEqual([ANSWER, ANSWER]);
    const streamed = await streaming;
    expect(streamed.body.toString('utf8')).toBe(FRAMES.join(''));
    expect((await proxy.close()).hits).toBe(6);
  });

  test("is what the AWS SDK's Bedrock Runtime client speaks to an http:// endpoint, and it gets its answer", async () => {
    const converse = {
      output: { message: { role: 'assistant', content: [{ text: 'fake hello' }] } },
      stopReason: 'end_turn',
      usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
      metrics: { latencyMs: 1 },
    };
    const standIn = closing(await startStandInUpstream(() => ({ body: JSON.stringify(converse), headers: { 'x-amzn-requestid': 'fake-request-0' } })));
    const proxy = closing(await startProxy({ tape: `${dir}/unused.jsonl`, mode: 'passthrough', upstreams: { models: standIn.url }, log: () => undefined }));
    const client = new BedrockRuntimeClient({
      region: 'us-east-1',
      endpoint: `${proxy.url}/models`,
      credentials: { accessKeyId: 'AKIAFAKEFAKEFAKE0000', secretAccessKey: 'fake-secret-for-tests' },
      maxAttempts: 1,
    });
    closing({ close: async () => client.destroy() });
    const answer = await client.send(new ConverseCommand({ modelId: 'fake.model-v1', messages: [{ role: 'user', content: [{ text: 'hi' }] }] }));
    expect(answer.output).toEqual(converse.output);
    expect(standIn.received.map((request) => [request.method, request.url])).toEqual([['POST', '/model/fake.model-v1/converse']]);
    // Its headers forwarded as an HTTP/1.1 client's: the signature's among them, no pseudo-header.
    // (Over HTTP/2 the SDK signs `:authority`, not `host`: a real upstream needs the request re-signed.)
    const heard = standIn.received[0]!.headers;
    expect(Object.keys(heard).filter((name) => name.startsWith(':'))).toEqual([]);
    expect(heard['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
    expect(heard.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAFAKEFAKEFAKE0000\//);
    expect((await proxy.close()).passthrough).toBe(1);
  });
});
