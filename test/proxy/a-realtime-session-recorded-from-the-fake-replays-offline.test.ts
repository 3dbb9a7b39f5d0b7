import { readFileSync } from 'node:fs';
import { afterEach, expect, test } from 'vitest';
import { FakeProvider, type FakeServer } from 'modeltape/fake-provider';
import { startProxy, type RunningProxy } from 'modeltape/proxy';
import { loadTape } from 'modeltape/recordings';
import { sdkSession } from '../support/realtime-client.js';
import { tempDir } from '../support/temp-dir.js';

// A new user has no Realtime key: the FakeProvider is the peer they record from. The proxy records
// the session from the fake (the client's key is a made-up one), the tape says every exchange is
// fake, and the session replays with the fake gone.

interface Conversation {
  types: string[];
  text: string;
  callId: unknown;
  sessionId: unknown;
  errors: string[];
}

const tools = [{ type: 'function' as const, name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];

// The official client through the proxy: configure, ask, run the tool it calls, ask again.
async function converse(proxy: RunningProxy): Promise<Conversation> {
  const session = await sdkSession(proxy.baseUrls.openai, 'gpt-realtime', 'fake-key');
  try {
    const { realtime } = session;
    const updated = session.next('session.updated');
    realtime.send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'], instructions: 'Be brief.', tools } });
    await updated;
    const added = session.next('conversation.item.done');
    realtime.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] } });
    await added;
    const first = session.next('response.done');
    realtime.send({ type: 'response.create' });
    const call = ((await first).response as { output: Array<{ call_id: string }> }).output[0]!;
    const output = session.next('conversation.item.done');
    realtime.send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: call.call_id, output: '{"rain":true}' } });
    await output;
    const second = session.next('response.done');
    realtime.send({ type: 'response.create' });
    await second;
    return {
      types: session.events.map((event) => event.type),
      text: session.events
        .filter((event) => event.type === 'response.output_text.delta')
        .map((event) => event.delta)
        .join(''),
      callId: call.call_id,
      sessionId: (session.events[0]!.session as { id: string }).id,
      errors: session.errors,
    };
  } finally {
    await session.close();
  }
}

let upstream: FakeServer | undefined;
let proxy: RunningProxy | undefined;
const dir = tempDir();
afterEach(async () => {
  await proxy?.close();
  await upstream?.close();
  proxy = upstream = undefined;
});

test('a Realtime session recorded from the fake with no key replays offline with the fake closed, and its tape says source "fake"', async () => {
  const tape = `${dir}/realtime-from-the-fake.jsonl`;
  const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' }).willSay('It is raining in Paris.');
  upstream = await fake.listen({ port: 0 });
  proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: upstream.url }, log: () => {} });
  const recorded = await converse(proxy);
  expect(await proxy.close()).toMatchObject({ recorded: 6, misses: 0, refused: 0, upstreamErrors: 0 });
  proxy = undefined;
  await upstream.close();
  upstream = undefined;
  fake.assertConsumed();
  expect(recorded).toMatchObject({ text: 'It is raining in Paris.', callId: 'fake-call-0', sessionId: 'fake-sess-0', errors: [] });
  expect(fake.asked()[1]!.exchanges).toEqual([{ toolCallId: 'fake-call-0', name: 'get_weather', result: '{"rain":true}', isError: false }]);

  const { exchanges } = loadTape(tape);
  expect(
    exchanges.map(({ exchange }) => [
      exchange.source,
      exchange.request.method,
      exchange.request.path,
      (exchange.request.body as { json?: { type: string } } | undefined)?.json?.type ?? null,
    ]),
  ).toEqual([
    ['fake', 'GET', '/v1/realtime', null],
    ['fake', 'WS', '/v1/realtime', 'session.update'],
    ['fake', 'WS', '/v1/realtime', 'conversation.item.create'],
    ['fake', 'WS', '/v1/realtime', 'response.create'],
    ['fake', 'WS', '/v1/realtime', 'conversation.item.create'],
    ['fake', 'WS', '/v1/realtime', 'response.create'],
  ]);
  // The key the client sent went to the fake, never to the tape.
  expect(readFileSync(tape, 'utf8')).not.toContain('fake-key');

  // The fake is closed: replay answers from the tape alone.
  proxy = await startProxy({ tape, mode: 'replay', log: () => {} });
  const replayed = await converse(proxy);
  const summary = await proxy.close();
  proxy = undefined;
  expect(replayed).toEqual(recorded);
  expect(summary).toMatchObject({ hits: 6, misses: 0, recorded: 0, upstreamConnections: 0 });

  // A tape recorded from the fake is refused where live answers are required: every exchange of the session is named.
  await expect(startProxy({ tape, mode: 'replay', requireLive: true, log: () => {} })).rejects.toThrow(
    'holds 6 exchanges a FakeProvider answered (source "fake"), at lines 2, 3, 4, 5, 6, 7',
  );
});
