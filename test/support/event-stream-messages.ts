// AWS event stream messages for tests, built with @smithy/core's codec as an AWS service encodes
// them (not with modeltape's own encoder, which the tests check against them).
import { EventStreamCodec, type MessageHeaders } from '@smithy/core/event-streams';

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString('utf8'),
  (text) => Buffer.from(text, 'utf8'),
);

/** Bedrock's padding field, as it pads ConverseStream payloads. */
export const PADDING = 'abcdefghijklmnopqrstuvwxyzABCDEFGH';

/** One message: its headers (typed as the codec takes them) and its payload. */
export function eventStreamMessage(headers: MessageHeaders, payload: string | Buffer): Buffer {
  return Buffer.from(codec.encode({ headers, body: typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload }));
}

/** Bedrock's three string headers, in the order it sends them. */
export function eventHeaders(eventType: string, messageType = 'event'): MessageHeaders {
  return {
    ':event-type': { type: 'string', value: eventType },
    ':content-type': { type: 'string', value: 'application/json' },
    ':message-type': { type: 'string', value: messageType },
  };
}

/** A ConverseStream message, as Bedrock sends it: string headers, a compact JSON payload with its padding. */
export function converseMessage(eventType: string, payload: object): Buffer {
  return eventStreamMessage(eventHeaders(eventType), JSON.stringify({ ...payload, p: PADDING }));
}

/** An InvokeModelWithResponseStream `chunk`: the model's own event in base64, under `bytes`, then Bedrock's padding (`null`: none). */
export function chunkMessage(inner: object, padding: string | null = PADDING): Buffer {
  const bytes = Buffer.from(JSON.stringify(inner), 'utf8').toString('base64');
  return eventStreamMessage(eventHeaders('chunk'), JSON.stringify(padding === null ? { bytes } : { bytes, p: padding }));
}

/** A whole ConverseStream answer saying `text` in two deltas. */
export function converseStream(text = 'Hello there'): Buffer[] {
  const half = Math.ceil(text.length / 2);
  return [
    converseMessage('messageStart', { role: 'assistant' }),
    converseMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: text.slice(0, half) } }),
    converseMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: text.slice(half) } }),
    converseMessage('contentBlockStop', { contentBlockIndex: 0 }),
    converseMessage('messageStop', { stopReason: 'end_turn' }),
    converseMessage('metadata', { usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15 }, metrics: { latencyMs: 321 } }),
  ];
}
