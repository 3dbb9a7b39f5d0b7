import { describe, expect, test } from 'vitest';
import { PRICE_TABLE, PRICES_AS_OF, bedrockModelId, costOf, priceOf } from './prices.js';

describe('the price table', () => {
  test('is dated, and every row names an https source and prices of 0 or more', () => {
    expect(PRICES_AS_OF).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(PRICE_TABLE.length).toBeGreaterThan(10);
    for (const row of PRICE_TABLE) {
      expect(row.source, row.model).toMatch(/^https:\/\//);
      for (const amount of [row.input, row.output, row.cachedInput ?? 0, row.cacheWrite ?? 0]) expect(amount).toBeGreaterThanOrEqual(0);
    }
    expect(new Set(PRICE_TABLE.map((row) => row.model)).size).toBe(PRICE_TABLE.length);
  });

  test('finds a dated or -latest model by its name without the suffix, and never guesses by prefix', () => {
    expect(priceOf('gpt-4o-mini-2024-07-18', 'openai')).toMatchObject({ matched: 'gpt-4o-mini', from: 'table' });
    expect(priceOf('claude-sonnet-4-5-20250929', 'anthropic')).toMatchObject({ matched: 'claude-sonnet-4-5' });
    expect(priceOf('claude-3-5-haiku-latest', 'anthropic')).toMatchObject({ matched: 'claude-3-5-haiku' });
    // Vertex AI's model names: Gemini's as Google's, Claude's with its version after `@`.
    expect(priceOf('claude-sonnet-4-5@20250929', 'vertex')).toMatchObject({ matched: 'claude-sonnet-4-5' });
    expect(priceOf('gemini-2.5-flash', 'vertex')).toMatchObject({ matched: 'gemini-2.5-flash', price: { input: 0.3, output: 2.5 } });
    expect(priceOf('gpt-4o', 'openai')?.price).toMatchObject({ input: 2.5, output: 10 });
    // Not claude-opus-4's price, and not gpt-4o's for a model named like it.
    expect(priceOf('claude-opus-4-8', 'anthropic')).toBeUndefined();
    expect(priceOf('gpt-4o-realtime-preview', 'openai')).toBeUndefined();
  });

  test('config prices add models and win over the table; Ollama models are local and cost nothing', () => {
    const overrides = { 'gpt-4o': { input: 1, output: 2 }, 'my-finetune': { input: 3, output: 4 } };
    expect(priceOf('gpt-4o-2024-08-06', 'openai', overrides)).toEqual({ price: { input: 1, output: 2 }, matched: 'gpt-4o', from: 'config' });
    expect(priceOf('my-finetune', 'openai', overrides)?.from).toBe('config');
    expect(priceOf('llama3.2', 'ollama')).toMatchObject({ price: { input: 0, output: 0 }, from: 'local' });
  });

  test('costs each kind of token at its own price, cached and cache-written input at the input price when none is given', () => {
    const tokens = { input: 1_000_000, cachedInput: 2_000_000, cacheWrite: 1_000_000, output: 500_000 };
    expect(costOf(tokens, { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 })).toBeCloseTo(3 + 0.6 + 3.75 + 7.5, 10);
    expect(costOf(tokens, { input: 1, output: 2 })).toBeCloseTo(1 + 2 + 1 + 1, 10);
  });
});

describe('Bedrock prices', () => {
  const haiku = 'anthropic.claude-3-5-haiku-20241022-v1:0';
  test('a model id as the path names it, a cross-region inference profile and an ARN of either are priced as the model', () => {
    const direct = priceOf(haiku, 'bedrock');
    expect(direct).toMatchObject({ matched: haiku, from: 'table', price: { input: 0.8, output: 4, cachedInput: 0.08, cacheWrite: 1 } });
    for (const id of [
      `us.${haiku}`,
      `eu.${haiku}`,
      `apac.${haiku}`,
      `arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.${haiku}`,
      `arn:aws:bedrock:us-west-2::foundation-model/${haiku}`,
    ])
      expect(priceOf(id, 'bedrock'), id).toEqual(direct);
    expect(bedrockModelId('us.amazon.nova-lite-v1:0')).toBe('amazon.nova-lite-v1:0');
    expect(priceOf('us.meta.llama3-3-70b-instruct-v1:0', 'bedrock')?.price).toMatchObject({ input: 0.72, output: 0.72 });
  });

  test('lists the common models, and an unknown model or an application profile is unpriced', () => {
    for (const id of [
      'anthropic.claude-3-5-sonnet-20241022-v2:0',
      'anthropic.claude-3-7-sonnet-20250219-v1:0',
      'anthropic.claude-sonnet-4-20250514-v1:0',
      'anthropic.claude-3-haiku-20240307-v1:0',
      'amazon.nova-micro-v1:0',
      'amazon.nova-lite-v1:0',
      'amazon.nova-pro-v1:0',
      'meta.llama3-1-70b-instruct-v1:0',
    ])
      expect(priceOf(id, 'bedrock'), id).toMatchObject({ from: 'table' });
    expect(priceOf('anthropic.claude-opus-9-v1:0', 'bedrock')).toBeUndefined();
    expect(priceOf('arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123', 'bedrock')).toBeUndefined();
    // Not a Bedrock id, so no geography is taken off.
    expect(priceOf(`us.${haiku}`, 'anthropic')).toBeUndefined();
  });
});
