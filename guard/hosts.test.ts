import { expect, test } from 'vitest';
import { hostMatcher } from './hosts.js';

test('a *. entry matches every name under its domain, on any port, and nothing else', () => {
  const matches = hostMatcher(['*.openai.azure.com', 'api.openai.com']);
  const checked = [
    ['fake-resource.openai.azure.com', 443, '*.openai.azure.com'],
    ['FAKE-RESOURCE.OpenAI.Azure.com.', 8443, '*.openai.azure.com'],
    ['a.b.openai.azure.com', undefined, '*.openai.azure.com'],
    ['openai.azure.com', 443, undefined],
    ['fake-resource.openai.azure.com.example', 443, undefined],
    ['notopenai.azure.com', 443, undefined],
    ['api.openai.com', 443, 'api.openai.com'],
  ] as const;
  for (const [host, port, expected] of checked) expect(matches(host, port), `${host}:${String(port)}`).toBe(expected);
  expect(checked).toHaveLength(7);
});

test('a * label inside an entry matches exactly one label there, on any port: every region of a service', () => {
  const matches = hostMatcher(['bedrock-runtime.*.amazonaws.com']);
  const checked = [
    ['bedrock-runtime.us-east-1.amazonaws.com', 443, 'bedrock-runtime.*.amazonaws.com'],
    ['Bedrock-Runtime.EU-WEST-3.amazonaws.com.', 8443, 'bedrock-runtime.*.amazonaws.com'],
    ['bedrock-runtime.amazonaws.com', 443, undefined],
    ['bedrock-runtime.a.b.amazonaws.com', 443, undefined],
    ['bedrock-runtime.us-east-1.amazonaws.com.example', 443, undefined],
    ['xbedrock-runtime.us-east-1.amazonaws.com', 443, undefined],
    ['s3.us-east-1.amazonaws.com', 443, undefined],
  ] as const;
  for (const [host, port, expected] of checked) expect(matches(host, port), `${host}:${String(port)}`).toBe(expected);
  expect(checked).toHaveLength(7);
});

test('Vertex AI’s hosts: a * inside a label matches that label’s rest, every location’s endpoint', () => {
  const matches = hostMatcher(['aiplatform.googleapis.com', '*-aiplatform.googleapis.com', 'aiplatform.*.rep.googleapis.com']);
  const checked = [
    ['us-central1-aiplatform.googleapis.com', 443, '*-aiplatform.googleapis.com'],
    ['EUROPE-WEST4-aiplatform.googleapis.com.', 443, '*-aiplatform.googleapis.com'],
    ['aiplatform.googleapis.com', 443, 'aiplatform.googleapis.com'],
    ['aiplatform.eu.rep.googleapis.com', 443, 'aiplatform.*.rep.googleapis.com'],
    ['-aiplatform.googleapis.com', 443, undefined],
    ['a.us-central1-aiplatform.googleapis.com', 443, undefined],
    ['generativelanguage.googleapis.com', 443, undefined],
  ] as const;
  for (const [host, port, expected] of checked) expect(matches(host, port), `${host}:${String(port)}`).toBe(expected);
  expect(checked).toHaveLength(7);
});
