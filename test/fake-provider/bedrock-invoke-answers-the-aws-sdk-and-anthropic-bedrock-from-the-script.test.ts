import { readFileSync } from 'node:fs';
import AnthropicBedrock from '@anthropic-ai/bedrock-sdk';
import {
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
  ModelStreamErrorException,
  type InvokeModelWithResponseStreamCommandOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { FAKE_HEADER, FakeProvider, failures } from 'modeltape/fake-provider';
import { FAKE_AWS_CREDENTIALS, bedrockAgainst, captureResponseHeaders } from '../support/bedrock-client.js';
import { closeAfterEach } from '../support/close-after-each.js';

// InvokeModel and InvokeModelWithResponseStream from the fake, read by the unmodified AWS SDK
// (its own deserializer and event stream codec) and by AnthropicBedrock, for the two model
// families the fake answers: Anthropic Claude (Messages bodies) and Amazon Nova (Converse's
// shape). Each answer's shape is held to a capture of the real service (test/fixtures/bedrock/).

beforeAll(() => vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true'));
afterAll(() => vi.unstubAllEnvs());
const started = closeAfterEach();

const CLAUDE = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const NOVA = 'us.amazon.nova-micro-v1:0';
const decoder = new TextDecoder();

interface EventFixture {
  headers: Record<string, string>;
  payload: { bytes: string };
}
const fixture = <T>(name: string): T => JSON.parse(readFileSync(new URL(`../fixtures/bedrock/${name}`, import.meta.url), 'utf8')) as T;
const capturedChunks = (name: string): Array<Record<string, unknown>> =>
  fixture<{ events: EventFixture[] }>(name).events.map(
    (event) => JSON.parse(Buffer.from(event.payload.bytes, 'base64').toString('utf8')) as Record<string, unknown>,
  );

/** The shape of a value: its keys, nested, with each leaf's type (the values themselves differ). */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (value === null || typeof value !== 'object') return value === null ? 'null' : typeof value;
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, shapeOf(item)]));
}

const claudeBody = (text: string, extra: Record<string, unknown> = {}) => ({
  anthropic_version: 'bedrock-2023-05-31',
  max_tokens: 256,
  messages: [{ role: 'user', content: text }],
  ...extra,
});
const novaBody = (text: string, extra: Record<string, unknown> = {}) => ({
  messages: [{ role: 'user', content: [{ text }] }],
  inferenceConfig: { max_new_tokens: 150 },
  ...extra,
});
const invoke = (modelId: string, body: unknown) => new InvokeModelCommand({ modelId, contentType: 'application/json', body: JSON.stringify(body) });
const invokeStreamed = (modelId: string, body: unknown) =>
  new InvokeModelWithResponseStreamCommand({ modelId, contentType: 'application/json', body: JSON.stringify(body) });

/** The model events the chunks of a stream carry, decoded from their `bytes`. */
async function chunksOf(answer: InvokeModelWithResponseStreamCommandOutput): Promise<Array<Record<string, unknown>>> {
  const chunks: Array<Record<string, unknown>> = [];
  for await (const event of answer.body!) chunks.push(JSON.parse(decoder.decode(event.chunk!.bytes)) as Record<string, unknown>);
  return chunks;
}

test('Claude: InvokeModel answers in Messages’ shape, as Bedrock does, its counts in the headers, marked fake', async () => {
  const fake = new FakeProvider().willSay('Ship to Paris.');
  const { client } = started(await bedrockAgainst(fake));
  const headersOf = captureResponseHeaders(client);
  const answer = await client.send(invoke(CLAUDE, claudeBody('Where to?', { system: 'Be brief.' })));
  const body = JSON.parse(decoder.decode(answer.body)) as Record<string, unknown>;
  const captured = fixture<{ body: Record<string, unknown> }>('invoke-claude-response.json').body;
  expect(Object.keys(body).sort()).toEqual(Object.keys(captured).sort());
  expect(body).toMatchObject({
    id: 'fake-msg-0',
    type: 'message',
    role: 'assistant',
    model: 'fake-claude-3-5-haiku-20241022',
    content: [{ type: 'text', text: 'Ship to Paris.' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
  });
  const usage = body.usage as { input_tokens: number; output_tokens: number };
  expect(usage.output_tokens).toBeGreaterThan(0);
  expect(headersOf()[FAKE_HEADER]).toBe('1');
  expect(answer.$metadata.requestId).toBe('fake-req-0');
  expect(answer.contentType).toBe('application/json');
  expect([headersOf()['x-amzn-bedrock-input-token-count'], headersOf()['x-amzn-bedrock-output-token-count']]).toEqual([
    String(usage.input_tokens),
    String(usage.output_tokens),
  ]);
  expect(Number(headersOf()['x-amzn-bedrock-invocation-latency'])).toBeGreaterThan(0);
  const [turn] = fake.asked();
  expect([turn!.provider, turn!.api, turn!.model, turn!.stream, turn!.prompt]).toEqual([
    'bedrock',
    'bedrock-invoke',
    CLAUDE,
    false,
    'system: Be brief.\nuser: Where to?',
  ]);
  expect(fake.calls().map((call) => [call.path, call.api, call.status])).toEqual([[`/model/${encodeURIComponent(CLAUDE)}/invoke`, 'bedrock-invoke', 200]]);
  fake.assertConsumed();
});

test('Claude: InvokeModelWithResponseStream sends Anthropic’s stream events in chunks, no ping, Bedrock’s metrics last', async () => {
  const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' }, { saying: 'Checking.' });
  const { client } = started(await bedrockAgainst(fake));
  const tools = [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }];
  const chunks = await chunksOf(await client.send(invokeStreamed(CLAUDE, claudeBody('Weather?', { tools }))));
  const types = chunks.map((chunk) => chunk.type);
  expect(types).not.toContain('ping');
  expect(types[0]).toBe('message_start');
  expect(types.slice(-2)).toEqual(['message_delta', 'message_stop']);
  // The captured stream's events, event by event where the fake's have the same type.
  const captured = capturedChunks('invoke-stream-claude-events.json');
  for (const type of ['message_start', 'content_block_start', 'message_delta', 'message_stop'])
    expect(shapeOf(chunks.find((chunk) => chunk.type === type)), type).toEqual(shapeOf(captured.find((chunk) => chunk.type === type)));
  const text = chunks
    .filter((chunk) => (chunk.delta as { type?: string } | undefined)?.type === 'text_delta')
    .map((chunk) => (chunk.delta as { text: string }).text);
  expect(text.join('')).toBe('Checking.');
  const json = chunks
    .filter((chunk) => (chunk.delta as { type?: string } | undefined)?.type === 'input_json_delta')
    .map((chunk) => (chunk.delta as { partial_json: string }).partial_json);
  expect(JSON.parse(json.join(''))).toEqual({ city: 'Paris' });
  expect((chunks.at(-2)!.delta as { stop_reason: string }).stop_reason).toBe('tool_use');
  expect(chunks.at(-1)!['amazon-bedrock-invocationMetrics']).toMatchObject({
    outputTokenCount: (chunks.at(-2)!.usage as { output_tokens: number }).output_tokens,
  });
  fake.assertConsumed();
});

test('Nova: InvokeModel answers in Converse’s shape, as the capture does, and a tool loop goes round', async () => {
  const fake = new FakeProvider().willCallTool('get_weather', { location: 'Paris' }, { saying: 'Let me check.' }).willSay('It is 14 °C.');
  const { client } = started(await bedrockAgainst(fake));
  const captured = fixture<{ request: { body: Record<string, unknown> }; body: Record<string, unknown> }>('invoke-nova-tool-use-response.json');
  const request = captured.request.body;
  const first = JSON.parse(decoder.decode((await client.send(invoke(NOVA, request))).body)) as Record<string, unknown>;
  expect(shapeOf(first)).toEqual(shapeOf(captured.body));
  expect(first).toMatchObject({
    output: {
      message: {
        role: 'assistant',
        content: [{ text: 'Let me check.' }, { toolUse: { toolUseId: 'fake-tooluse-0', name: 'get_weather', input: { location: 'Paris' } } }],
      },
    },
    stopReason: 'tool_use',
  });
  const message = (first.output as { message: unknown }).message;
  const followUp = {
    ...request,
    messages: [
      ...(request.messages as unknown[]),
      message,
      { role: 'user', content: [{ toolResult: { toolUseId: 'fake-tooluse-0', content: [{ text: '14 °C' }] } }] },
    ],
  };
  const second = JSON.parse(decoder.decode((await client.send(invoke(NOVA, followUp))).body)) as Record<string, unknown>;
  expect(second).toMatchObject({ output: { message: { content: [{ text: 'It is 14 °C.' }] } }, stopReason: 'end_turn' });
  expect(fake.asked().map((turn) => [turn.api, turn.model, turn.exchanges.map((exchange) => exchange.result)])).toEqual([
    ['bedrock-invoke', NOVA, []],
    ['bedrock-invoke', NOVA, ['14 °C']],
  ]);
  fake.assertConsumed();
});

test('Nova: InvokeModelWithResponseStream sends Converse’s events in chunks, each piece of text a block, as the capture does', async () => {
  const fake = new FakeProvider().willSay('In the year 2145, humanity launched');
  const { client } = started(await bedrockAgainst(fake));
  const chunks = await chunksOf(await client.send(invokeStreamed(NOVA, novaBody('Tell me a story.'))));
  const captured = capturedChunks('invoke-stream-nova-events.json');
  const keys = (list: Array<Record<string, unknown>>) => list.map((chunk) => Object.keys(chunk).join('+'));
  // The capture: messageStart, delta and stop per piece of text, messageStop, then metadata with Bedrock's metrics.
  expect(keys(chunks).slice(0, 5)).toEqual(keys(captured).slice(0, 5));
  expect(keys(chunks).slice(-2)).toEqual(keys(captured).slice(-2));
  for (const position of [0, 1, 2, -2, -1]) expect(shapeOf(chunks.at(position)), `chunk ${position}`).toEqual(shapeOf(captured.at(position)));
  const deltas = chunks.filter((chunk) => chunk.contentBlockDelta !== undefined) as Array<{
    contentBlockDelta: { delta: { text: string }; contentBlockIndex: number };
  }>;
  expect(deltas.map((chunk) => chunk.contentBlockDelta.delta.text).join('')).toBe('In the year 2145, humanity launched');
  expect(deltas.map((chunk) => chunk.contentBlockDelta.contentBlockIndex)).toEqual(deltas.map((_, index) => index));
  fake.assertConsumed();
});

test('a scripted mid-stream failure ends either family’s stream with the exception the SDK raises as ModelStreamErrorException', async () => {
  const fake = new FakeProvider()
    .willFail(failures.streamError({ afterChunks: 2, message: 'The model stream broke.' }))
    .willFail(failures.streamError({ afterChunks: 1 }));
  const { client } = started(await bedrockAgainst(fake));
  for (const [model, body, kept] of [
    [CLAUDE, claudeBody('Hi'), 2],
    [NOVA, novaBody('Hi'), 1],
  ] as const) {
    const answer = await client.send(invokeStreamed(model, body));
    const read: unknown[] = [];
    const error = await (async () => {
      for await (const event of answer.body!) read.push(event.chunk);
    })().catch((caught: unknown) => caught);
    expect(error, model).toBeInstanceOf(ModelStreamErrorException);
    expect(read, model).toHaveLength(kept);
  }
  expect(fake.calls().map((call) => call.status)).toEqual([200, 200]);
  fake.assertConsumed();
});

test('AnthropicBedrock’s messages.create, streamed and not, and messages.stream read the fake as they read Bedrock', async () => {
  const fake = new FakeProvider().willSay('Hello from the fake.').willSay('One, two, three.').willCallTool('get_weather', { city: 'Paris' });
  const server = started(await fake.listen({ port: 0 }));
  const client = new AnthropicBedrock({
    baseURL: server.baseUrls.bedrock,
    awsRegion: 'us-east-1',
    awsAccessKey: FAKE_AWS_CREDENTIALS.accessKeyId,
    awsSecretKey: FAKE_AWS_CREDENTIALS.secretAccessKey,
    maxRetries: 0,
  });
  const message = await client.messages.create({ model: CLAUDE, max_tokens: 64, messages: [{ role: 'user', content: 'Say hello' }] });
  expect(message.content).toEqual([{ type: 'text', text: 'Hello from the fake.' }]);
  expect(message.model).toBe('fake-claude-3-5-haiku-20241022');

  const events: string[] = [];
  let text = '';
  const stream = await client.messages.create({ model: CLAUDE, max_tokens: 64, messages: [{ role: 'user', content: 'Count to three' }], stream: true });
  for await (const event of stream) {
    events.push(event.type);
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
  }
  expect(text).toBe('One, two, three.');
  expect(events[0]).toBe('message_start');
  expect(events.at(-1)).toBe('message_stop');

  const tools = [{ name: 'get_weather', input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } } }];
  const final = await client.messages.stream({ model: CLAUDE, max_tokens: 64, messages: [{ role: 'user', content: 'Weather?' }], tools }).finalMessage();
  expect(final.stop_reason).toBe('tool_use');
  expect(final.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } })]);

  // AnthropicBedrock sends the model in the path (its `:` unencoded), its version in the body.
  expect(fake.calls().map((call) => [call.path, call.status])).toEqual([
    [`/model/${CLAUDE}/invoke`, 200],
    [`/model/${CLAUDE}/invoke-with-response-stream`, 200],
    [`/model/${CLAUDE}/invoke-with-response-stream`, 200],
  ]);
  expect(fake.asked().map((turn) => [turn.api, turn.model, typeof turn.body.anthropic_version, 'model' in turn.body])).toEqual([
    ['bedrock-invoke', CLAUDE, 'string', false],
    ['bedrock-invoke', CLAUDE, 'string', false],
    ['bedrock-invoke', CLAUDE, 'string', false],
  ]);
  fake.assertConsumed();
});
