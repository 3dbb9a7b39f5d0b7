import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { startProxy } from 'modeltape/proxy';
import { assertSurvivedChaos, modeltapeMatchers, openTape } from 'modeltape/replay';
import { closeAfterEach } from '../support/close-after-each.js';
import { startStandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

expect.extend(modeltapeMatchers);

const PROMPTS = ['one', 'two', 'three', 'four'];

// Chaos replay: a real tape replayed with faults at exchanges chosen from a seed. The retry after
// a fault is answered from the tape, so a client that retries passes and one that does not fails.
describe('chaos replay', () => {
  const dir = tempDir({ scope: 'file' });
  const closing = closeAfterEach();

  let tapes = 0;
  async function recorded(streamed = false): Promise<string> {
    const tape = `${dir}/chaos-${++tapes}.jsonl`;
    const upstream = closing(
      await startStandInUpstream((request) => {
        const asked = JSON.parse(request.body).messages[0].content as string;
        if (JSON.parse(request.body).stream === true) {
          const chunk = (delta: Record<string, unknown>, finish: string | null) =>
            `data: ${JSON.stringify({ id: `chatcmpl-${asked}`, object: 'chat.completion.chunk', created: 1770000000, model: 'gpt-4o-mini', choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] })}\n\n`;
          const words = ['answer', ' ', asked, ' streamed'];
          return {
            headers: { 'content-type': 'text/event-stream; charset=utf-8', 'x-request-id': `req_${asked}_stream` },
            frames: [
              chunk({ role: 'assistant', content: '' }, null),
              ...words.map((word) => chunk({ content: word }, null)),
              chunk({}, 'stop'),
              'data: [DONE]\n\n',
            ],
          };
        }
        return {
          headers: { 'content-type': 'application/json', 'x-request-id': `req_${asked}` },
          body: JSON.stringify({
            id: `chatcmpl-${asked}`,
            object: 'chat.completion',
            created: 1770000000,
            model: 'gpt-4o-mini',
            choices: [{ index: 0, message: { role: 'assistant', content: `answer ${asked}`, refusal: null }, finish_reason: 'stop', logprobs: null }],
            usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
          }),
        };
      }),
    );
    const proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: upstream.url }, log: () => undefined });
    const client = new OpenAI({ apiKey: 'sk-fake-chaos-recording', baseURL: proxy.baseUrls.openai, maxRetries: 0 });
    for (const content of PROMPTS) await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] });
    if (streamed) {
      const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'flowing' }], stream: true });
      for await (const _ of stream);
    }
    await proxy.close();
    return tape;
  }

  async function ask(client: OpenAI): Promise<string[]> {
    const answers: string[] = [];
    for (const content of PROMPTS) {
      const completion = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] });
      answers.push(completion.choices[0]!.message.content!);
    }
    return answers;
  }

  test('plans its faults from the seed alone: the same seed the same faults, at least one, none fired before a request', async () => {
    const tape = await recorded();
    const plan = async (seed: number | string, rate = 0.5) => closing(await openTape(tape, { config: false, chaos: { seed, rate } })).summary().chaos!;
    const first = await plan(7);
    expect(await plan(7)).toEqual(first);
    expect(first.faults.every((fault) => !fault.fired)).toBe(true);
    expect(first.faults.length).toBeGreaterThan(0);
    // Other seeds choose other exchanges or kinds.
    const others = await Promise.all([1, 2, 3, 4, 5, 6].map((seed) => plan(seed)));
    expect(others.some((other) => JSON.stringify(other.faults) !== JSON.stringify(first.faults))).toBe(true);
    // A rate too small to pick any exchange still faults one: a chaos run that injects nothing checks nothing.
    expect((await plan('tiny', 1e-9)).faults).toHaveLength(1);
    // Every exchange at rate 1, each named by its tape line.
    expect((await plan(7, 1)).faults.map((fault) => fault.line)).toEqual([2, 3, 4, 5]);
  });

  test('the official client retries every fault in process and gets every recorded answer; the retry is a hit, not a miss', async () => {
    const tape = await recorded();
    const session = closing(
      await openTape(tape, { config: false, chaos: { seed: 'ci', rate: 1, kinds: ['rate-limited', 'server-error', 'unavailable', 'overloaded'] } }),
    );
    const client = new OpenAI({ apiKey: 'sk-fake-chaos', baseURL: 'https://api.openai.com/v1', fetch: session.fetch, maxRetries: 2 });
    expect(await ask(client)).toEqual(PROMPTS.map((prompt) => `answer ${prompt}`));
    const summary = session.summary();
    expect(summary).toMatchObject({ hits: 4, misses: 0, upstreamConnections: 0 });
    expect(summary.chaos!.faults.map((fault) => fault.fired)).toEqual([true, true, true, true]);
    assertSurvivedChaos(session);
    expect(session).toHaveSurvivedChaos();
  });

  test('a fault is the provider’s own error, marked as chaos with its seed; a dropped connection is a connection error', async () => {
    const tape = await recorded();
    const session = closing(await openTape(tape, { config: false, chaos: { seed: 3, rate: 1, kinds: ['rate-limited'], retryAfterMs: 1500 } }));
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'one' }] });
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body };
    const fault = await session.fetch('https://api.openai.com/v1/chat/completions', init);
    expect(fault.status).toBe(429);
    expect(fault.headers.get('x-modeltape-chaos')).toBe('rate-limited');
    expect(fault.headers.get('retry-after-ms')).toBe('1500');
    expect(fault.headers.get('retry-after')).toBe('2');
    const error = (await fault.json()) as { error: { code: string; message: string } };
    expect(error.error.code).toBe('rate_limit_exceeded');
    expect(error.error.message).toContain('(modeltape chaos, seed 3)');
    // The retry gets the recording.
    const retried = await session.fetch('https://api.openai.com/v1/chat/completions', init);
    expect(((await retried.json()) as { id: string }).id).toBe('chatcmpl-one');

    const dropping = closing(await openTape(tape, { config: false, chaos: { seed: 3, rate: 1, kinds: ['drop-connection'] } }));
    await expect(dropping.fetch('https://api.openai.com/v1/chat/completions', init)).rejects.toThrow(
      expect.objectContaining({ name: 'TypeError', message: 'fetch failed', cause: expect.objectContaining({ code: 'UND_ERR_SOCKET' }) }),
    );
    expect((await dropping.fetch('https://api.openai.com/v1/chat/completions', init)).status).toBe(200);
  });

  test('over HTTP (session.baseUrls) the same: 5xx and dropped connections, retried by the client, with no upstream connection', async () => {
    const tape = await recorded();
    // The first seed whose plan holds both kinds (the plan is known before any request).
    let session = closing(await openTape(tape, { config: false, chaos: { seed: 'http-0', rate: 1, kinds: ['drop-connection', 'unavailable'] } }));
    for (let seed = 1; new Set(session.summary().chaos!.faults.map((fault) => fault.kind)).size < 2; seed++) {
      session = closing(await openTape(tape, { config: false, chaos: { seed: `http-${seed}`, rate: 1, kinds: ['drop-connection', 'unavailable'] } }));
    }
    const client = new OpenAI({ apiKey: 'sk-fake-chaos', baseURL: session.baseUrls.openai, maxRetries: 2 });
    expect(await ask(client)).toEqual(PROMPTS.map((prompt) => `answer ${prompt}`));
    expect(session.summary()).toMatchObject({ hits: 4, misses: 0, upstreamConnections: 0 });
    expect(new Set(session.summary().chaos!.faults.map((fault) => fault.kind))).toEqual(new Set(['drop-connection', 'unavailable']));
    assertSurvivedChaos(session);
  });

  test('a client that does not retry fails visibly, and assertSurvivedChaos names the faults that never fired and the recordings left', async () => {
    const tape = await recorded();
    const session = closing(await openTape(tape, { config: false, chaos: { seed: 9, rate: 1, kinds: ['server-error'] } }));
    const fragile = new OpenAI({ apiKey: 'sk-fake-chaos', baseURL: 'https://api.openai.com/v1', fetch: session.fetch, maxRetries: 0 });
    await expect(ask(fragile)).rejects.toThrow(OpenAI.InternalServerError);
    expect(() => assertSurvivedChaos(session)).toThrow(/never fired[\s\S]*never used/);
    expect(session).not.toHaveSurvivedChaos();
  });

  test('assertSurvivedChaos fails a session without chaos, and one where no request met a fault', async () => {
    const tape = await recorded();
    const plain = closing(await openTape(tape, { config: false }));
    const client = new OpenAI({ apiKey: 'sk-fake-chaos', baseURL: 'https://api.openai.com/v1', fetch: plain.fetch, maxRetries: 0 });
    await ask(client);
    expect(() => assertSurvivedChaos(plain)).toThrow(/replayed without chaos/);

    const untouched = closing(await openTape(tape, { config: false, chaos: { seed: 1 } }));
    expect(() => assertSurvivedChaos(untouched)).toThrow(/no request reached the tape|no chaos fault fired/);
  });

  test('stream-cut sends the first frames of a recorded stream, then drops: the client sees a broken stream, and its retry the whole one', async () => {
    const tape = await recorded(true);
    const streamText = async (client: OpenAI): Promise<{ text: string; error?: Error }> => {
      let text = '';
      try {
        const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'flowing' }], stream: true });
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
        return { text };
      } catch (error) {
        return { text, error: error as Error };
      }
    };
    for (const over of ['in process', 'http'] as const) {
      const session = closing(await openTape(tape, { config: false, chaos: { seed: `cut-${over}`, rate: 1, kinds: ['stream-cut'] } }));
      // Only the streamed exchange (7 frames) can be cut: the plain ones get no fault.
      const [fault, ...others] = session.summary().chaos!.faults;
      expect(others).toEqual([]);
      expect(fault).toMatchObject({ line: 6, kind: 'stream-cut' });
      expect(fault!.afterFrames).toBeGreaterThanOrEqual(1);
      expect(fault!.afterFrames).toBeLessThanOrEqual(6);
      const client = new OpenAI({
        apiKey: 'sk-fake-chaos',
        maxRetries: 0,
        ...(over === 'http' ? { baseURL: session.baseUrls.openai } : { baseURL: 'https://api.openai.com/v1', fetch: session.fetch }),
      });
      await ask(client);
      const broken = await streamText(client);
      expect(broken.error, over).toBeDefined();
      // What arrived before the cut is a part of the answer, never all of it.
      expect('answer flowing streamed'.startsWith(broken.text) && broken.text !== 'answer flowing streamed', over).toBe(true);
      expect(await streamText(client), over).toEqual({ text: 'answer flowing streamed' });
      assertSurvivedChaos(session);
    }
    // The bytes themselves: the first frames, then fetch's own error for a body cut short.
    const raw = closing(await openTape(tape, { config: false, chaos: { seed: 'raw', rate: 1, kinds: ['stream-cut'] } }));
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'flowing' }], stream: true });
    const response = await raw.fetch('https://api.openai.com/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-modeltape-chaos')).toBe('stream-cut');
    const reader = response.body!.getReader();
    let received = 0;
    const ended = await (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return undefined;
        received += value.length;
      }
    })().catch((error: unknown) => error);
    expect(ended).toMatchObject({ name: 'TypeError', message: 'terminated', cause: { code: 'UND_ERR_SOCKET' } });
    expect(received).toBeGreaterThan(0);

    const plain = await recorded();
    await expect(openTape(plain, { config: false, chaos: { seed: 1, kinds: ['stream-cut'] } })).rejects.toThrow(/stream-cut needs a recorded stream/);
  });

  test('drop-after-headers sends the recorded status and headers, then drops before the body: the body read fails, and a retry gets the recording', async () => {
    const tape = await recorded();
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'one' }] });
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body };
    for (const over of ['in process', 'http'] as const) {
      const session = closing(await openTape(tape, { config: false, chaos: { seed: `headers-${over}`, rate: 1, kinds: ['drop-after-headers'] } }));
      const url = over === 'http' ? `${session.baseUrls.openai}/chat/completions` : 'https://api.openai.com/v1/chat/completions';
      const response = await session.fetch(url, init);
      expect(response.status, over).toBe(200);
      expect(response.headers.get('x-request-id'), over).toBe('req_one');
      expect(response.headers.get('x-modeltape-chaos'), over).toBe('drop-after-headers');
      await expect(response.text(), over).rejects.toMatchObject({ name: 'TypeError', message: 'terminated' });
      const retried = await session.fetch(url, init);
      expect(((await retried.json()) as { id: string }).id, over).toBe('chatcmpl-one');
      // The openai SDK retries what fails before the headers, not a body cut after them: the caller sees it.
      const client = new OpenAI({
        apiKey: 'sk-fake-chaos',
        maxRetries: 2,
        ...(over === 'http' ? { baseURL: session.baseUrls.openai } : { baseURL: 'https://api.openai.com/v1', fetch: session.fetch }),
      });
      const answers: Array<string | Error> = [];
      for (const content of PROMPTS.slice(1))
        answers.push(
          await client.chat.completions
            .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }] })
            .then((completion) => completion.choices[0]!.message.content!)
            .catch((error: Error) => error),
        );
      expect(
        answers.every((answer) => answer instanceof Error),
        over,
      ).toBe(true);
      expect(
        session.summary().chaos!.faults.every((fault) => fault.fired),
        over,
      ).toBe(true);
    }
  });

  test('stall answers nothing until the client gives up: a client with a timeout retries into the recording, and closing the session frees what is held', async () => {
    const tape = await recorded();
    for (const over of ['in process', 'http'] as const) {
      const session = closing(await openTape(tape, { config: false, chaos: { seed: `stall-${over}`, rate: 0.3, kinds: ['stall'] } }));
      const faults = session.summary().chaos!.faults;
      expect(faults.length, over).toBeGreaterThan(0);
      expect(
        faults.every((fault) => fault.kind === 'stall'),
        over,
      ).toBe(true);
      const patient = new OpenAI({
        apiKey: 'sk-fake-chaos',
        maxRetries: 2,
        timeout: 200,
        ...(over === 'http' ? { baseURL: session.baseUrls.openai } : { baseURL: 'https://api.openai.com/v1', fetch: session.fetch }),
      });
      expect(await ask(patient), over).toEqual(PROMPTS.map((prompt) => `answer ${prompt}`));
      assertSurvivedChaos(session);
    }
    // A client without a timeout waits until the session closes, which drops what it held.
    const held = await openTape(tape, { config: false, chaos: { seed: 'held', rate: 1, kinds: ['stall'] } });
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'one' }] });
    const waiting = fetch(`${held.baseUrls.openai}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).catch(
      (error: unknown) => error,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await held.close();
    expect(await waiting).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
    // Stall is asked for by name: the kinds chosen by default leave it out.
    const defaults = closing(await openTape(tape, { config: false, chaos: { seed: 2, rate: 1 } }));
    expect(defaults.summary().chaos!.kinds).not.toContain('stall');
    expect(defaults.summary().chaos!.kinds).toContain('drop-after-headers');
  });

  test('FakeProvider.fromTape takes chaos too, and chaos refuses to run where it would record', async () => {
    const tape = await recorded();
    const fake = FakeProvider.fromTape(tape, { chaos: { seed: 5, rate: 1, kinds: ['overloaded'] } });
    const client = new OpenAI({ apiKey: 'sk-fake-chaos', baseURL: 'https://api.openai.com/v1', fetch: fake.fetch, maxRetries: 1 });
    expect(await ask(client)).toEqual(PROMPTS.map((prompt) => `answer ${prompt}`));
    expect(fake.summary().chaos!.faults.every((fault) => fault.fired && fault.kind === 'overloaded')).toBe(true);
    fake.assertConsumed();

    await expect(openTape(tape, { config: false, mode: 'auto', allowRecordInCi: true, chaos: { seed: 1 } })).rejects.toThrow(/Chaos replays a recorded tape/);
    await expect(openTape(tape, { config: false, chaos: { seed: 1, rate: 2 } })).rejects.toThrow(/Invalid chaos rate 2/);
    await expect(openTape(tape, { config: false, chaos: { seed: 1, kinds: ['meteor' as never] } })).rejects.toThrow(/chaos kind/);
  });
});
