import { ConverseStreamCommand, ModelStreamErrorException, type ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { FakeProvider, failures } from 'modeltape/fake-provider';
import { bedrockAgainst } from '../support/bedrock-client.js';
import { closeAfterEach } from '../support/close-after-each.js';

// ConverseStream from the fake, parsed by the SDK's own event stream codec and unmarshaller.

beforeAll(() => vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true'));
afterAll(() => vi.unstubAllEnvs());
const started = closeAfterEach();

const MODEL = 'us.amazon.nova-lite-v1:0';
const toolConfig = { tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } } } } } }] };

/** Every event the SDK yields, each as its one member's name and value. */
async function eventsOf(stream: AsyncIterable<ConverseStreamOutput>): Promise<Array<[string, unknown]>> {
  const events: Array<[string, unknown]> = [];
  for await (const event of stream) {
    const [name, value] = Object.entries(event).find(([, member]) => member !== undefined)!;
    events.push([name, value]);
  }
  return events;
}

test('a text answer streams as deltas the SDK hands over one by one, then the stop reason and usage', async () => {
  const fake = new FakeProvider().willSay('It is raining in Paris.');
  const { client } = started(await bedrockAgainst(fake));
  const answer = await client.send(new ConverseStreamCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: 'Weather?' }] }] }));
  const events = await eventsOf(answer.stream!);
  expect(events.map(([name]) => name)).toEqual(['messageStart', ...Array(5).fill('contentBlockDelta'), 'contentBlockStop', 'messageStop', 'metadata']);
  const text = events.filter(([name]) => name === 'contentBlockDelta').map(([, value]) => (value as { delta: { text: string } }).delta.text);
  expect(text.join('')).toBe('It is raining in Paris.');
  expect(events.at(-2)![1]).toEqual({ stopReason: 'end_turn' });
  const metadata = events.at(-1)![1] as { usage: { inputTokens: number; outputTokens: number; totalTokens: number }; metrics: { latencyMs: number } };
  expect(metadata.usage.outputTokens).toBeGreaterThan(0);
  expect(metadata.usage.totalTokens).toBe(metadata.usage.inputTokens + metadata.usage.outputTokens);
  expect(fake.asked()[0]!.stream).toBe(true);
  fake.assertConsumed();
});

test('a tool use streams its id and name first, then its input as JSON pieces that join to the arguments', async () => {
  const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' }, { saying: 'Checking.' });
  const { client } = started(await bedrockAgainst(fake));
  const answer = await client.send(new ConverseStreamCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: 'Weather?' }] }], toolConfig }));
  const events = await eventsOf(answer.stream!);
  const start = events.find(([name]) => name === 'contentBlockStart')![1];
  expect(start).toEqual({ contentBlockIndex: 1, start: { toolUse: { toolUseId: 'fake-tooluse-0', name: 'get_weather' } } });
  const pieces = events
    .filter(([name, value]) => name === 'contentBlockDelta' && (value as { contentBlockIndex: number }).contentBlockIndex === 1)
    .map(([, value]) => (value as { delta: { toolUse: { input: string } } }).delta.toolUse.input);
  expect(pieces.length).toBeGreaterThan(1);
  expect(JSON.parse(pieces.join(''))).toEqual({ city: 'Paris' });
  expect(events.filter(([name]) => name === 'contentBlockStop').map(([, value]) => value)).toEqual([{ contentBlockIndex: 0 }, { contentBlockIndex: 1 }]);
  expect(events.find(([name]) => name === 'messageStop')![1]).toEqual({ stopReason: 'tool_use' });
});

test('a scripted mid-stream failure ends the stream with the exception message the SDK raises as ModelStreamErrorException', async () => {
  const fake = new FakeProvider().willFail(failures.streamError({ afterChunks: 2, message: 'The model stream broke.' }));
  const { client } = started(await bedrockAgainst(fake));
  const answer = await client.send(new ConverseStreamCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: 'Weather?' }] }] }));
  const received: string[] = [];
  let caught: unknown;
  try {
    for await (const event of answer.stream!) received.push(Object.keys(event).find((key) => event[key as keyof typeof event] !== undefined)!);
  } catch (error) {
    caught = error;
  }
  expect(received).toEqual(['messageStart', 'contentBlockDelta']);
  expect(caught).toBeInstanceOf(ModelStreamErrorException);
  expect((caught as ModelStreamErrorException).message).toBe('The model stream broke.');
  expect(fake.calls()[0]!.status).toBe(200);
});
