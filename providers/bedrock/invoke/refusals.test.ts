import { describe, expect, test } from 'vitest';
import { INVOKE_REFUSALS, claudeInvokeBody, novaInvokeBody } from '../../../test/support/bedrock-refusals.js';
import { bodyFamilyOf, invokeFamilyOf, modelFamilyOf } from './family.js';
import { refuseInvokeRequest } from './refusals.js';

const options = { constrained: true, anthropicPlatform: 'anthropic' as const };

describe('the family of an InvokeModel request', () => {
  test.each([
    ['anthropic.claude-3-5-haiku-20241022-v1:0', 'anthropic-claude'],
    ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'anthropic-claude'],
    ['arn:aws:bedrock:us-east-1:111122223333:inference-profile/global.anthropic.claude-opus-4-5-20251101-v1:0', 'anthropic-claude'],
    ['amazon.nova-lite-v1:0', 'amazon-nova'],
    ['apac.amazon.nova-pro-v1:0', 'amazon-nova'],
    ['meta.llama3-70b-instruct-v1:0', undefined],
    ['arn:aws:bedrock:us-east-1:111122223333:application-inference-profile/a1b2c3d4e5f6', undefined],
  ])('the model %s names %s', (model, family) => {
    expect(modelFamilyOf(model)).toBe(family);
  });

  test('the model decides; a model that names none leaves it to the body', () => {
    expect(bodyFamilyOf(claudeInvokeBody())).toBe('anthropic-claude');
    expect(bodyFamilyOf(novaInvokeBody())).toBe('amazon-nova');
    expect(bodyFamilyOf({ prompt: 'Hi' })).toBeUndefined();
    expect(invokeFamilyOf('amazon.nova-lite-v1:0', claudeInvokeBody())).toBe('amazon-nova');
    expect(invokeFamilyOf('arn:aws:bedrock:us-east-1:111122223333:application-inference-profile/a1b2c3d4e5f6', claudeInvokeBody())).toBe('anthropic-claude');
    expect(invokeFamilyOf('meta.llama3-70b-instruct-v1:0', { prompt: 'Hi' })).toBeUndefined();
  });
});

// The table is shared with the FakeProvider's test, which sends each body through the AWS SDK.
describe('refuseInvokeRequest', () => {
  test('accepts the bodies the clients send: AnthropicBedrock’s, bedrockAnthropic’s, a Nova tool loop', () => {
    expect(
      refuseInvokeRequest(claudeInvokeBody({ anthropic_version: '2026-10-21', system: 'Be brief.' }), options, 'anthropic.claude-3-5-haiku-20241022-v1:0'),
    ).toBeUndefined();
    expect(
      refuseInvokeRequest(
        claudeInvokeBody({ tools: [{ name: 'bash', input_schema: { type: 'object' } }], tool_choice: { type: 'auto' } }),
        options,
        'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      ),
    ).toBeUndefined();
    const use = { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'bash', input: {} } }] };
    const result = { role: 'user', content: [{ toolResult: { toolUseId: 't1', content: [{ text: 'a.txt' }] } }] };
    const toolConfig = { tools: [{ toolSpec: { name: 'bash', inputSchema: { json: { type: 'object' } } } }] };
    expect(
      refuseInvokeRequest(
        novaInvokeBody({ messages: [{ role: 'user', content: [{ text: 'ls' }] }, use, result], toolConfig }),
        options,
        'amazon.nova-lite-v1:0',
      ),
    ).toBeUndefined();
  });

  test('leaves a body of another family alone: what it is, only its model knows', () => {
    expect(refuseInvokeRequest({ prompt: 'Hi', max_gen_len: 64 }, options, 'meta.llama3-70b-instruct-v1:0')).toBeUndefined();
  });

  test.each(INVOKE_REFUSALS.map((refusal) => [refusal.name, refusal] as const))(
    'refuses %s with a 400 ValidationException',
    (_name, { body, model, message }) => {
      expect(refuseInvokeRequest(body, options, model)).toEqual({ status: 400, type: 'ValidationException', message });
    },
  );

  test('checks every case listed', () => {
    expect(INVOKE_REFUSALS).toHaveLength(8);
  });
});
