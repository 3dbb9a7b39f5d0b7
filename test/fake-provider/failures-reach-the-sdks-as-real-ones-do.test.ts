import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, test } from 'vitest';
import { FakeProvider, failures } from 'modeltape/fake-provider';
import { clientsFor, TRANSPORTS, type FakeClients } from '../support/fake-clients.js';

describe.each(TRANSPORTS)('scripted failures over %s', (transport) => {
  let clients: FakeClients | undefined;
  afterEach(async () => {
    await clients?.close();
    clients = undefined;
  });
  const chat = (c: FakeClients, extra: object = {}) =>
    c.openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], ...extra });

  test('a 429 with retry-after-ms is retried by the SDK at once, and the retry gets the next step', async () => {
    const fake = new FakeProvider().willFail(failures.rateLimited({ retryAfterMs: 0 })).willSay('after the retry');
    clients = await clientsFor(fake, transport, { maxRetries: 2 });
    const completion = await chat(clients);
    expect(completion.choices[0]!.message.content).toBe('after the retry');
    expect(fake.calls().map((call) => call.status)).toEqual([429, 200]);
    expect(fake.calls()[1]!.headers['x-stainless-retry-count']).toBe('1');
  });

  test.each([
    ['serverError', failures.serverError(), OpenAI.InternalServerError, 500],
    ['unavailable', failures.unavailable(), OpenAI.InternalServerError, 503],
    ['overloaded (OpenAI answers 503)', failures.overloaded(), OpenAI.InternalServerError, 503],
    ['rateLimited', failures.rateLimited(), OpenAI.RateLimitError, 429],
  ] as const)('openai raises %s with the status a real provider sends', async (_name, failure, errorClass, status) => {
    const fake = new FakeProvider().willFail(failure);
    clients = await clientsFor(fake, transport);
    const error = await chat(clients).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(errorClass);
    expect((error as { status: number }).status).toBe(status);
  });

  test('Anthropic 529 overloaded is an OverloadedError', async () => {
    const fake = new FakeProvider().willFail(failures.overloaded());
    clients = await clientsFor(fake, transport);
    const error = await clients.anthropic.messages
      .create({ model: 'claude-opus-4-8', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect((error as { status: number }).status).toBe(529);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect((error as { error: { error: { type: string } } }).error.error.type).toBe('overloaded_error');
  });

  test('an error event in the middle of a stream makes both SDKs throw after the first chunks', async () => {
    const fake = new FakeProvider()
      .willFail(failures.streamError({ afterChunks: 2, message: 'boom mid-stream' }))
      .willFail(failures.streamError({ afterChunks: 3 }));
    clients = await clientsFor(fake, transport);
    const seen: string[] = [];
    const stream = clients.openai.chat.completions.stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    stream.on('content', (delta) => seen.push(delta));
    await expect(stream.finalChatCompletion()).rejects.toThrow(/boom mid-stream/);
    expect(seen.length).toBeGreaterThan(0);
    const anthropicStream = clients.anthropic.messages.stream({ model: 'claude-opus-4-8', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    await expect(anthropicStream.finalMessage()).rejects.toThrow(/Overloaded/);
  });

  test('a dropped connection surfaces as a connection error, before the headers and mid-stream', async () => {
    const fake = new FakeProvider().willFail(failures.dropConnection()).willFail(failures.dropConnection({ afterChunks: 2 }));
    clients = await clientsFor(fake, transport);
    await expect(chat(clients)).rejects.toBeInstanceOf(OpenAI.APIConnectionError);
    const stream = clients.openai.chat.completions.stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    // Not a stream that ended cleanly without its finish chunk: the connection itself broke.
    const error = await stream.finalChatCompletion().catch((caught: unknown) => caught);
    expect(String((error as Error).message) + String((error as { cause?: unknown }).cause)).toMatch(/terminated|other side closed|socket|aborted/i);
    expect(fake.calls()).toHaveLength(2);
  });

  test('a hang never answers: the SDK gives up at its timeout', async () => {
    const fake = new FakeProvider().willFail(failures.hang());
    clients = await clientsFor(fake, transport);
    await expect(
      clients.openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }, { timeout: 200 }),
    ).rejects.toBeInstanceOf(OpenAI.APIConnectionTimeoutError);
  });

  test('a delay holds the answer back with an injected sleep, then answers', async () => {
    const slept: number[] = [];
    const fake = new FakeProvider({ sleep: async (milliseconds) => void slept.push(milliseconds) })
      .willFail(failures.delay(1500))
      .willSay('late', { delayMs: 250 });
    clients = await clientsFor(fake, transport);
    const first = await chat(clients);
    expect(first.choices[0]!.message.content).toMatch(/fake answer/);
    expect((await chat(clients)).choices[0]!.message.content).toBe('late');
    expect(slept).toEqual([1500, 250]);
  });
});
