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
