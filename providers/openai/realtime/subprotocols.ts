/**
 * OpenAI Realtime's WebSocket subprotocols: a browser cannot set `Authorization` on a WebSocket,
 * so OpenAI's browser clients send the key as a subprotocol, beside the ones they speak:
 * `Sec-WebSocket-Protocol: realtime, openai-insecure-api-key.<key>, openai-beta.realtime-v1`. The
 * server answers with the one it speaks (`realtime`), never the key.
 */
export const REALTIME_KEY_PROTOCOL_PREFIX = 'openai-insecure-api-key.';

/** The subprotocols a `Sec-WebSocket-Protocol` header offers, in order. */
export function offeredSubprotocols(header: string | string[] | undefined): string[] {
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  return values.flatMap((value) => value.split(',').map((protocol) => protocol.trim())).filter((protocol) => protocol !== '');
}

/** Whether a subprotocol carries a key (`openai-insecure-api-key.<key>`). */
export function carriesRealtimeKey(protocol: string): boolean {
  return protocol.toLowerCase().startsWith(REALTIME_KEY_PROTOCOL_PREFIX);
}

/** A `Sec-WebSocket-Protocol` value with the key of every key-carrying subprotocol replaced by `REDACTED`. */
export function maskKeyProtocols(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  return offeredSubprotocols(header)
    .map((protocol) => (carriesRealtimeKey(protocol) ? `${REALTIME_KEY_PROTOCOL_PREFIX}REDACTED` : protocol))
    .join(', ');
}
