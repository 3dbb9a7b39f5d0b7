import { describe, expect, test } from 'vitest';
import { FakeProvider } from '../fake-provider.js';
import { failures } from '../failures.js';
import type { WireResponse } from '../wire-response.js';

// The chat surface writes its JSON by hand (the scripted text encoded once); these pin that it
// writes what JSON.stringify of the documented objects writes, byte for byte.

const TEXT = 'Hello "world"\n\t\u0001 é 😀 \u2028.';
const weather = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };

function answer(script: (fake: FakeProvider) => void, body: Record<string, unknown>): WireResponse {
  const fake = new FakeProvider();
  script(fake);
  return fake.answer({
    method: 'POST',
    path: '/v1/chat/completions',
    headers: {},
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
}

const usage = (prompt: number, completion: number) => ({
  prompt_tokens: prompt,
  completion_tokens: completion,
  total_tokens: prompt + completion,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
});

describe('the chat surface', () => {
  test('a completion is the bytes JSON.stringify writes for it, keys in the API order', () => {
    const wire = answer((fake) => fake.willSay(TEXT), {});
    expect(wire.body).toBe(
      JSON.stringify({
        id: 'fake-chatcmpl-0',
        object: 'chat.completion',
        created: 1767225600,
        model: 'fake-gpt-4o-mini',
        choices: [{ index: 0, message: { role: 'assistant', content: TEXT, refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
        usage: usage(5, 6),
        service_tier: 'default',
        system_fingerprint: 'fp_modeltape_fake',
      }),
    );
  });

  test('tool calls, refusals and n choices are written as JSON.stringify writes them', () => {
    const tools = answer((fake) => fake.willCallTool('get_weather', { city: 'Paris' }, { saying: 'Checking.' }), { tools: [weather] });
    const choices = (JSON.parse(String(tools.body)) as { choices: unknown[] }).choices;
    expect(JSON.stringify(choices)).toBe(
      JSON.stringify([
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Checking.',
            refusal: null,
            annotations: [],
            tool_calls: [{ id: 'fake-call-0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ]),
    );
    const refusal = JSON.parse(String(answer((fake) => fake.willSay(TEXT, { finish: 'refusal' }), {}).body)) as { choices: Array<{ message: unknown }> };
    expect(refusal.choices[0]!.message).toEqual({ role: 'assistant', content: null, refusal: TEXT, annotations: [] });
    const two = answer((fake) => fake.willSay(['Yes.', 'No "way".']), { n: 2 });
    expect((JSON.parse(String(two.body)) as { choices: Array<{ message: { content: string } }> }).choices.map((choice) => choice.message.content)).toEqual([
      'Yes.',
      'No "way".',
    ]);
    // Every body above is compact JSON in JSON.stringify's own form (its escapes, its numbers).
    for (const wire of [tools, two]) expect(JSON.stringify(JSON.parse(String(wire.body)))).toBe(wire.body);
  });

  test('every streamed chunk is the bytes JSON.stringify writes for it, the scripted text cut as scripted', () => {
    const wire = answer((fake) => fake.willSay(TEXT, { chunks: { size: 7 } }), { stream: true, stream_options: { include_usage: true } });
    const frames = wire.frames!.map(String);
    const head = {
      id: 'fake-chatcmpl-0',
      object: 'chat.completion.chunk',
      created: 1767225600,
      model: 'fake-gpt-4o-mini',
      service_tier: 'default',
      system_fingerprint: 'fp_modeltape_fake',
    };
    const chunk = (delta: unknown, finish: string | null = null) =>
      `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null })}\n\n`;
    const pieces = [TEXT.slice(0, 7), TEXT.slice(7, 14), TEXT.slice(14, 21), TEXT.slice(21)];
    expect(frames).toEqual([
      chunk({ role: 'assistant', content: '', refusal: null }),
      ...pieces.map((piece) => chunk({ content: piece })),
      chunk({}, 'stop'),
      `data: ${JSON.stringify({ ...head, choices: [], usage: usage(5, 6) })}\n\n`,
      'data: [DONE]\n\n',
    ]);
  });

  test('a sticky rule answers every call with the same bytes but its ids, and chunks that do not fit fail every call', () => {
    const fake = new FakeProvider();
    fake.when(() => true, { always: true }).willSay(TEXT);
    const request = {
      method: 'POST',
      path: '/v1/chat/completions',
      headers: {},
      body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    };
    const [first, second] = [fake.answer(request), fake.answer(request)];
    expect(second.frames!.join('').replaceAll('fake-chatcmpl-1', 'fake-chatcmpl-0')).toBe(first.frames!.join(''));
    expect(first.frames).toHaveLength(TEXT.match(/\s*\S+|\s+$/g)!.length + 3);

    const bad = new FakeProvider();
    bad.when(() => true, { always: true }).willSay('abc', { chunks: { size: 0 } });
    const statuses = [bad.answer(request).status, bad.answer(request).status];
    expect(statuses).toEqual([422, 422]);
    expect(bad.problems()).toHaveLength(2);
  });

  test('a broken stream keeps the chunks before the break', () => {
    const wire = answer((fake) => fake.willFail(failures.streamError({ afterChunks: 2 })), { stream: true });
    expect(wire.frames).toHaveLength(3);
    expect(String(wire.frames![2])).toContain('"type":"server_error"');
  });
});
