import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';

const empty = { type: 'object' as const, properties: {} };

describe('tool_choice is respected', () => {
  test('an unscripted Anthropic turn with tool_choice none answers with text, not a tool call', async () => {
    const fake = new FakeProvider();
    const anthropic = new Anthropic({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const message = await anthropic.messages.create({
      model: 'claude-opus-4-8',
      max_tokens: 100,
      tool_choice: { type: 'none' },
      tools: [{ name: 'f', input_schema: empty }],
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(message.stop_reason).toBe('end_turn');
    expect(message.content.map((block) => block.type)).toEqual(['text']);
  });

  test('an unscripted chat turn that forces a function calls that function, not the first one offered', async () => {
    const fake = new FakeProvider();
    const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const completion = await openai.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'x' }],
      tool_choice: { type: 'function', function: { name: 'b' } },
      tools: [
        { type: 'function', function: { name: 'a', parameters: empty } },
        { type: 'function', function: { name: 'b', parameters: empty } },
      ],
    });
    const calls = completion.choices[0]!.message.tool_calls!;
    expect(calls.map((call) => (call.type === 'function' ? call.function.name : call.type))).toEqual(['b']);
  });

  test('a scripted tool call for a request with tool_choice none does not fit the request', async () => {
    const fake = new FakeProvider().willCallTool('a', {});
    const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    await expect(
      openai.chat.completions.create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'x' }],
        tool_choice: 'none',
        tools: [{ type: 'function', function: { name: 'a', parameters: empty } }],
      }),
    ).rejects.toThrow(/does not fit/);
    expect(fake.problems()).toHaveLength(1);
  });
});
