/** A response the fake gives, before it is written to a socket or wrapped in a fetch Response. */
export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  /** A plain body. */
  body?: string | Uint8Array;
  /** Or the frames of a stream, each a complete SSE event (or recorded chunk). */
  frames?: Array<string | Uint8Array>;
  /**
   * Stop early: after `afterFrames` frames (with a plain response, before the headers), the
   * connection drops or hangs until the client gives up.
   */
  cut?: { kind: 'drop' | 'hang'; afterFrames: number };
  /** Wait this long before the headers. */
  delayMs?: number;
}

import { FAKE_RESPONSE_HEADER } from '../recordings/internal.js';

/** The marker every fake response carries, so it can never pass for a real provider's. */
export const FAKE_HEADER = FAKE_RESPONSE_HEADER;

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): WireResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/** {@link jsonResponse} for a body already written as JSON text. */
export function jsonTextResponse(status: number, json: string, headers: Record<string, string> = {}): WireResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: json };
}

export function sseResponse(frames: string[], headers: Record<string, string> = {}): WireResponse {
  return { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers }, frames };
}

/** `data: {json}\n\n`, as OpenAI chat streams frame every chunk. */
export function dataFrame(value: unknown): string {
  return `data: ${typeof value === 'string' ? value : JSON.stringify(value)}\n\n`;
}

/** `event: type\ndata: {json}\n\n`, as Responses and Anthropic streams frame every event. */
export function eventFrame(type: string, value: unknown): string {
  return `event: ${type}\ndata: ${JSON.stringify(value)}\n\n`;
}
