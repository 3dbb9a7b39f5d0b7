import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';

describe('chat and messages accept what the providers accept', () => {
  test('a chat request that offers a custom tool (type "custom") is answered, not refused as a bad function name', async () => {
    const fake = new FakeProvider().willSay('No code needed.');
    const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const completion = await openai.chat.completions.create({
      model: 'gpt-5',
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [{ type: 'custom', custom: { name: 'code_exec', description: 'Runs Python' } }],
    });
    expect(completion.choices[0]!.message.content).toBe('No code needed.');
  });

  // The first-party API accepts an assistant-first conversation (anthropics/anthropic-sdk-typescript#622:
  // "succeeds on Anthropic but fails on Bedrock"); apps that trim history send one.
  test('an Anthropic conversation that opens with an assistant message is answered', async () => {
    const fake = new FakeProvider().willSay('Blue.');
    const anthropic = new Anthropic({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const message = await anthropic.messages.create({
      model: 'claude-opus-4-8',
      max_tokens: 10,
      messages: [
        { role: 'assistant', content: 'How can I help?' },
        { role: 'user', content: 'What colour is the sky?' },
      ],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Blue.' }]);
  });
});
