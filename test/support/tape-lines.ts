import { appendFileSync, writeFileSync } from 'node:fs';
import { compileKeyRules, createHeader, exchangeKey, serializeLine, sha256Hex, type Exchange } from 'modeltape/recordings';

export const RULES = compileKeyRules();
export const HEADER_LINE = serializeLine(createHeader(RULES.rules));

/** A valid chat exchange with its real key; `streamed` answers with SSE frames. */
export function chatExchange(content: string, options: { ordinal?: number; streamed?: boolean; answer?: string } = {}): Exchange {
  const json = { model: 'gpt-4o-mini', messages: [{ role: 'user', content }] };
  const request: Exchange['request'] = { method: 'POST', path: '/v1/chat/completions', query: [], headers: { 'content-type': 'application/json' }, body: { json }, bodySha256: sha256Hex(JSON.stringify(json)) };
  const answer = options.answer ?? `You said: ${content}`;
  const response: Exchange['response'] = options.streamed
    ? {
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        stream: { format: 'sse', frames: [{ atMs: 0, text: `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: answer } }] })}\n\n` }, { atMs: 1, text: 'data: [DONE]\n\n' }] },
      }
    : { status: 200, headers: { 'content-type': 'application/json' }, body: { json: { id: 'chatcmpl-test', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }] } } };
  return { key: exchangeKey('openai', request, RULES), ordinal: options.ordinal ?? 0, upstream: 'openai', source: 'live', request, response };
}

/** `[[[…]]]` nested `depth` levels, as JSON text (JSON.stringify cannot write it past ~10,000). */
export function nestedText(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

/**
 * The canonical line of `exchange` with the JSON string `"<DEEP>"` (placed anywhere in it)
 * replaced by raw JSON text: how a line too deep for any writer is made.
 */
export function lineWith(exchange: Exchange, raw: string): string {
  const line = serializeLine(exchange);
  if (!line.includes('"<DEEP>"')) throw new Error('the exchange holds no "<DEEP>" placeholder');
  return line.replace('"<DEEP>"', () => raw);
}

export function writeTape(file: string, lines: readonly string[]): string {
  writeFileSync(file, HEADER_LINE);
  for (const line of lines) appendFileSync(file, line);
  return file;
}
