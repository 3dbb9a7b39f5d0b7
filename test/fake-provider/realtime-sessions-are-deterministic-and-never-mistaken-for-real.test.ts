import { expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { rawSession } from '../support/realtime-client.js';

// The same script gives the same Realtime session byte for byte, and nothing in it can pass for
// the real API's: the upgrade carries the fake's marker, every id says fake, usage is never zero.

async function converse(fake: FakeProvider): Promise<{ frames: string[]; marker: unknown }> {
  const server = await fake.listen({ port: 0 });
  const session = await rawSession(`${server.url}/openai/v1/realtime?model=gpt-realtime`);
  try {
    session.send({
      type: 'session.update',
      session: { type: 'realtime', output_modalities: ['text'], tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } }] },
    });
    session.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Find order 42.' }] } });
    const first = session.next('response.done');
    session.send({ type: 'response.create' });
    const call = ((await first).response as { output: Array<{ call_id: string }> }).output[0]!;
    session.send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: call.call_id, output: 'shipped' } });
    const second = session.next('response.done');
    session.send({ type: 'response.create', response: { output_modalities: ['audio'] } });
    await second;
    return { frames: [...session.frames], marker: session.headers['x-modeltape-fake'] };
  } finally {
    await session.close();
    await server.close();
  }
}

const script = () => new FakeProvider().willCallTool('lookup', { order: 42 }).willSay('Order 42 has shipped.', { chunks: { size: 5 } });

test('the same script gives byte-identical Realtime events, every id fake and usage never zero', async () => {
  const first = await converse(script());
  const second = await converse(script());
  expect(second.frames).toEqual(first.frames);
  expect(first.frames).toHaveLength(30);

  expect(first.marker).toBe('1');
  const events = first.frames.map((frame) => JSON.parse(frame) as Record<string, unknown>);
  const ids: string[] = [];
  const collect = (value: unknown, key = ''): void => {
    if (Array.isArray(value)) value.forEach((entry) => collect(entry));
    else if (value !== null && typeof value === 'object') for (const [name, inner] of Object.entries(value)) collect(inner, name);
    else if (typeof value === 'string' && /(^|_)id$/.test(key)) ids.push(value);
  };
  collect(events);
  // event_id, session id, conversation_id, item ids, response ids, call ids and the items' back-references.
  expect(ids.length).toBeGreaterThan(60);
  expect(ids.filter((id) => !id.startsWith('fake-'))).toEqual([]);
  expect((events[0]!.session as { model: string }).model).toBe('fake-gpt-realtime');
  const usages = events.filter((event) => event.type === 'response.done').map((event) => (event.response as { usage: Record<string, number> }).usage);
  expect(usages).toHaveLength(2);
  for (const usage of usages) {
    expect(usage.input_tokens).toBeGreaterThan(0);
    expect(usage.output_tokens).toBeGreaterThan(0);
    expect(usage.total_tokens).toBe(usage.input_tokens! + usage.output_tokens!);
  }
});
