import { ConverseCommand, ThrottlingException, ValidationException, type ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { FakeProvider, failures } from 'modeltape/fake-provider';
import { bedrockAgainst } from '../support/bedrock-client.js';
import { closeAfterEach } from '../support/close-after-each.js';

// Scripted failures and Bedrock's refusals, raised by the real SDK as the exception classes it
// picks from `x-amzn-errortype`.

beforeAll(() => vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true'));
afterAll(() => vi.unstubAllEnvs());
const started = closeAfterEach();

const MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const user = (text: string) => ({ role: 'user' as const, content: [{ text }] });
const bash = { toolSpec: { name: 'bash', inputSchema: { json: { type: 'object' } } } };

test('a rate limit is a 429 ThrottlingException; a server error an InternalServerException', async () => {
  const fake = new FakeProvider().willFail(failures.rateLimited()).willFail(failures.serverError());
  const { client } = started(await bedrockAgainst(fake));
  const ask = () => client.send(new ConverseCommand({ modelId: MODEL, messages: [user('Hi')] }));
  const throttled = await ask().catch((error: unknown) => error);
  expect(throttled).toBeInstanceOf(ThrottlingException);
  expect(throttled).toMatchObject({
    $metadata: { httpStatusCode: 429 },
    message: 'Too many requests, please wait before trying again. (modeltape FakeProvider)',
  });
  await expect(ask()).rejects.toMatchObject({ name: 'InternalServerException', $metadata: { httpStatusCode: 500 } });
  fake.assertConsumed();
});

const refusals: Array<[string, Partial<ConverseCommandInput>, string]> = [
  [
    'a conversation that starts with the assistant',
    { messages: [{ role: 'assistant', content: [{ text: 'Hello.' }] }] },
    'A conversation must start with a user message. Try again with a conversation that starts with a user message.',
  ],
  [
    'two user messages in a row',
    { messages: [user('Hi'), user('Again')] },
    'A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.',
  ],
  [
    'a toolResult with no toolUse before it',
    {
      messages: [
        user('Hi'),
        { role: 'assistant', content: [{ text: 'Hello.' }] },
        { role: 'user', content: [{ toolResult: { toolUseId: 't1', content: [{ text: 'x' }] } }] },
      ],
      toolConfig: { tools: [bash] },
    },
    'The number of toolResult blocks at messages.2.content exceeds the number of toolUse blocks of previous turn.',
  ],
  [
    'maxTokens below 1',
    { messages: [user('Hi')], inferenceConfig: { maxTokens: 0 } },
    "Value '0' at 'inferenceConfig.maxTokens' failed to satisfy constraint: Member must have value greater than or equal to 1",
  ],
  [
    'a temperature above 1',
    { messages: [user('Hi')], inferenceConfig: { temperature: 1.5 } },
    "Value '1.5' at 'inferenceConfig.temperature' failed to satisfy constraint: Member must have value less than or equal to 1",
  ],
  [
    'a tool name outside the pattern',
    { messages: [user('Hi')], toolConfig: { tools: [{ toolSpec: { name: 'run shell', inputSchema: { json: {} } } }] } },
    "Value 'run shell' at 'toolConfig.tools.1.member.toolSpec.name' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+",
  ],
  [
    'a forced tool that is not offered',
    { messages: [user('Hi')], toolConfig: { tools: [bash], toolChoice: { tool: { name: 'grep' } } } },
    'The tool grep in toolConfig.toolChoice is not defined in toolConfig.tools. Add a tool specification named grep, or choose a defined tool.',
  ],
  ['empty messages', { messages: [] }, "Value '[]' at 'messages' failed to satisfy constraint: Member must have length greater than or equal to 1"],
];

test.each(refusals)('refuses %s with a 400 ValidationException, before any turn', async (_name, input, message) => {
  const fake = new FakeProvider();
  const { client } = started(await bedrockAgainst(fake));
  const error = await client.send(new ConverseCommand({ modelId: MODEL, messages: [], ...input })).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ValidationException);
  expect(error).toMatchObject({ message, $metadata: { httpStatusCode: 400 } });
  expect(fake.asked()).toHaveLength(0);
  expect(fake.calls().map((call) => call.status)).toEqual([400]);
});

test('an unknown field, which the SDK never sends, is refused as a malformed request', async () => {
  const fake = new FakeProvider();
  const response = await fake.fetch(`http://fake/model/${encodeURIComponent(MODEL)}/converse`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [user('Hi')], max_tokens: 10 }),
  });
  expect(response.status).toBe(400);
  expect(response.headers.get('x-amzn-errortype')).toBe('ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/');
  expect(await response.json()).toEqual({
    message: 'Malformed input request: #: extraneous key [max_tokens] is not permitted, please reformat your input and try again.',
  });
});

test('checks every refusal listed', () => {
  expect(refusals).toHaveLength(8);
});
