// Realtime clients for tests: the official `openai` SDK's OpenAIRealtimeWS (what users run), and a
// raw `ws` client for what the SDK cannot send or show (bytes, invalid JSON, the 101's headers).
import type { IncomingHttpHeaders } from 'node:http';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { WebSocket } from 'ws';
import { loopbackWebSocket } from 'modeltape/proxy';

export type ServerEvent = { type: string; event_id: string } & Record<string, unknown>;

/** The SDK's realtime client on `baseUrl` (an `/v1` base URL), with every server event and error it raised kept in order. */
export interface SdkSession {
  realtime: OpenAIRealtimeWS;
  events: ServerEvent[];
  /** The messages of the errors the SDK raised (`OpenAIRealtimeError`), in order. */
  errors: string[];
  /** Resolves with the next event of this type (one that arrives after the call). */
  next(type: string): Promise<ServerEvent>;
  /** Resolves with the next error the SDK raises. */
  nextError(): Promise<Error & { error?: Record<string, unknown> }>;
  close(): Promise<void>;
}

export async function sdkSession(baseUrl: string, model = 'gpt-realtime', apiKey = 'fake-key'): Promise<SdkSession> {
  const realtime = new OpenAIRealtimeWS({ model, options: loopbackWebSocket() }, new OpenAI({ apiKey, baseURL: baseUrl }));
  const events: ServerEvent[] = [];
  const errors: string[] = [];
  const created = new Promise<void>((resolve, reject) => {
    realtime.once('session.created', () => resolve());
    realtime.socket.once('error', reject);
  });
  realtime.on('event', (event) => events.push(event as unknown as ServerEvent));
  realtime.on('error', (error) => errors.push(error.message));
  await created;
  return {
    realtime,
    events,
    errors,
    next: (type) => new Promise((resolve) => realtime.once(type as never, resolve as never)),
    nextError: () => new Promise((resolve) => realtime.once('error', resolve as never)),
    close: async () => {
      if (realtime.socket.readyState === WebSocket.CLOSED) return;
      const closed = new Promise((resolve) => realtime.socket.once('close', resolve));
      realtime.close();
      await closed;
    },
  };
}

/** A plain `ws` client: the text frames as they came, the upgrade's status and headers. */
export interface RawSession {
  frames: string[];
  headers: IncomingHttpHeaders;
  send(text: string | Record<string, unknown>): void;
  /** Resolves once `count` frames in all have come. */
  frameCount(count: number): Promise<string[]>;
  /** Resolves with the next event of this type, parsed. */
  next(type: string): Promise<ServerEvent>;
  close(): Promise<void>;
}

export async function rawSession(url: string): Promise<RawSession> {
  const socket = new WebSocket(url.replace(/^http/, 'ws'), { perMessageDeflate: false });
  const frames: string[] = [];
  const waiting: Array<() => void> = [];
  socket.on('message', (data) => {
    frames.push(String(data));
    for (const wake of waiting.splice(0)) wake();
  });
  const headers = await new Promise<IncomingHttpHeaders>((resolve, reject) => {
    socket.once('upgrade', (response) => resolve(response.headers));
    socket.once('unexpected-response', (_request, response) => reject(new Error(`upgrade refused with ${response.statusCode}`)));
    socket.once('error', reject);
  });
  await new Promise((resolve) => (socket.readyState === WebSocket.OPEN ? resolve(undefined) : socket.once('open', resolve)));
  const until = async (done: () => boolean): Promise<void> => {
    while (!done()) await new Promise<void>((resolve) => waiting.push(resolve));
  };
  return {
    frames,
    headers,
    send: (text) => socket.send(typeof text === 'string' ? text : JSON.stringify(text)),
    frameCount: async (count) => {
      await until(() => frames.length >= count);
      return frames.slice(0, count);
    },
    next: async (type) => {
      const from = frames.length;
      const find = () => frames.slice(from).find((frame) => (JSON.parse(frame) as ServerEvent).type === type);
      await until(() => find() !== undefined);
      return JSON.parse(find()!) as ServerEvent;
    },
    close: async () => {
      if (socket.readyState === WebSocket.CLOSED) return;
      const closed = new Promise((resolve) => socket.once('close', resolve));
      socket.close();
      await closed;
    },
  };
}

/** `ms` milliseconds of silence as 24 kHz PCM16 mono, base64: what a microphone would send. */
export function silence(ms: number): string {
  return Buffer.alloc(ms * 48).toString('base64');
}
