import { ConverseCommand, type ContentBlock, type Message, type Tool } from '@aws-sdk/client-bedrock-runtime';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { FAKE_HEADER, FakeProvider } from 'modeltape/fake-provider';
import { bedrockAgainst, captureResponseHeaders } from '../support/bedrock-client.js';
import { closeAfterEach } from '../support/close-after-each.js';

// The real @aws-sdk/client-bedrock-runtime against FakeProvider.listen(): Converse answers from
// the script, in Bedrock's JSON, read by the SDK's own deserializer.

beforeAll(() => vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true'));
afterAll(() => vi.unstubAllEnvs());
const started = closeAfterEach();

const MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const bash: Tool = {
  toolSpec: {
    name: 'bash',
    description: 'Runs a shell command.',
    inputSchema: { json: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'], additionalProperties: false } },
  },
};

const grep: Tool = { toolSpec: { name: 'grep', inputSchema: { json: { type: 'object' } } } };

test('a scripted text answer comes back as the assistant message, with its stop reason and usage', async () => {
  const fake = new FakeProvider().willSay('Ship to Paris.');
  const { client } = started(await bedrockAgainst(fake));
  const answer = await client.send(
    new ConverseCommand({
      modelId: MODEL,
      system: [{ text: 'Be brief.' }],
      messages: [{ role: 'user', content: [{ text: 'Where to?' }] }],
      inferenceConfig: { maxTokens: 100, temperature: 0.2 },
    }),
  );
  expect(answer.output?.message).toEqual({ role: 'assistant', content: [{ text: 'Ship to Paris.' }] });
  expect(answer.stopReason).toBe('end_turn');
  expect(answer.usage!.inputTokens).toBeGreaterThan(0);
  expect(answer.usage!.outputTokens).toBeGreaterThan(0);
  expect(answer.usage!.totalTokens).toBe(answer.usage!.inputTokens! + answer.usage!.outputTokens!);
  const [turn] = fake.asked();
  expect([turn!.provider, turn!.api, turn!.model, turn!.stream, turn!.prompt]).toEqual([
    'bedrock',
    'bedrock-converse',
    MODEL,
    false,
    'system: Be brief.\nuser: Where to?',
  ]);
  expect(fake.calls().map((call) => [call.method, call.path, call.api, call.status])).toEqual([
    ['POST', `/model/${encodeURIComponent(MODEL)}/converse`, 'bedrock-converse', 200],
  ]);
  fake.assertConsumed();
});

test('a tool use round trip: toolUse, then the toolResult the SDK sends back, then the final text', async () => {
  const fake = new FakeProvider().willCallTool('bash', { command: 'ls' }).willSay('There is one file, a.txt.');
  const { client } = started(await bedrockAgainst(fake));
  const messages: Message[] = [{ role: 'user', content: [{ text: 'What files are there?' }] }];
  const toolConfig = { tools: [bash] };
  const first = await client.send(new ConverseCommand({ modelId: MODEL, messages, toolConfig }));
  expect(first.stopReason).toBe('tool_use');
  const use = first.output!.message!.content!.find((block): block is ContentBlock.ToolUseMember => block.toolUse !== undefined)!.toolUse;
  expect(use).toEqual({ toolUseId: 'fake-tooluse-0', name: 'bash', input: { command: 'ls' } });
  messages.push(first.output!.message!, {
    role: 'user',
    content: [{ toolResult: { toolUseId: use.toolUseId, content: [{ text: 'a.txt' }], status: 'success' } }],
  });
  const second = await client.send(new ConverseCommand({ modelId: MODEL, messages, toolConfig }));
  expect(second.output?.message?.content).toEqual([{ text: 'There is one file, a.txt.' }]);
  expect(second.stopReason).toBe('end_turn');
  expect(fake.asked()[1]!.exchanges).toEqual([{ toolCallId: 'fake-tooluse-0', name: 'bash', result: 'a.txt', isError: false }]);
  fake.assertConsumed();
});

test('a structured answer follows outputConfig’s schema; a forced tool must be the one called', async () => {
  const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
  const fake = new FakeProvider().willAnswer({ city: 'Paris' }).willCallTool('grep', {});
  const { client } = started(await bedrockAgainst(fake));
  const structured = await client.send(
    new ConverseCommand({
      modelId: MODEL,
      messages: [{ role: 'user', content: [{ text: 'Where?' }] }],
      outputConfig: { textFormat: { type: 'json_schema', structure: { jsonSchema: { schema: JSON.stringify(schema), name: 'place' } } } },
    }),
  );
  expect(JSON.parse(structured.output!.message!.content![0]!.text!)).toEqual({ city: 'Paris' });
  const forced = client.send(
    new ConverseCommand({
      modelId: MODEL,
      messages: [{ role: 'user', content: [{ text: 'List.' }] }],
      toolConfig: { tools: [bash, grep], toolChoice: { tool: { name: 'bash' } } },
    }),
  );
  await expect(forced).rejects.toMatchObject({ name: 'fake_answer_does_not_fit', $metadata: { httpStatusCode: 422 } });
  expect(fake.problems()[0]).toContain('the request\'s toolConfig.toolChoice forces "bash"');
});

test('answers are marked fake: the fake header, fake ids, request ids, usage never zero', async () => {
  const fake = new FakeProvider().willCallTool('bash', { command: 'ls' });
  const { client } = started(await bedrockAgainst(fake));
  const headersOf = captureResponseHeaders(client);
  const answer = await client.send(
    new ConverseCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: 'Go.' }] }], toolConfig: { tools: [bash] } }),
  );
  expect(headersOf()[FAKE_HEADER]).toBe('1');
  expect(answer.$metadata.requestId).toBe('fake-req-0');
  expect(answer.output!.message!.content![0]!.toolUse!.toolUseId).toMatch(/^fake-/);
  expect(answer.usage!.outputTokens).toBeGreaterThan(0);
  expect(answer.metrics!.latencyMs).toBeGreaterThan(0);
});

test('scripted finishes come back as Bedrock’s stop reasons', async () => {
  const fake = new FakeProvider()
    .willSay('Cut', { finish: 'length' })
    .willSay('Done', { finish: 'stop-sequence' })
    .willSay('', { finish: 'content-filter' })
    .willSay('', { finish: 'guardrail_intervened' });
  const { client } = started(await bedrockAgainst(fake));
  const reasons: unknown[] = [];
  for (let turn = 0; turn < 4; turn++) {
    const answer = await client.send(
      new ConverseCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: 'Go.' }] }], inferenceConfig: { stopSequences: ['END'] } }),
    );
    reasons.push(answer.stopReason);
  }
  expect(reasons).toEqual(['max_tokens', 'stop_sequence', 'content_filtered', 'guardrail_intervened']);
  fake.assertConsumed();
});
