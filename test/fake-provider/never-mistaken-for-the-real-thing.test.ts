import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, test } from 'vitest';
import { FAKE_HEADER, FakeProvider } from 'modeltape/fake-provider';
import { startProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { closeAfterEach } from '../support/close-after-each.js';
import { tempDir } from '../support/temp-dir.js';

describe('the fake is never mistaken for a real provider', () => {
  const dir = tempDir();
  const started = closeAfterEach();

  test('ids carry a fake prefix, the fingerprint and model say fake, and a header marks every response', async () => {
    const fake = new FakeProvider().willCallTool('f', {}).willSay('hi').willCallTool('f', {});
    const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const tools = [{ type: 'function' as const, function: { name: 'f', parameters: { type: 'object', properties: {} } } }];
    const { data, response } = await openai.chat.completions.create({ model: 'gpt-4o', tools, messages: [{ role: 'user', content: 'x' }] }).withResponse();
    expect(data.id).toMatch(/^fake-/);
    expect(data.choices[0]!.message.tool_calls![0]!.id).toMatch(/^fake-/);
    expect(data.system_fingerprint).toBe('fp_modeltape_fake');
    expect(data.model).toBe('fake-gpt-4o');
    expect(response.headers.get(FAKE_HEADER)).toBe('1');
    const responses = await openai.responses.create({ model: 'gpt-4o', input: 'x' });
    expect(responses.id).toMatch(/^fake-/);
    expect(responses.model).toBe('fake-gpt-4o');
    const anthropic = new Anthropic({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const message = await anthropic.messages.create({
      model: 'claude-opus-4-8',
      max_tokens: 10,
      tools: [{ name: 'f', input_schema: { type: 'object' } }],
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(message.id).toMatch(/^fake-/);
    expect(message.model).toBe('fake-claude-opus-4-8');
    expect(message.content.find((block) => block.type === 'tool_use')!).toMatchObject({ id: expect.stringMatching(/^fake-/) });
  });

  test('usage is never zero, and grows with the prompt', async () => {
    const fake = new FakeProvider().willSay('').willSay('').willSay('');
    const openai = new OpenAI({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const short = await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] });
    const long = await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(4000) }] });
    expect(short.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(short.usage!.completion_tokens).toBeGreaterThan(0);
    expect(long.usage!.prompt_tokens).toBeGreaterThan(short.usage!.prompt_tokens + 900);
    const anthropic = new Anthropic({ apiKey: 'fake-key', fetch: fake.fetch, maxRetries: 0 });
    const message = await anthropic.messages.create({ model: 'claude-opus-4-8', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] });
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
  });

  test('a tape recorded from the fake through the proxy says source "fake", and --require-live refuses to replay it', async () => {
    const fake = new FakeProvider().willSay('recorded from the fake');
    const server = started(await fake.listen());
    const tape = `${dir}/from-fake.jsonl`;
    const recorder = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: server.url } });
    const openai = new OpenAI({ apiKey: 'fake-key', baseURL: recorder.baseUrls.openai, maxRetries: 0 });
    expect((await openai.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] })).choices[0]!.message.content).toBe(
      'recorded from the fake',
    );
    await recorder.close();
    expect(loadTape(tape).exchanges.map(({ exchange }) => exchange.source)).toEqual(['fake']);

    await expect(startProxy({ tape, requireLive: true })).rejects.toThrow(
      /holds 1 exchange a FakeProvider answered \(source "fake"\), at line 2, and this replay requires live recordings \(--require-live\)/,
    );
    const replay = started(await startProxy({ tape }));
    const replayed = await new OpenAI({ apiKey: 'x', baseURL: replay.baseUrls.openai, maxRetries: 0 }).chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(replayed.choices[0]!.message.content).toBe('recorded from the fake');
  });
});
