import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import { WebSocket } from 'ws';
import { startProxy, type RunningProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { fakeOpenAiKey } from '../support/fake-keys.js';
import { startRealtimeUpstream, type RealtimeUpstream } from '../support/realtime-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// A browser cannot set Authorization on a WebSocket: OpenAI's browser clients send the key as a
// subprotocol, beside the ones they speak, and the server answers with the one it speaks.
const browserProtocols = (key: string) => ['realtime', `openai-insecure-api-key.${key}`, 'openai-beta.realtime-v1'];

interface BrowserSession {
  protocol: string;
  /** The text of the answer to one message, or the error event's message. */
  say(text: string): Promise<string>;
  close(): Promise<void>;
}

// Opens a session as a browser client does (no Authorization header), and waits for session.created.
async function browserSession(proxy: RunningProxy, protocols: string[]): Promise<BrowserSession> {
  const url = `${proxy.baseUrls.openai.replace(/^http/, 'ws')}/realtime?model=gpt-realtime`;
  const socket = new WebSocket(url, protocols, { perMessageDeflate: false });
  const events: Array<Record<string, unknown>> = [];
  let wake: (() => void) | undefined;
  socket.on('message', (data) => {
    events.push(JSON.parse(String(data)) as Record<string, unknown>);
    wake?.();
  });
  const until = async (type: string, from: number): Promise<Record<string, unknown>> => {
    for (;;) {
      const found = events.slice(from).find((event) => event.type === type || event.type === 'error');
      if (found !== undefined) return found;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  await until('session.created', 0);
  return {
    protocol: socket.protocol,
    say: async (text) => {
      const from = events.length;
      socket.send(JSON.stringify({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } }));
      await until('conversation.item.done', from);
      socket.send(JSON.stringify({ type: 'response.create' }));
      const done = await until('response.output_text.done', from);
      return done.type === 'error' ? String((done.error as { message: string }).message) : String(done.text);
    },
    close: async () => {
      const closed = new Promise((resolve) => socket.once('close', resolve));
      socket.close();
      await closed;
    },
  };
}

describe('a Realtime client that authenticates by subprotocol, as a browser does', () => {
  let upstream: RealtimeUpstream | undefined;
  let proxy: RunningProxy | undefined;
  const dir = tempDir();
  afterEach(async () => {
    await proxy?.close();
    await upstream?.close();
    proxy = upstream = undefined;
  });

  test('its subprotocols reach the upstream, it is answered with the one the upstream chose, and the key never reaches the tape', async () => {
    const tape = `${dir}/browser.jsonl`;
    const key = fakeOpenAiKey();
    upstream = await startRealtimeUpstream();
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: upstream.url }, log: () => undefined });
    const recording = await browserSession(proxy, browserProtocols(key));
    expect(recording.protocol).toBe('realtime');
    expect(await recording.say('Hello')).toBe('You said: Hello.');
    await recording.close();
    expect((await proxy.close()).refused).toBe(0);
    proxy = undefined;
    // The upstream was offered every subprotocol, the key among them, and no Authorization.
    expect(upstream.upgrades).toHaveLength(1);
    expect(String(upstream.upgrades[0]!.headers['sec-websocket-protocol']).split(/\s*,\s*/)).toEqual(browserProtocols(key));
    expect(upstream.upgrades[0]!.headers.authorization).toBeUndefined();
    await upstream.close();
    upstream = undefined;

    expect(readFileSync(tape, 'utf8')).not.toContain(key.slice(8));
    const { exchanges } = loadTape(tape);
    expect(exchanges[0]!.exchange.request.method).toBe('GET');
    expect(exchanges[0]!.exchange.response.headers['sec-websocket-protocol']).toBe('realtime');

    // Replay answers with the subprotocol the recorded upstream chose, whatever key is offered.
    proxy = await startProxy({ tape, log: () => undefined });
    const replayed = await browserSession(proxy, browserProtocols(fakeOpenAiKey(`${'OTHER'.repeat(8)}0000`)));
    expect(replayed.protocol).toBe('realtime');
    expect(await replayed.say('Hello')).toBe('You said: Hello.');
    await replayed.close();
    expect(await proxy.close()).toMatchObject({ hits: 3, misses: 0, upstreamConnections: 0 });
    proxy = undefined;
  });

  test('a replay never answers with the subprotocol that carries the key, even offered first', async () => {
    const tape = `${dir}/key-first.jsonl`;
    upstream = await startRealtimeUpstream();
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: upstream.url }, log: () => undefined });
    const key = fakeOpenAiKey();
    const recording = await browserSession(proxy, [`openai-insecure-api-key.${key}`, 'realtime']);
    expect(recording.protocol).toBe('realtime');
    await recording.close();
    await proxy.close();
    proxy = await startProxy({ tape, log: () => undefined });
    const replayed = await browserSession(proxy, [`openai-insecure-api-key.${key}`, 'realtime']);
    expect(replayed.protocol).toBe('realtime');
    await replayed.close();
  });
});
