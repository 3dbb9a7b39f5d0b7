import Anthropic from '@anthropic-ai/sdk';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import OpenAI from 'openai';
import type { FakeProvider } from 'modeltape/fake-provider';

/** How the SDKs reach the fake: its in-process `fetch`, or HTTP to `listen()`. */
export type Transport = 'fetch' | 'http';
export const TRANSPORTS: Transport[] = ['fetch', 'http'];

export interface FakeClients {
  openai: OpenAI;
  anthropic: Anthropic;
  vercelOpenAI: ReturnType<typeof createOpenAI>;
  vercelAnthropic: ReturnType<typeof createAnthropic>;
  close(): Promise<void>;
}

/** The official clients, unmodified, pointed at the fake one way or the other. Retries off unless asked. */
export async function clientsFor(fake: FakeProvider, transport: Transport, options: { maxRetries?: number } = {}): Promise<FakeClients> {
  const maxRetries = options.maxRetries ?? 0;
  if (transport === 'fetch') {
    // Any base URL works: nothing leaves the process.
    return {
      openai: new OpenAI({ apiKey: 'fake-key', baseURL: 'https://api.openai.com/v1', fetch: fake.fetch, maxRetries }),
      anthropic: new Anthropic({ apiKey: 'fake-key', baseURL: 'https://api.anthropic.com', fetch: fake.fetch, maxRetries }),
      vercelOpenAI: createOpenAI({ apiKey: 'fake-key', fetch: fake.fetch }),
      vercelAnthropic: createAnthropic({ apiKey: 'fake-key', fetch: fake.fetch }),
      close: async () => undefined,
    };
  }
  const server = await fake.listen({ port: 0 });
  return {
    openai: new OpenAI({ apiKey: 'fake-key', baseURL: server.baseUrls.openai, maxRetries }),
    anthropic: new Anthropic({ apiKey: 'fake-key', baseURL: server.baseUrls.anthropic, maxRetries }),
    vercelOpenAI: createOpenAI({ apiKey: 'fake-key', baseURL: server.baseUrls.openai }),
    // @ai-sdk/anthropic appends /messages to its base URL; the fake serves both paths.
    vercelAnthropic: createAnthropic({ apiKey: 'fake-key', baseURL: server.url }),
    close: () => server.close(),
  };
}
