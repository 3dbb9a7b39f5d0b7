import { startProxy } from 'modeltape/proxy';
import { fakeAnthropicKey, fakeGoogleKey, fakeOpenAiKey } from './fake-keys.js';

/** One request a test records: where it goes and its JSON body. */
export interface TapeRequest {
  upstream: string;
  /** Path and query on the upstream: `/v1/chat/completions`. */
  path: string;
  body: unknown;
}

/** The fake keys a recheck test sends with, as the SDKs send them; none may appear in any output. */
export const RECHECK_KEYS = { openai: fakeOpenAiKey(), anthropic: fakeAnthropicKey(), google: fakeGoogleKey() };

function credentialOf(upstream: string): Record<string, string> {
  if (upstream === 'anthropic') return { 'x-api-key': RECHECK_KEYS.anthropic, 'anthropic-version': '2023-06-01' };
  if (upstream === 'gemini') return { 'x-goog-api-key': RECHECK_KEYS.google };
  return { authorization: `Bearer ${RECHECK_KEYS.openai}` };
}

/**
 * Records `requests` into `tape`, one after another, through a proxy in record mode in front of
 * `upstreams` (a FakeProvider, a stand-in): the tape a recheck then sends again.
 */
export async function recordRequests(tape: string, upstreams: Record<string, string>, requests: readonly TapeRequest[]): Promise<void> {
  const proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams, log: () => {} });
  try {
    for (const request of requests) {
      const response = await fetch(`${proxy.url}/${request.upstream}${request.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...credentialOf(request.upstream) },
        body: JSON.stringify(request.body),
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`recording ${request.path} got ${response.status}`);
    }
  } finally {
    await proxy.close();
  }
}

/** A Chat Completions answer with `text`, as OpenAI sends it, reporting `tokens` in and out. */
export function chatCompletion(text: string, tokens = 10): string {
  return JSON.stringify({
    id: 'chatcmpl-standin',
    object: 'chat.completion',
    created: 1770000000,
    model: 'gpt-4o-2024-08-06',
    choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: tokens, completion_tokens: tokens, total_tokens: 2 * tokens },
  });
}

/** The last user message of a Chat Completions request body. */
export function lastUserMessage(body: string): string {
  const messages = (JSON.parse(body) as { messages: Array<{ content: string }> }).messages;
  return messages[messages.length - 1]!.content;
}
