// What a re-recording would cost: the price of each model's tokens (USD per million, standard
// tier, text, not batched), as the providers publish them. The table is dated and names its
// sources; modeltape.config.json's `prices` adds models and overrides any of them.
import type { TokenCounts } from './answer-facts.js';

/** USD per million tokens of each kind. */
export interface ModelPrice {
  input: number;
  /** Input read from the provider's prompt cache. @default input */
  cachedInput?: number;
  /** Input written to the prompt cache (Anthropic's 5-minute cache write). @default input */
  cacheWrite?: number;
  output: number;
}

/** One row of the shipped table. */
export interface PriceEntry extends ModelPrice {
  model: string;
  /** Where the numbers were read. */
  source: string;
  /** `official`: read on the provider's own page; `secondary`: the official page was not reachable and the numbers agree across copies of it. */
  checked: 'official' | 'secondary';
}

/** The date the shipped table was checked against its sources. */
export const PRICES_AS_OF = '2026-12-03';

const ANTHROPIC = 'https://platform.claude.com/docs/en/about-claude/pricing';
const OPENAI = 'https://platform.openai.com/docs/pricing';
const GEMINI = 'https://ai.google.dev/gemini-api/docs/pricing';
// Bedrock on-demand, US East (N. Virginia), standard tier, per million tokens. The pricing page
// (https://aws.amazon.com/bedrock/pricing/) renders its tables in the browser: what could be read of
// it here is its text (a cross-region inference profile costs what the model costs in the source
// region, "no additional charge"); the numbers are from copies of its tables that agree with each
// other (secondary), checked on 2026-12-03. Not sure: Claude 3.5 Sonnet v2 is listed at $6/$30
// under Anthropic's extended access (it was $3/$15 before), and Llama 3 70B's $2.65/$3.50 was seen
// in one copy only; other regions (eu-…, ap-…) cost more for some models. Claude 3.5 Sonnet v2 and
// Claude 3 Haiku have no prompt cache on Bedrock; Nova's cache writes cost its input price.
const BEDROCK = 'https://aws.amazon.com/bedrock/pricing/';

/** The shipped table. Ollama and other local servers cost nothing and are not listed. */
export const PRICE_TABLE: readonly PriceEntry[] = [
  { model: 'claude-opus-4-1', input: 15, cachedInput: 1.5, cacheWrite: 18.75, output: 75, source: ANTHROPIC, checked: 'official' },
  { model: 'claude-opus-4', input: 15, cachedInput: 1.5, cacheWrite: 18.75, output: 75, source: ANTHROPIC, checked: 'official' },
  { model: 'claude-sonnet-4-5', input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15, source: ANTHROPIC, checked: 'official' },
  { model: 'claude-sonnet-4', input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15, source: ANTHROPIC, checked: 'official' },
  { model: 'claude-3-7-sonnet', input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15, source: ANTHROPIC, checked: 'official' },
  { model: 'claude-haiku-4-5', input: 1, cachedInput: 0.1, cacheWrite: 1.25, output: 5, source: ANTHROPIC, checked: 'official' },
  { model: 'claude-3-5-haiku', input: 0.8, cachedInput: 0.08, cacheWrite: 1, output: 4, source: ANTHROPIC, checked: 'official' },
  { model: 'gpt-5-mini', input: 0.25, cachedInput: 0.025, output: 2, source: 'https://developers.openai.com/api/docs/models/gpt-5-mini', checked: 'official' },
  {
    model: 'gpt-5-nano',
    input: 0.05,
    cachedInput: 0.005,
    output: 0.4,
    source: 'https://developers.openai.com/api/docs/models/gpt-5-nano',
    checked: 'official',
  },
  { model: 'gpt-5', input: 1.25, cachedInput: 0.125, output: 10, source: OPENAI, checked: 'secondary' },
  { model: 'gpt-4.1', input: 2, cachedInput: 0.5, output: 8, source: OPENAI, checked: 'secondary' },
  { model: 'gpt-4.1-mini', input: 0.4, cachedInput: 0.1, output: 1.6, source: OPENAI, checked: 'secondary' },
  { model: 'gpt-4.1-nano', input: 0.1, cachedInput: 0.025, output: 0.4, source: OPENAI, checked: 'secondary' },
  { model: 'gpt-4o', input: 2.5, cachedInput: 1.25, output: 10, source: OPENAI, checked: 'secondary' },
  { model: 'gpt-4o-mini', input: 0.15, cachedInput: 0.075, output: 0.6, source: OPENAI, checked: 'secondary' },
  { model: 'o3', input: 2, cachedInput: 0.5, output: 8, source: OPENAI, checked: 'secondary' },
  { model: 'o4-mini', input: 1.1, cachedInput: 0.275, output: 4.4, source: OPENAI, checked: 'secondary' },
  { model: 'text-embedding-3-small', input: 0.02, output: 0, source: OPENAI, checked: 'secondary' },
  { model: 'text-embedding-3-large', input: 0.13, output: 0, source: OPENAI, checked: 'secondary' },
  { model: 'gemini-2.5-pro', input: 1.25, cachedInput: 0.31, output: 10, source: GEMINI, checked: 'secondary' },
  { model: 'gemini-2.5-flash', input: 0.3, cachedInput: 0.075, output: 2.5, source: GEMINI, checked: 'secondary' },
  { model: 'gemini-2.5-flash-lite', input: 0.1, cachedInput: 0.025, output: 0.4, source: GEMINI, checked: 'secondary' },
  // Bedrock model ids as the path names them; inference profiles (`us.…`, `eu.…`) and ARNs are priced as their model (bedrockModelId).
  { model: 'anthropic.claude-3-5-haiku-20241022-v1:0', input: 0.8, cachedInput: 0.08, cacheWrite: 1, output: 4, source: BEDROCK, checked: 'secondary' },
  { model: 'anthropic.claude-3-5-sonnet-20241022-v2:0', input: 6, output: 30, source: BEDROCK, checked: 'secondary' },
  { model: 'anthropic.claude-3-7-sonnet-20250219-v1:0', input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15, source: BEDROCK, checked: 'secondary' },
  { model: 'anthropic.claude-sonnet-4-20250514-v1:0', input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15, source: BEDROCK, checked: 'secondary' },
  { model: 'anthropic.claude-3-haiku-20240307-v1:0', input: 0.25, output: 1.25, source: BEDROCK, checked: 'secondary' },
  { model: 'amazon.nova-micro-v1:0', input: 0.035, cachedInput: 0.00875, output: 0.14, source: BEDROCK, checked: 'secondary' },
  { model: 'amazon.nova-lite-v1:0', input: 0.06, cachedInput: 0.015, output: 0.24, source: BEDROCK, checked: 'secondary' },
  { model: 'amazon.nova-pro-v1:0', input: 0.8, cachedInput: 0.2, output: 3.2, source: BEDROCK, checked: 'secondary' },
  { model: 'meta.llama3-3-70b-instruct-v1:0', input: 0.72, output: 0.72, source: BEDROCK, checked: 'secondary' },
  { model: 'meta.llama3-1-70b-instruct-v1:0', input: 0.72, output: 0.72, source: BEDROCK, checked: 'secondary' },
  { model: 'meta.llama3-70b-instruct-v1:0', input: 2.65, output: 3.5, source: BEDROCK, checked: 'secondary' },
];

/** Prices by model name, from config: they add to the table and win over it. */
export type PriceOverrides = Readonly<Record<string, ModelPrice>>;

/** A model's price and where it came from. */
export interface FoundPrice {
  price: ModelPrice;
  /** The table or config row it matched (`gpt-4.1-mini` for `gpt-4.1-mini-2025-04-14`). */
  matched: string;
  from: 'table' | 'config' | 'local';
}

/**
 * The price of `model`: an exact row, else the row its name gives without a date or `-latest`
 * suffix (`gpt-4o-2024-08-06`, `claude-sonnet-4-5-20250929`, Vertex AI's `claude-sonnet-4-5@20250929`, `claude-3-5-haiku-latest`), config
 * first. Never a prefix guess: `claude-opus-4-8` is not `claude-opus-4`, so an unknown model is
 * unpriced and said to be. Models on Ollama are local and cost nothing.
 */
export function priceOf(model: string, provider: string | undefined, overrides: PriceOverrides = {}): FoundPrice | undefined {
  if (provider === 'ollama') return { price: { input: 0, output: 0 }, matched: model, from: 'local' };
  const bare = model.replace(/^models\//, '');
  const names = provider === 'bedrock' ? [bare, bedrockModelId(bare)] : [bare, withoutVersionSuffix(bare)];
  for (const name of names) {
    const own = Object.hasOwn(overrides, name) ? overrides[name] : undefined;
    if (own !== undefined) return { price: own, matched: name, from: 'config' };
    const row = PRICE_TABLE.find((entry) => entry.model === name);
    if (row !== undefined) return { price: row, matched: name, from: 'table' };
  }
  return undefined;
}

/**
 * The foundation model a Bedrock model id names, as the price table lists it: an ARN's resource
 * (`arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-…` or
 * `…::foundation-model/anthropic.claude-…`) without its ARN, and a cross-region inference profile
 * (`us.`, `eu.`, `apac.`, `global.`, … before the vendor) without its geography: a profile costs
 * what its model costs. An application inference profile's ARN names no model and stays as it is.
 *
 * @example bedrockModelId('us.anthropic.claude-3-5-haiku-20241022-v1:0') // 'anthropic.claude-3-5-haiku-20241022-v1:0'
 */
export function bedrockModelId(model: string): string {
  const resource = /^arn:aws[a-z-]*:bedrock:[^:]*:[^:]*:(?:inference-profile|foundation-model)\/(.+)$/.exec(model)?.[1] ?? model;
  return resource.replace(/^(?:us|us-gov|eu|apac|ap|ca|jp|au|global)\.(?=[a-z0-9-]+\.)/, '');
}

// Vertex AI names a Claude version after `@` (`claude-sonnet-4-5@20250929`).
function withoutVersionSuffix(model: string): string {
  return model.replace(/(?:-(?:\d{4}-\d{2}-\d{2}|\d{8}|latest|preview-\d{2}-\d{4}|\d{3})|@\d{8})$/, '');
}

/** The USD cost of `tokens` at `price`. */
export function costOf(tokens: TokenCounts, price: ModelPrice): number {
  return (
    (tokens.input * price.input +
      tokens.cachedInput * (price.cachedInput ?? price.input) +
      tokens.cacheWrite * (price.cacheWrite ?? price.input) +
      tokens.output * price.output) /
    1_000_000
  );
}
