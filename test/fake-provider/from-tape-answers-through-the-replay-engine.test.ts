import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { recordTape } from '../support/record-tape.js';
import { tempDir } from '../support/temp-dir.js';

describe('FakeProvider.fromTape', () => {
  const dir = tempDir();

  test('answers in process from a tape the proxy recorded, byte for byte, and explains a miss like the proxy', async () => {
    const tape = `${dir}/tape.jsonl`;
    const recorded = await recordTape(tape, async ({ openai, anthropic }) => {
      const chat = await new OpenAI({ apiKey: 'k', baseURL: openai, maxRetries: 0 }).chat.completions
        .stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Count' }] })
        .finalChatCompletion();
      const message = await new Anthropic({ apiKey: 'k', baseURL: anthropic, maxRetries: 0 }).messages.create({
        model: 'claude-opus-4-8',
        max_tokens: 20,
        messages: [{ role: 'user', content: 'Hi' }],
      });
      return { chat, message };
    });

    const fake = FakeProvider.fromTape(tape);
    const openai = new OpenAI({ apiKey: 'k', fetch: fake.fetch, maxRetries: 0 });
    const anthropic = new Anthropic({ apiKey: 'k', fetch: fake.fetch, maxRetries: 0 });
    const chat = await openai.chat.completions.stream({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Count' }] }).finalChatCompletion();
    const message = await anthropic.messages.create({ model: 'claude-opus-4-8', max_tokens: 20, messages: [{ role: 'user', content: 'Hi' }] });
    expect({ chat, message }).toEqual(recorded);
    fake.assertConsumed();

    await expect(openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Drifted' }] })).rejects.toThrow(
      /no recorded exchange matches[\s\S]*at \.messages\[0\]\.content: recorded "Count" sent "Drifted"/,
    );
    expect(fake.summary()).toMatchObject({ hits: 2, misses: 1 });
    expect(() => fake.assertConsumed()).toThrow(/no recorded exchange matches/);
  });

  test('reports the exchanges a run never used', async () => {
    const tape = `${dir}/unused.jsonl`;
    await recordTape(tape, async ({ openai }) => {
      const client = new OpenAI({ apiKey: 'k', baseURL: openai, maxRetries: 0 });
      await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'one' }] });
      await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'two' }] });
    });
    const fake = FakeProvider.fromTape(tape);
    await new OpenAI({ apiKey: 'k', fetch: fake.fetch, maxRetries: 0 }).chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'one' }],
    });
    expect(() => fake.assertConsumed()).toThrow(
      new RegExp(`never used: ${tape.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:3 POST /v1/chat/completions \\(ordinal 0\\)`),
    );
  });
});
