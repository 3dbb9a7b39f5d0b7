import { afterEach, describe, expect, test } from 'vitest';
import { FakeProvider, failures, type FakeServer } from 'modeltape/fake-provider';
import { rawSession, type RawSession, type ServerEvent } from '../support/realtime-client.js';
import { validateAgainstSpec } from '../support/spec-validator.js';

// A Realtime session has no HTTP status per turn: a scripted failure ends the response as the API
// ends one (response.done with status "failed"), a drop closes the socket, a finish makes it
// incomplete; an out-of-band response leaves the conversation alone.

describe('scripted failures and finishes reach a Realtime client the Realtime way', () => {
  let server: FakeServer | undefined;
  let session: RawSession | undefined;
  afterEach(async () => {
    await session?.close();
    await server?.close();
    session = server = undefined;
  });

  async function respond(fake: FakeProvider, response: Record<string, unknown> = {}): Promise<ServerEvent[]> {
    server = await fake.listen({ port: 0 });
    session = await rawSession(`${server.url}/v1/realtime?model=gpt-realtime`);
    session.send({ type: 'session.update', session: { type: 'realtime', output_modalities: ['text'] } });
    session.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] } });
    const done = session.next('response.done');
    session.send({ type: 'response.create', response });
    await done;
    const events = session.frames.map((frame) => JSON.parse(frame) as ServerEvent);
    for (const event of events) expect(validateAgainstSpec('openai', 'RealtimeServerEvent', event), event.type).toEqual({ valid: true, errors: [] });
    return events.slice(events.findIndex((event) => event.type === 'response.created'));
  }

  test('a server error or a rate limit fails the response: response.done says failed, with the error', async () => {
    for (const [failure, error] of [
      [failures.serverError(), { type: 'server_error', code: 'server_error' }],
      [failures.rateLimited(), { type: 'requests', code: 'rate_limit_exceeded' }],
    ] as const) {
      const events = await respond(new FakeProvider().willFail(failure));
      expect(events.map((event) => event.type)).toEqual(['response.created', 'response.done']);
      expect(events[1]!.response).toMatchObject({ status: 'failed', status_details: { type: 'failed', error }, output: [] });
      await session!.close();
      await server!.close();
    }
  });

  test('a stream error sends the first events, then fails the response; a drop closes the socket after them', async () => {
    const broken = await respond(new FakeProvider().willFail(failures.streamError({ afterChunks: 4 })));
    expect(broken.map((event) => event.type)).toEqual([
      'response.created',
      'response.output_item.added',
      'conversation.item.added',
      'response.content_part.added',
      'response.done',
    ]);
    expect(broken.at(-1)!.response).toMatchObject({ status: 'failed', status_details: { type: 'failed', error: { type: 'server_error' } } });
    await session!.close();
    await server!.close();

    const fake = new FakeProvider().willFail(failures.dropConnection({ afterChunks: 2 }));
    server = await fake.listen({ port: 0 });
    session = await rawSession(`${server.url}/v1/realtime?model=gpt-realtime`);
    session.send({ type: 'response.create' });
    await session.frameCount(3);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(session.frames.map((frame) => (JSON.parse(frame) as ServerEvent).type)).toEqual([
      'session.created',
      'response.created',
      'response.output_item.added',
    ]);
    expect(fake.calls().map((call) => call.status)).toEqual([101, 200]);
  });

  test("finish 'length' makes the response incomplete with max_output_tokens; a finish Realtime has not fails the turn", async () => {
    const events = await respond(new FakeProvider().willSay('Once upon a', { finish: 'length' }));
    expect(events.at(-1)!.response).toMatchObject({
      status: 'incomplete',
      status_details: { type: 'incomplete', reason: 'max_output_tokens' },
      output: [{ status: 'incomplete', content: [{ type: 'output_text', text: 'Once upon a' }] }],
    });
    await session!.close();
    await server!.close();

    const fake = new FakeProvider().willSay('No.', { finish: 'refusal' });
    server = await fake.listen({ port: 0 });
    session = await rawSession(`${server.url}/v1/realtime?model=gpt-realtime`);
    const refused = session.next('error');
    session.send({ type: 'response.create' });
    expect((await refused).error).toMatchObject({ code: 'fake_answer_does_not_fit' });
    expect(fake.problems()[0]).toContain('finish "refusal" does not apply to openai-realtime');
  });

  test('an out-of-band response (conversation "none") sees only its input and leaves the conversation as it was', async () => {
    const fake = new FakeProvider().willSay('Positive.').willSay('Hello again.');
    const events = await respond(fake, {
      conversation: 'none',
      instructions: 'Classify the sentiment.',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'I love it' }] }],
    });
    expect(events.filter((event) => event.type.startsWith('conversation.'))).toEqual([]);
    expect(events[0]!.response).not.toHaveProperty('conversation_id');
    expect(fake.asked()[0]!.prompt).toBe('system: Classify the sentiment.\nuser: I love it');
    const done = session!.next('response.done');
    session!.send({ type: 'response.create' });
    await done;
    expect(fake.asked()[1]!.prompt).toBe('user: Hi');
    fake.assertConsumed();
  });
});
