import { request } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import { FakeProvider, failures, type FakeServer } from 'modeltape/fake-provider';
import { rawSession, sdkSession, silence, type RawSession } from '../support/realtime-client.js';
import { validateAgainstSpec } from '../support/spec-validator.js';

// What the Realtime API refuses, the fake refuses with the API's `error` event (the session stays
// open), and what the fake refuses of its own (a script that ran out) the same way, never by
// repeating an answer.

interface ErrorEvent {
  type: 'error';
  event_id: string;
  error: { type: string; code: string | null; message: string; param: string | null; event_id: string | null };
}

function errorsOf(session: RawSession): ErrorEvent[] {
  return session.frames.map((frame) => JSON.parse(frame) as ErrorEvent).filter((event) => event.type === 'error');
}

describe('a Realtime session refuses what the API refuses, as an error event', () => {
  let server: FakeServer | undefined;
  let session: RawSession | undefined;
  afterEach(async () => {
    await session?.close();
    await server?.close();
    session = server = undefined;
  });

  async function open(fake: FakeProvider): Promise<RawSession> {
    server = await fake.listen({ port: 0 });
    session = await rawSession(`${server.url}/v1/realtime?model=gpt-realtime`);
    await session.frameCount(1);
    return session;
  }

  test('an unknown event type, invalid JSON, a missing session.type or item: each one error event, and the session goes on', async () => {
    const fake = new FakeProvider().willSay('Still here.');
    const raw = await open(fake);
    raw.send({ type: 'response.creat', event_id: 'client-1' });
    raw.send('{"type": "session.update",');
    raw.send({ type: 'session.update', session: { instructions: 'x' } });
    raw.send({ type: 'conversation.item.create' });
    raw.send({ type: 'conversation.item.delete', item_id: 'item_none' });
    await raw.frameCount(6);
    const done = raw.next('response.done');
    raw.send({ type: 'response.create' });
    await done;

    const errors = errorsOf(raw);
    expect(errors.map((event) => [event.error.type, event.error.code, event.error.param, event.error.event_id])).toEqual([
      ['invalid_request_error', 'invalid_value', 'type', 'client-1'],
      ['invalid_request_error', 'invalid_json', null, null],
      ['invalid_request_error', 'missing_required_parameter', 'session.type', null],
      ['invalid_request_error', 'missing_required_parameter', 'item', null],
      ['invalid_request_error', 'item_delete_invalid_item_id', 'item_id', null],
    ]);
    expect(errors[0]!.error.message).toBe(
      "Invalid value: 'response.creat'. Supported values are: 'session.update', 'input_audio_buffer.append', 'input_audio_buffer.commit', 'input_audio_buffer.clear', 'output_audio_buffer.clear', 'conversation.item.create', 'conversation.item.retrieve', 'conversation.item.truncate', 'conversation.item.delete', 'response.create', and 'response.cancel'.",
    );
    expect(errors[2]!.error.message).toBe("Missing required parameter: 'session.type'.");
    for (const event of errors) expect(validateAgainstSpec('openai', 'RealtimeServerEvent', event)).toEqual({ valid: true, errors: [] });
    // Refused events are calls with status 400; the turn after them was answered.
    expect(fake.calls().map((call) => call.status)).toEqual([101, 400, 400, 400, 400, 400, 200]);
    expect(fake.problems()).toEqual([]);
    fake.assertConsumed();
  });

  test('response.create while a response is in progress is refused, and does not take the next step of the script', async () => {
    // The fake's waits are its own option: this one lasts until the test lets it end.
    let release: () => void = () => undefined;
    const waited = new Promise<void>((resolve) => (release = resolve));
    const fake = new FakeProvider({ sleep: () => waited }).willSay('Slowly.', { delayMs: 1 }).willSay('Next.');
    const sdk = await sdkSession((server = await fake.listen({ port: 0 })).baseUrls.openai);
    try {
      const refused = sdk.nextError();
      const created = sdk.next('response.created');
      sdk.realtime.send({ type: 'response.create' });
      await created;
      sdk.realtime.send({ type: 'response.create', event_id: 'second' });
      const error = await refused;
      release();
      expect(error.error).toEqual({
        type: 'invalid_request_error',
        code: 'conversation_already_has_active_response',
        message: 'Conversation already has an active response in progress: fake-resp-0. Wait until the response is finished before creating a new one.',
        param: null,
        event_id: 'second',
      });
      const done = sdk.next('response.done');
      await done;
      expect(sdk.events.filter((event) => event.type === 'response.created')).toHaveLength(1);
      // The refused create took no step: the next one answers with it (spoken: the session's output is audio).
      const next = sdk.next('response.done');
      sdk.realtime.send({ type: 'response.create' });
      expect(((await next).response as { output: Array<{ content: Array<{ transcript: string }> }> }).output[0]!.content[0]!.transcript).toBe('Next.');
      expect(sdk.errors).toHaveLength(1);
      fake.assertConsumed();
    } finally {
      await sdk.close();
    }
  });

  test('a script that ran out is an error event naming the call, never a repeat of the last answer', async () => {
    const fake = new FakeProvider().willSay('Only once.');
    const raw = await open(fake);
    const first = raw.next('response.done');
    raw.send({ type: 'response.create' });
    await first;
    const refused = raw.next('error');
    raw.send({ type: 'response.create', event_id: 'again' });
    const error = (await refused) as unknown as ErrorEvent;
    expect(error.error).toMatchObject({ type: 'invalid_request_error', code: 'fake_script_exhausted', event_id: 'again' });
    expect(error.error.message).toContain('FakeProvider script ran out at call 2 (WS /v1/realtime?model=gpt-realtime, model gpt-realtime)');
    const answers = raw.frames.filter((frame) => frame.includes('Only once.') && JSON.parse(frame).type !== 'error');
    expect(raw.frames.filter((frame) => JSON.parse(frame).type === 'response.created')).toHaveLength(1);
    // Transcript done, content part done, output item done, conversation item done, response done: one response's worth.
    expect(answers).toHaveLength(5);
    // The error names what the turn was shown: the answer it already gave, once.
    expect(error.error.message).toContain('assistant: Only once.');
    expect(fake.calls().map((call) => call.status)).toEqual([101, 200, 422]);
    expect(fake.problems()).toHaveLength(1);
    expect(() => fake.assertConsumed()).toThrow(/script ran out at call 2/);
  });

  test('committing less than 100ms of audio, and cancelling when nothing is in progress, are refused as the API refuses them', async () => {
    const fake = new FakeProvider().willFail(failures.hang());
    const raw = await open(fake);
    raw.send({ type: 'input_audio_buffer.append', audio: silence(50) });
    raw.send({ type: 'input_audio_buffer.commit' });
    raw.send({ type: 'response.cancel' });
    await raw.frameCount(3);
    // A response that hangs is in progress until cancelled: response.done says cancelled.
    const created = raw.next('response.created');
    raw.send({ type: 'response.create' });
    await created;
    const cancelled = raw.next('response.done');
    raw.send({ type: 'response.cancel' });
    expect((await cancelled).response).toMatchObject({ status: 'cancelled', status_details: { type: 'cancelled', reason: 'client_cancelled' }, output: [] });

    expect(errorsOf(raw).map((event) => [event.error.code, event.error.message])).toEqual([
      [
        'input_audio_buffer_commit_empty',
        'Error committing input audio buffer: buffer too small. Expected at least 100ms of audio, but buffer only has 50.00ms of audio.',
      ],
      ['response_cancel_not_active', 'Cancellation failed: no active response found'],
    ]);
    fake.assertConsumed();
  });

  test('an upgrade on another path is a 404, and one without a model a 400, in OpenAI’s error shape and marked fake', async () => {
    const fake = new FakeProvider();
    server = await fake.listen({ port: 0 });
    const refusals: Array<[number | undefined, string | undefined, string]> = [];
    for (const path of ['/v1/chat/completions', '/anthropic/v1/realtime?model=x', '/v1/realtime']) {
      refusals.push(
        await new Promise((resolve, reject) => {
          const upgrade = request(`${server!.url}${path}`, {
            headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' },
          });
          upgrade.on('response', (response) => {
            let body = '';
            response.on('data', (chunk) => (body += chunk));
            response.on('end', () => resolve([response.statusCode, response.headers['x-modeltape-fake'] as string | undefined, body]));
          });
          upgrade.on('upgrade', () => reject(new Error(`${path} was upgraded`)));
          upgrade.on('error', reject);
          upgrade.end();
        }),
      );
    }
    expect(refusals.map(([status, marker]) => [status, marker])).toEqual([
      [404, '1'],
      [404, '1'],
      [400, '1'],
    ]);
    expect(JSON.parse(refusals[0]![2]).error).toMatchObject({ type: 'invalid_request_error', code: 'unknown_url' });
    expect(JSON.parse(refusals[2]![2]).error).toMatchObject({ code: 'missing_required_parameter', param: 'model' });
    expect(fake.calls().map((call) => [call.path, call.status])).toEqual([
      ['/v1/chat/completions', 404],
      ['/anthropic/v1/realtime?model=x', 404],
      ['/v1/realtime', 400],
    ]);
  });
});
