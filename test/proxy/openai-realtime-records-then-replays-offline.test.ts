import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import OpenAI from 'openai';
import { OpenAIRealtimeWS } from 'openai/realtime/ws';
import { afterEach, describe, expect, test } from 'vitest';
import { loopbackWebSocket, startProxy, type RunningProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { fakeOpenAiKey } from '../support/fake-keys.js';
import { startRealtimeUpstream, type RealtimeUpstream } from '../support/realtime-upstream.js';
import { tempDir } from '../support/temp-dir.js';

interface Conversation {
  /** Every server event's type, in order. */
  types: string[];
  text: string;
  sessionId: unknown;
  errors: string[];
}

// A text conversation with the official SDK's realtime client: configure, say something, ask for a response.
async function converse(proxy: RunningProxy, key: string, said: string, audio = false): Promise<Conversation> {
  const realtime = new OpenAIRealtimeWS({ model: 'gpt-realtime', options: loopbackWebSocket() }, new OpenAI({ apiKey: key, baseURL: proxy.baseUrls.openai }));
  const seen: Conversation = { types: [], text: '', sessionId: undefined, errors: [] };
  const next = (type: string) => new Promise<Record<string, unknown>>((resolve) => realtime.once(type as never, resolve as never));
  realtime.on('event', (event) => {
    seen.types.push(event.type);
    if (event.type === 'response.output_text.delta') seen.text += event.delta;
  });
  realtime.on('error', (error) => {
    seen.errors.push(error.message);
  });
  const created = await next('session.created');
  seen.sessionId = (created.session as { id: string }).id;
  realtime.send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'], instructions: 'Be brief.' } });
  await next('session.updated');
  if (audio) {
    // The same recording, chunked as a microphone would send it, each event with an id of its own.
    for (const chunk of ['UklGRiQAAABXQVZF', 'Zm10IBAAAAABAAEA']) realtime.send({ type: 'input_audio_buffer.append', event_id: randomUUID(), audio: chunk });
    realtime.send({ type: 'input_audio_buffer.commit', event_id: randomUUID() });
    await next('input_audio_buffer.committed');
  } else {
    realtime.send({
      type: 'conversation.item.create',
      event_id: randomUUID(),
      item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: said }] },
    });
    await Promise.race([next('conversation.item.done'), next('error')]);
  }
  if (seen.errors.length === 0) {
    realtime.send({ type: 'response.create' });
    await next('response.done');
  }
  const closed = new Promise((resolve) => realtime.socket.once('close', resolve));
  realtime.close();
  await closed;
  return seen;
}

describe('an OpenAI Realtime session over WebSocket through the proxy', () => {
  let upstream: RealtimeUpstream | undefined;
  let proxy: RunningProxy | undefined;
  const dir = tempDir();
  afterEach(async () => {
    await proxy?.close();
    await upstream?.close();
    proxy = upstream = undefined;
  });

  async function record(tape: string, said: string, audio = false): Promise<Conversation> {
    upstream = await startRealtimeUpstream();
    proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: upstream.url } });
    const recorded = await converse(proxy, fakeOpenAiKey(), said, audio);
    const summary = await proxy.close();
    proxy = undefined;
    expect(summary).toMatchObject({ misses: 0, refused: 0, upstreamErrors: 0 });
    await upstream.close();
    return recorded;
  }

  test('records both directions with the real key sent and kept off the tape, then replays the session with the upstream gone', async () => {
    const tape = `${dir}/realtime.jsonl`;
    const key = fakeOpenAiKey();
    const recorded = await record(tape, 'Hello there');
    expect(recorded.text).toBe('You said: Hello there.');
    expect(recorded.types).toEqual([
      'session.created',
      'session.updated',
      'conversation.item.added',
      'conversation.item.done',
      'response.created',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.output_item.done',
      'response.done',
    ]);
    expect(upstream!.upgrades[0]!.url).toBe('/v1/realtime?model=gpt-realtime');
    const text = readFileSync(tape, 'utf8');
    expect(text).not.toContain(key.slice(8));
    const { exchanges } = loadTape(tape);
    expect(
      exchanges.map(({ exchange }) => [
        exchange.request.method,
        exchange.request.path,
        (exchange.request.body as { json?: { type: string } } | undefined)?.json?.type ?? null,
      ]),
    ).toEqual([
      ['GET', '/v1/realtime', null],
      ['WS', '/v1/realtime', 'session.update'],
      ['WS', '/v1/realtime', 'conversation.item.create'],
      ['WS', '/v1/realtime', 'response.create'],
    ]);
    expect(exchanges[0]!.exchange.request.query).toEqual([['model', 'gpt-realtime']]);

    proxy = await startProxy({ tape, mode: 'replay' });
    const replayed = await converse(proxy, 'a-different-fake-key', 'Hello there');
    const summary = await proxy.close();
    // The same events and the recorded session id, though this run's event ids are new.
    expect(replayed).toEqual(recorded);
    expect(summary).toMatchObject({ hits: 4, misses: 0, recorded: 0, upstreamConnections: 0 });
  });

  test('a client event that differs gets an error event naming it and the differing path, and the run fails', async () => {
    const tape = `${dir}/realtime-miss.jsonl`;
    await record(tape, 'Hello there');
    proxy = await startProxy({ tape, mode: 'replay' });
    const replayed = await converse(proxy, 'fake-key', 'Goodbye');
    const summary = await proxy.close();
    expect(replayed.errors).toHaveLength(1);
    expect(replayed.errors[0]).toContain('Failed to replay WS /openai/v1/realtime');
    expect(replayed.errors[0]).toContain('at .item.content[0].text: recorded "Hello there" sent "Goodbye"');
    expect(replayed.errors[0]).toContain('code=modeltape_replay_miss');
    expect(summary).toMatchObject({ hits: 2, misses: 1, upstreamConnections: 0 });
  });

  test('audio is keyed by its digest, its chunks by order: the same recording replays, with new event ids', async () => {
    const tape = `${dir}/realtime-audio.jsonl`;
    const recorded = await record(tape, '', true);
    expect(recorded.text).toBe('You said: your recording.');
    const line = loadTape(tape).exchanges[2]!.exchange.request.body as { json: { audio: string } };
    expect(line.json.audio).toBe('UklGRiQAAABXQVZF');
    proxy = await startProxy({ tape, mode: 'replay' });
    expect(await converse(proxy, 'fake-key', '', true)).toEqual(recorded);
    expect(await proxy.close()).toMatchObject({ misses: 0, upstreamConnections: 0 });
  });

  test('a client that speaks TLS to the proxy (the SDK without loopbackWebSocket) is told what to pass', async () => {
    const logged: string[] = [];
    proxy = await startProxy({ tape: `${dir}/tls.jsonl`, mode: 'replay', missingTape: 'empty', log: (message) => logged.push(message) });
    const realtime = new OpenAIRealtimeWS({ model: 'gpt-realtime' }, new OpenAI({ apiKey: 'fake-key', baseURL: proxy.baseUrls.openai }));
    await new Promise<Error>((resolve) => realtime.on('error', resolve));
    await expect.poll(() => logged.join('\n')).toContain('pass options: loopbackWebSocket() from modeltape/proxy');
  });

  test('an upgrade that is not a WebSocket one is refused before anything is opened upstream', async () => {
    upstream = await startRealtimeUpstream();
    proxy = await startProxy({ tape: `${dir}/h2c.jsonl`, mode: 'record', allowRecordInCi: true, upstreams: { openai: upstream.url } });
    const { port } = new URL(proxy.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () =>
        socket.write('GET /openai/v1/realtime?model=gpt-realtime HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n'),
      );
      let text = '';
      socket.on('data', (chunk) => (text += chunk));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(answer).toContain('not to a WebSocket');
    expect(upstream.upgrades).toHaveLength(0);
    expect((await proxy.close()).upstreamConnections).toBe(0);
  });

  test('a session the tape does not hold is an error event, then the socket closes; nothing is opened upstream', async () => {
    proxy = await startProxy({ tape: `${dir}/empty.jsonl`, mode: 'replay', missingTape: 'empty' });
    const realtime = new OpenAIRealtimeWS(
      { model: 'gpt-realtime', options: loopbackWebSocket() },
      new OpenAI({ apiKey: 'fake-key', baseURL: proxy.baseUrls.openai }),
    );
    const error = await new Promise<Error>((resolve) => realtime.on('error', resolve));
    expect(error.message).toContain('Failed to replay GET /openai/v1/realtime');
    const summary = await proxy.close();
    expect(summary).toMatchObject({ misses: 1, upstreamConnections: 0 });
  });
});
