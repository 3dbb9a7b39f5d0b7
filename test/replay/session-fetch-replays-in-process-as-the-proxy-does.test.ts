import { createHook } from 'node:async_hooks';
import { describe, expect, test } from 'vitest';
import { openTape, type TapeSession } from 'modeltape/replay';
import { startProxy } from 'modeltape/proxy';
import { closeAfterEach } from '../support/close-after-each.js';
import { startStandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// In replay, session.fetch is answered in process by the proxy's own decision: no socket, and
// for every kind of request the same status, headers, bytes and counts as over HTTP.
describe('session.fetch in replay', () => {
  const dir = tempDir({ scope: 'file' });
  const closing = closeAfterEach();
  const json = (content: string, extra: Record<string, unknown> = {}): string =>
    JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], ...extra });
  const headers = { 'content-type': 'application/json', authorization: 'Bearer sk-fake-in-process' };

  let tapes = 0;
  async function recorded(gapMs = 0): Promise<string> {
    const tape = `${dir}/in-process-${++tapes}.jsonl`;
    const upstream = closing(await startStandInUpstream());
    if (gapMs > 0) upstream.beforeFrame = (index) => (index === 0 ? undefined : new Promise((resolve) => setTimeout(resolve, gapMs)));
    const proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: upstream.url }, log: () => undefined });
    for (const body of [json('plain'), json('streamed', { stream: true })]) {
      await (await fetch(`${proxy.url}/openai/v1/chat/completions`, { method: 'POST', headers, body })).arrayBuffer();
    }
    await proxy.close();
    return tape;
  }

  // Every kind of answer the proxy gives: hits (JSON, SSE), a miss with a diff, an exhausted
  // recording, a refused body over the limit, a path that would leave its base, an unknown upstream.
  const requests = (origin: string): Array<[string, RequestInit]> => [
    [`${origin}/openai/v1/chat/completions`, { method: 'POST', headers, body: json('plain') }],
    [`${origin}/openai/v1/chat/completions`, { method: 'POST', headers, body: json('streamed', { stream: true }) }],
    [`${origin}/openai/v1/chat/completions`, { method: 'POST', headers, body: json('never recorded') }],
    [`${origin}/openai/v1/chat/completions`, { method: 'POST', headers, body: json('plain') }],
    [`${origin}/openai/v1/chat/completions`, { method: 'POST', headers, body: json('x'.repeat(3000)) }],
    [`${origin}/openai/v1/%252e%252e/admin`, { method: 'GET' }],
    [`${origin}/nowhere/v1/models`, { method: 'GET' }],
  ];

  async function answers(session: TapeSession, send: typeof fetch, origin: string): Promise<unknown[]> {
    const seen: unknown[] = [];
    for (const [url, init] of requests(origin)) {
      const response = await send(url, init);
      const kept = ['content-type', 'content-length', 'x-modeltape-error', 'x-should-retry', 'x-request-id', 'set-cookie'];
      seen.push({ status: response.status, headers: kept.map((name) => [name, response.headers.get(name)]), body: await response.text() });
    }
    const { hits, misses, refused, internalErrors, problems, missErrors } = session.summary();
    seen.push({ hits, misses, refused, internalErrors, problems, misses_explained: missErrors.map((miss) => miss.message) });
    return seen;
  }

  test('answers every kind of request as the proxy does over HTTP, opening no socket', async () => {
    const tape = await recorded();
    const options = { config: false, limits: { requestBodyBytes: 2048 } } as const;

    const overHttp = closing(await openTape(tape, options));
    const expected = await answers(overHttp, fetch, overHttp.baseUrls.url);

    const inProcess = closing(await openTape(tape, options));
    let connects = 0;
    const hook = createHook({
      init(_id, type) {
        if (type === 'TCPCONNECTWRAP' || type === 'TCPWRAP') connects++;
      },
    }).enable();
    let got: unknown[];
    try {
      // Addressed to the proxy's own origin (a client given both the base URL and the fetch), so
      // that a refused path and an unknown upstream can be asked too.
      got = await answers(inProcess, inProcess.fetch, inProcess.baseUrls.url);
    } finally {
      hook.disable();
    }
    expect(connects).toBe(0);
    expect(got).toEqual(expected);
    const statuses = (expected.slice(0, -1) as Array<{ status: number }>).map((answer) => answer.status);
    expect(statuses).toEqual([200, 200, 400, 400, 413, 400, 404]);
    expect(expected.at(-1)).toMatchObject({ hits: 2, misses: 2, refused: 2, internalErrors: 0 });
    expect((expected[1] as { body: string }).body).toContain('data: [DONE]');
  });

  test('a provider URL is answered in process, keyed as the proxy keys it', async () => {
    const tape = await recorded();
    const session = closing(await openTape(tape, { config: false }));
    let connects = 0;
    const hook = createHook({
      init(_id, type) {
        if (type === 'TCPCONNECTWRAP') connects++;
      },
    }).enable();
    try {
      const response = await session.fetch('https://api.openai.com/v1/chat/completions', { method: 'POST', headers, body: json('plain') });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { object: string }).object).toBe('chat.completion');
    } finally {
      hook.disable();
    }
    expect(connects).toBe(0);
    expect(session.summary()).toMatchObject({ hits: 1, misses: 0, upstreamConnections: 0 });
  });

  test('after close() it refuses, saying why, instead of answering from a closed tape', async () => {
    const tape = await recorded();
    const session = await openTape(tape, { config: false });
    await session.close();
    await expect(session.fetch('https://api.openai.com/v1/chat/completions', { method: 'POST', headers, body: json('plain') })).rejects.toMatchObject({
      code: 'session_closed',
      message: expect.stringContaining('after the session on'),
    });
  });

  test("onMiss: 'nearest' answers a drifted request as its nearest recording, and counts the miss", async () => {
    const tape = await recorded();
    const session = closing(await openTape(tape, { config: false, onMiss: 'nearest' }));
    const response = await session.fetch('https://api.openai.com/v1/chat/completions', { method: 'POST', headers, body: json('plainly drifted') });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { object: string }).object).toBe('chat.completion');
    expect(session.summary()).toMatchObject({ hits: 0, misses: 1 });
    expect(session.summary().missErrors[0]!.message).toContain('plainly drifted');
  });

  test("pace: 'recorded' streams the frames apart, and an abort stops the stream", async () => {
    const tape = await recorded(40);
    const session = closing(await openTape(tape, { config: false, pace: 'recorded' }));
    const streamed = { method: 'POST', headers, body: json('streamed', { stream: true }) };
    const response = await session.fetch('https://api.openai.com/v1/chat/completions', streamed);
    const chunks: string[] = [];
    const decoder = new TextDecoder();
    for await (const chunk of response.body!) chunks.push(decoder.decode(chunk));
    // Frames 40 ms apart arrive as chunks of their own, in order, the whole stream.
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.join('')).toContain('data: [DONE]');

    const again = closing(await openTape(tape, { config: false, pace: 'recorded', repeat: 'last' }));
    const controller = new AbortController();
    const aborted = await again.fetch('https://api.openai.com/v1/chat/completions', { ...streamed, signal: controller.signal });
    const reader = aborted.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
  });
});
