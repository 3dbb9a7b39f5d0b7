import { captureRequest, exchangeKey, sha256Hex, type CompiledKeyRules, type Exchange, type RecordedRequest } from 'modeltape/recordings';
import { RULES } from './tape-lines.js';

/** A valid chat exchange with its real key; `streamed` answers with SSE frames. */
export function chatExchange(content: string, options: { ordinal?: number; streamed?: boolean; answer?: string } = {}): Exchange {
  const json = { model: 'gpt-4o-mini', messages: [{ role: 'user', content }] };
  const request: Exchange['request'] = {
    method: 'POST',
    path: '/v1/chat/completions',
    query: [],
    headers: { 'content-type': 'application/json' },
    body: { json },
    bodySha256: sha256Hex(JSON.stringify(json)),
  };
  const answer = options.answer ?? `You said: ${content}`;
  const response: Exchange['response'] = options.streamed
    ? {
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        stream: {
          format: 'sse',
          frames: [
            { atMs: 0, text: `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: answer } }] })}\n\n` },
            { atMs: 1, text: 'data: [DONE]\n\n' },
          ],
        },
      }
    : {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: {
          json: {
            id: 'chatcmpl-test',
            object: 'chat.completion',
            choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }],
          },
        },
      };
  return { key: exchangeKey('openai', request, RULES), ordinal: options.ordinal ?? 0, upstream: 'openai', source: 'live', request, response };
}

/** A chat completions request with the JSON `body`, as the recorder captures it under `rules`. */
export function capturedChatRequest(body: unknown, rules: CompiledKeyRules = RULES): RecordedRequest {
  return captureRequest(
    { method: 'POST', path: '/v1/chat/completions', query: '', headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)) },
    rules,
  );
}

/** A live openai exchange of `request`, keyed under `rules`, answered 200 with the JSON `answer`. */
export function exchangeOf(request: RecordedRequest, answer: unknown, rules: CompiledKeyRules = RULES, ordinal = 0): Exchange {
  return {
    key: exchangeKey('openai', request, rules),
    ordinal,
    upstream: 'openai',
    source: 'live',
    request,
    response: { status: 200, headers: {}, body: { json: answer } },
  };
}
