import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, test } from 'vitest';
import { startProxy } from 'modeltape/proxy';
import { closeAfterEach } from '../support/close-after-each.js';
import { recordTape } from '../support/record-tape.js';
import { tempDir } from '../support/temp-dir.js';

const conversation = (city: string) => [
  { role: 'system' as const, content: 'You are a shipping assistant.' },
  { role: 'user' as const, content: `Ship the parcel to ${city}` },
];

describe('a request that was not recorded', () => {
  const dir = tempDir();
  const closing = closeAfterEach();

  test('makes the openai SDK throw, once, an error naming the tape, the nearest line and .messages[1].content', async () => {
    const tape = `${dir}/drift.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      const client = new OpenAI({ apiKey: 'fake-key', baseURL: openai, maxRetries: 0 });
      await client.chat.completions.create({ model: 'gpt-4.1-nano', messages: [{ role: 'user', content: 'unrelated' }] });
      await client.chat.completions.create({ model: 'gpt-4.1-nano', messages: conversation('Paris') });
    });

    const proxy = closing(await startProxy({ tape, env: {} }));
    // Default retries on: a retryable status would show up as three misses.
    const client = new OpenAI({ apiKey: 'fake-key', baseURL: proxy.baseUrls.openai });
    const error = await client.chat.completions.create({ model: 'gpt-4.1-nano', messages: conversation('Lyon') }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const message = (error as Error).message;
    expect(message).toContain('Failed to replay POST /openai/v1/chat/completions: no recorded exchange matches.');
    expect(message).toContain(`${tape} (2 exchanges, nearest at ${tape}:3)`);
    expect(message).toContain('at .messages[1].content: recorded "Ship the parcel to Paris" sent "Ship the parcel to Lyon"');
    expect(message).toContain('Record it with --mode auto');
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ type: 'modeltape_replay_miss', code: 'modeltape_replay_miss' });
    const summary = await proxy.close();
    expect(summary).toMatchObject({ hits: 0, misses: 1, upstreamConnections: 0 });
    expect(summary.problems[0]).toContain('.messages[1].content');
  });

  test('makes @anthropic-ai/sdk throw an Anthropic-shaped error naming the differing content path', async () => {
    const tape = `${dir}/drift-anthropic.jsonl`;
    await recordTape(tape, async ({ anthropic }) => {
      const client = new Anthropic({ apiKey: 'fake-key', baseURL: anthropic, maxRetries: 0 });
      await client.messages.create({ model: 'claude-opus-4-8', max_tokens: 64, messages: [{ role: 'user', content: 'Ship the parcel to Paris' }] });
    });

    const proxy = closing(await startProxy({ tape, env: {} }));
    const client = new Anthropic({ apiKey: 'fake-key', baseURL: proxy.baseUrls.anthropic });
    const error = await client.messages
      .create({ model: 'claude-opus-4-8', max_tokens: 64, messages: [{ role: 'user', content: 'Ship the parcel to Lyon' }] })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as Error).message).toContain('at .messages[0].content: recorded "Ship the parcel to Paris" sent "Ship the parcel to Lyon"');
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({ type: 'error', error: { type: 'modeltape_replay_miss' } });
    expect((await proxy.close()).misses).toBe(1);
  });

  test('a number sent where text was recorded is reported as a change of kind', async () => {
    const tape = `${dir}/kind.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      await new OpenAI({ apiKey: 'fake-key', baseURL: openai, maxRetries: 0 }).chat.completions.create({
        model: 'gpt-4.1-nano',
        messages: conversation('Paris'),
        temperature: 0.2,
      });
    });
    const proxy = closing(await startProxy({ tape, env: {} }));
    const response = await fetch(`${proxy.baseUrls.openai}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4.1-nano', messages: conversation('Paris'), temperature: '0.2' }),
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('x-should-retry')).toBe('false');
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toContain('at .temperature: recorded a number (0.2) sent text ("0.2")');
  });
});
