import { createHash } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { FakeProvider, failures } from 'modeltape/fake-provider';

// A script that touches every surface, streamed and not, with tools, structured answers and a
// failure; run twice from scratch, everything the fake sends must hash the same.
async function run(): Promise<{ hash: string; bytes: number }> {
  const fake = new FakeProvider()
    .willSay('Hello, deterministic world.')
    .willCallTool('get_weather', { city: 'Paris' })
    .willCallTool('get_weather', { city: 'Lyon' })
    .willAnswer({ city: 'Nice', temperature: 22 })
    .willSay('Streamed and the same every time.')
    .willFail(failures.streamError({ afterChunks: 2 }))
    .willCallTool('get_weather', { city: 'Rome' }, { saying: 'Checking.' });
  const weather = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
  const answer = {
    type: 'object',
    properties: { city: { type: 'string' }, temperature: { type: 'number' } },
    required: ['city', 'temperature'],
    additionalProperties: false,
  };
  const requests: Array<[string, unknown]> = [
    ['/v1/chat/completions', { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }],
    [
      '/v1/chat/completions',
      {
        model: 'gpt-4o',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'weather' }],
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: weather } }],
      },
    ],
    ['/v1/responses', { model: 'gpt-4o', input: 'x', text: { format: { type: 'json_schema', name: 'a', schema: answer, strict: true } } }],
    ['/v1/responses', { model: 'gpt-4o', input: 'y', stream: true }],
    ['/v1/messages', { model: 'claude-opus-4-8', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'z' }] }],
    [
      '/v1/messages',
      {
        model: 'claude-opus-4-8',
        max_tokens: 10,
        stream: true,
        tools: [{ name: 'get_weather', input_schema: weather }],
        messages: [{ role: 'user', content: 'w' }],
      },
    ],
    ['/v1/embeddings', { model: 'text-embedding-3-small', input: ['a', 'b'] }],
  ];
  const hash = createHash('sha256');
  let bytes = 0;
  for (const [path, body] of requests) {
    const wire = await fake.handle({ method: 'POST', path, headers: {}, body: JSON.stringify(body) });
    const text = `${wire.status}\n${JSON.stringify(wire.headers)}\n${wire.body ?? ''}${(wire.frames ?? []).join('')}`;
    bytes += text.length;
    hash.update(text);
  }
  fake.assertConsumed();
  return { hash: hash.digest('hex'), bytes };
}

describe('determinism', () => {
  test('the same script and options give byte-identical responses and streams', async () => {
    const first = await run();
    const second = await run();
    expect(first.bytes).toBeGreaterThan(5000);
    expect(second.hash).toBe(first.hash);
  });

  test('injected clocks and ids show in the output, and change it', async () => {
    const fake = new FakeProvider({ now: () => Date.UTC(2030, 0, 1), newId: (kind) => `fake-${kind}-custom` }).willSay('x');
    const wire = await fake.handle({
      method: 'POST',
      path: '/v1/chat/completions',
      headers: {},
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(JSON.parse(String(wire.body))).toMatchObject({ id: 'fake-chatcmpl-custom', created: Date.UTC(2030, 0, 1) / 1000 });
  });
});
