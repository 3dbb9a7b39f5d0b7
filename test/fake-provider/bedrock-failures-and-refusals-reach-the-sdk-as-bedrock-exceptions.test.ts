import {
  ConverseCommand,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
  ThrottlingException,
  ValidationException,
  type ConverseCommandInput,
} from '@aws-sdk/client-bedrock-runtime';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { FakeProvider, failures } from 'modeltape/fake-provider';
import { bedrockAgainst } from '../support/bedrock-client.js';
import { CONVERSE_REFUSALS, INVOKE_REFUSALS, claudeInvokeBody, novaInvokeBody } from '../support/bedrock-refusals.js';
import { closeAfterEach } from '../support/close-after-each.js';

// Scripted failures and Bedrock's refusals, raised by the real SDK as the exception classes it
// picks from `x-amzn-errortype`. The refusal tables are the ones the refusal rules' unit tests
// check (test/support/bedrock-refusals.ts).

beforeAll(() => vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true'));
afterAll(() => vi.unstubAllEnvs());
const started = closeAfterEach();

const MODEL = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const VALIDATION = 'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/';
const user = (text: string) => ({ role: 'user' as const, content: [{ text }] });

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

test('InvokeModel fails the same ways, for a Claude body and a Nova one', async () => {
  const fake = new FakeProvider().willFail(failures.rateLimited()).willFail(failures.overloaded()).willFail(failures.serverError());
  const { client } = started(await bedrockAgainst(fake));
  const invoke = (modelId: string, body: unknown) =>
    client.send(new InvokeModelCommand({ modelId, body: JSON.stringify(body) })).catch((error: unknown) => error);
  expect(await invoke(MODEL, claudeInvokeBody())).toBeInstanceOf(ThrottlingException);
  expect(await invoke('amazon.nova-lite-v1:0', novaInvokeBody())).toMatchObject({ name: 'ModelNotReadyException', $metadata: { httpStatusCode: 429 } });
  const streamed = await client
    .send(new InvokeModelWithResponseStreamCommand({ modelId: MODEL, body: JSON.stringify(claudeInvokeBody()) }))
    .catch((error: unknown) => error);
  expect(streamed).toMatchObject({ name: 'InternalServerException', $metadata: { httpStatusCode: 500 } });
  fake.assertConsumed();
});

test.each(CONVERSE_REFUSALS.map((refusal) => [refusal.name, refusal] as const))(
  'Converse refuses %s with a 400 ValidationException, before any turn',
  async (_name, { body, message, sdk }) => {
    const fake = new FakeProvider();
    if (sdk === false) {
      // A member the SDK does not model never leaves it: sent as raw bytes.
      const response = await fake.fetch(`http://fake/model/${encodeURIComponent(MODEL)}/converse`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(400);
      expect(response.headers.get('x-amzn-errortype')).toBe(VALIDATION);
      expect(await response.json()).toEqual({ message });
    } else {
      const { client } = started(await bedrockAgainst(fake));
      const error = await client.send(new ConverseCommand({ modelId: MODEL, ...(body as Partial<ConverseCommandInput>) })).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ValidationException);
      expect(error).toMatchObject({ message, $metadata: { httpStatusCode: 400 } });
    }
    expect(fake.asked()).toHaveLength(0);
    expect(fake.calls().map((call) => call.status)).toEqual([400]);
  },
);

test.each(INVOKE_REFUSALS.map((refusal) => [refusal.name, refusal] as const))(
  'InvokeModel refuses %s with a 400 ValidationException, streamed or not, before any turn',
  async (_name, { body, model, message }) => {
    const fake = new FakeProvider();
    const { client } = started(await bedrockAgainst(fake));
    const input = { modelId: model, contentType: 'application/json', body: JSON.stringify(body) };
    for (const command of [new InvokeModelCommand(input), new InvokeModelWithResponseStreamCommand(input)]) {
      const error = await client.send(command as InvokeModelCommand).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ValidationException);
      expect(error).toMatchObject({ message, $metadata: { httpStatusCode: 400 } });
    }
    expect(fake.asked()).toHaveLength(0);
    expect(fake.calls().map((call) => call.status)).toEqual([400, 400]);
  },
);

test('a body of a family the fake does not read is refused in Bedrock’s shape, naming what it reads', async () => {
  const fake = new FakeProvider();
  const response = await fake.fetch('http://fake/model/meta.llama3-70b-instruct-v1%3A0/invoke', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'Hi', max_gen_len: 64 }),
  });
  expect(response.status).toBe(400);
  expect(response.headers.get('x-amzn-errortype')).toBe(VALIDATION);
  const { message } = (await response.json()) as { message: string };
  expect(message).toContain('the modeltape FakeProvider answers InvokeModel for Anthropic Claude bodies (with anthropic_version) and Amazon Nova bodies');
  expect(message).toContain('model meta.llama3-70b-instruct-v1:0');
  expect(fake.asked()).toHaveLength(0);
});

test('checks every refusal listed', () => {
  expect([CONVERSE_REFUSALS.length, CONVERSE_REFUSALS.filter((refusal) => refusal.sdk === false).length, INVOKE_REFUSALS.length]).toEqual([16, 1, 8]);
});
