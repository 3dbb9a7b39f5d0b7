import { afterEach, describe, expect, test } from 'vitest';
import { FakeProvider, type FakeServer } from 'modeltape/fake-provider';
import { checkRealtimeResponseGrammar } from '../../providers/internal.js';
import { sdkSession, silence, type SdkSession, type ServerEvent } from '../support/realtime-client.js';
import { validateAgainstSpec } from '../support/spec-validator.js';

// The official openai SDK's OpenAIRealtimeWS against fake.listen(): the fake's script answers a
// Realtime session as it answers HTTP turns, in the GA event grammar the SDK types.

const tools = [
  {
    type: 'function' as const,
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
];

/** Every server event is one the spec's RealtimeServerEvent union admits; the count checked is returned. */
function expectSpecValid(events: readonly ServerEvent[]): number {
  for (const event of events) expect(validateAgainstSpec('openai', 'RealtimeServerEvent', event), event.type).toEqual({ valid: true, errors: [] });
  return events.length;
}

/** The events of each response, from its response.created to its response.done, each obeying the grammar. */
function expectResponsesInGrammar(events: readonly ServerEvent[]): number {
  const ids = [...new Set(events.filter((event) => event.type === 'response.created').map((event) => (event.response as { id: string }).id))];
  for (const id of ids) {
    const own = events.filter(
      (event) =>
        event.response_id === id ||
        (event.response as { id?: string } | undefined)?.id === id ||
        // The response's items joining the conversation, between its created and its done.
        (event.type.startsWith('conversation.item.') &&
          (event.item as { status?: string; role?: string; type?: string }).role !== 'user' &&
          within(events, event, id)),
    );
    expect(checkRealtimeResponseGrammar(own), id).toEqual([]);
  }
  return ids.length;
}

function within(events: readonly ServerEvent[], event: ServerEvent, id: string): boolean {
  const at = events.indexOf(event);
  const start = events.findIndex((candidate) => candidate.type === 'response.created' && (candidate.response as { id: string }).id === id);
  const end = events.findIndex((candidate) => candidate.type === 'response.done' && (candidate.response as { id: string }).id === id);
  return at > start && at < end;
}

describe('a Realtime session with the official openai client against fake.listen()', () => {
  let server: FakeServer | undefined;
  let session: SdkSession | undefined;
  afterEach(async () => {
    await session?.close();
    await server?.close();
    session = server = undefined;
  });

  test('answers a text turn as scripted: session.updated, the item added and done, then the response streamed as text', async () => {
    const fake = new FakeProvider().willSay('Hello from the fake.');
    server = await fake.listen({ port: 0 });
    session = await sdkSession(server.baseUrls.openai);
    const { realtime } = session;
    const updated = session.next('session.updated');
    realtime.send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'], instructions: 'Be brief.' } });
    expect(((await updated).session as { instructions: string; output_modalities: string[] }).output_modalities).toEqual(['text']);
    const itemDone = session.next('conversation.item.done');
    realtime.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hello there' }] } });
    await itemDone;
    const done = session.next('response.done');
    realtime.send({ type: 'response.create' });
    const response = (await done).response as { status: string; usage: { total_tokens: number; output_tokens: number }; output: unknown[] };

    expect(session.events.map((event) => event.type)).toEqual([
      'session.created',
      'session.updated',
      'conversation.item.added',
      'conversation.item.done',
      'response.created',
      'response.output_item.added',
      'conversation.item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'conversation.item.done',
      'response.done',
    ]);
    const deltas = session.events.filter((event) => event.type === 'response.output_text.delta').map((event) => event.delta);
    expect(deltas).toEqual(['Hello', ' from', ' the', ' fake.']);
    expect(response.status).toBe('completed');
    expect(response.output).toEqual([
      { id: 'fake-item-1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hello from the fake.' }] },
    ]);
    expect(response.usage.total_tokens).toBeGreaterThan(response.usage.output_tokens);
    expect(response.usage.output_tokens).toBeGreaterThan(0);
    expect(session.errors).toEqual([]);

    // What the model was shown, and the session's client events among the fake's calls.
    const [turn] = fake.asked();
    expect(fake.asked()).toHaveLength(1);
    expect(turn).toMatchObject({ provider: 'openai', api: 'openai-realtime', model: 'gpt-realtime', system: 'Be brief.', stream: true });
    expect(turn!.prompt).toBe('system: Be brief.\nuser: Hello there');
    expect(turn!.items.map((item) => item.path)).toEqual(['.session.instructions', '.items[0]']);
    expect(fake.calls().map((call) => [call.method, call.api, call.status, (call.body as { type?: string } | undefined)?.type ?? null])).toEqual([
      ['GET', 'openai-realtime', 101, null],
      ['WS', 'openai-realtime', 200, 'session.update'],
      ['WS', 'openai-realtime', 200, 'conversation.item.create'],
      ['WS', 'openai-realtime', 200, 'response.create'],
    ]);
    expect(expectSpecValid(session.events)).toBe(17);
    expect(expectResponsesInGrammar(session.events)).toBe(1);
    fake.assertConsumed();
  });

  test('a tool call round trip: the call with its name and call id, the output sent back as function_call_output, then the answer', async () => {
    const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' }).willSay('It is raining in Paris.');
    server = await fake.listen({ port: 0 });
    session = await sdkSession(server.baseUrls.openai);
    const { realtime } = session;
    realtime.send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'], tools } });
    realtime.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] } });
    const first = session.next('response.done');
    const argumentsDone = session.next('response.function_call_arguments.done');
    realtime.send({ type: 'response.create' });
    const call = await argumentsDone;
    expect(call).toMatchObject({ name: 'get_weather', call_id: 'fake-call-0', arguments: '{"city":"Paris"}' });
    const deltas = session.events.filter((event) => event.type === 'response.function_call_arguments.delta');
    expect(deltas.map((event) => event.delta).join('')).toBe('{"city":"Paris"}');
    expect(deltas.every((event) => event.call_id === 'fake-call-0' && event.item_id === call.item_id)).toBe(true);
    expect(((await first).response as { output: unknown[] }).output).toEqual([
      { id: call.item_id, type: 'function_call', status: 'completed', name: 'get_weather', call_id: 'fake-call-0', arguments: '{"city":"Paris"}' },
    ]);

    realtime.send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: 'fake-call-0', output: '{"rain":true}' } });
    const second = session.next('response.done');
    realtime.send({ type: 'response.create' });
    const answer = (await second).response as { output: Array<{ content: Array<{ text: string }> }> };
    expect(answer.output[0]!.content[0]!.text).toBe('It is raining in Paris.');

    expect(fake.asked()).toHaveLength(2);
    expect(fake.asked()[0]!.tools.map((tool) => tool.name)).toEqual(['get_weather']);
    expect(fake.asked()[1]!.exchanges).toEqual([{ toolCallId: 'fake-call-0', name: 'get_weather', result: '{"rain":true}', isError: false }]);
    expect(fake.asked()[1]!.prompt).toBe('user: Weather in Paris?\nassistant: [get_weather({"city":"Paris"})]\ntool: {"rain":true}');
    expect(session.errors).toEqual([]);
    expect(expectSpecValid(session.events)).toBe(session.events.length);
    expect(expectResponsesInGrammar(session.events)).toBe(2);
    fake.assertConsumed();
  });

  test('with audio output, the scripted text is the audio transcript; committed audio is a user item the turn shows by its size', async () => {
    const fake = new FakeProvider().willSay('I heard you.');
    server = await fake.listen({ port: 0 });
    // Under the /openai/ prefix, as the fake's other OpenAI routes.
    session = await sdkSession(`${server.url}/openai/v1`);
    const { realtime } = session;
    // The session's default output is audio.
    for (const chunk of [silence(60), silence(60)]) realtime.send({ type: 'input_audio_buffer.append', audio: chunk });
    const committed = session.next('input_audio_buffer.committed');
    const itemDone = session.next('conversation.item.done');
    realtime.send({ type: 'input_audio_buffer.commit' });
    expect((await committed).item_id).toBe('fake-item-0');
    expect((await itemDone).item).toEqual({ id: 'fake-item-0', type: 'message', status: 'completed', role: 'user', content: [{ type: 'input_audio' }] });
    const done = session.next('response.done');
    realtime.send({ type: 'response.create' });
    await done;

    const types = session.events.map((event) => event.type);
    expect(types.filter((type) => type.startsWith('response.output_audio'))).toEqual([
      'response.output_audio_transcript.delta',
      'response.output_audio_transcript.delta',
      'response.output_audio_transcript.delta',
      'response.output_audio.done',
      'response.output_audio_transcript.done',
    ]);
    expect(types).not.toContain('response.output_text.delta');
    expect(session.events.find((event) => event.type === 'response.output_audio_transcript.done')!.transcript).toBe('I heard you.');
    expect(session.events.find((event) => event.type === 'response.output_item.done')!.item).toMatchObject({
      content: [{ type: 'output_audio', transcript: 'I heard you.' }],
    });
    const [turn] = fake.asked();
    expect(turn!.messages).toHaveLength(1);
    expect(turn!.messages[0]!.parts).toEqual([expect.objectContaining({ kind: 'file', type: 'input_audio', path: '.items[0].content[0]', bytes: 120 * 48 })]);
    expect(fake.calls()[0]!.path).toBe('/openai/v1/realtime?model=gpt-realtime');
    expect(expectSpecValid(session.events)).toBe(session.events.length);
    expect(expectResponsesInGrammar(session.events)).toBe(1);
    fake.assertConsumed();
  });

  test('unscripted, the first turn with tools calls the first tool with arguments from its schema, and later turns answer in text', async () => {
    const fake = new FakeProvider();
    server = await fake.listen({ port: 0 });
    session = await sdkSession(server.baseUrls.openai);
    const { realtime } = session;
    realtime.send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'], tools } });
    const first = session.next('response.done');
    realtime.send({ type: 'response.create' });
    const [call] = ((await first).response as { output: Array<{ type: string; name: string; call_id: string; arguments: string }> }).output;
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather' });
    expect(typeof (JSON.parse(call!.arguments) as { city: unknown }).city).toBe('string');
    realtime.send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: call!.call_id, output: 'sunny' } });
    const second = session.next('response.done');
    realtime.send({ type: 'response.create' });
    const output = ((await second).response as { output: Array<{ content: Array<{ text: string }> }> }).output;
    expect(output[0]!.content[0]!.text).toBe("This is a fake answer from modeltape's FakeProvider (call 4).");
  });
});
