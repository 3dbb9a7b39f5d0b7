import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { assertReplayWasNotBackstopped, type Agent } from 'modeltape/runtime';
import { closeAfterEach } from '../support/close-after-each.js';
import { parcelAgent, parcelRuntime, scriptParcel } from '../support/parcel-agent.js';

const started = closeAfterEach();
const agent: Agent = { ...parcelAgent, name: 'parcel-desk-ollama', provider: 'ollama', model: 'llama3.2' };

describe('a run over Ollama', () => {
  test('speaks /api/chat through fake.fetch: object arguments, results named by tool_name, stream off, and replays strictly', async () => {
    const fake = scriptParcel(new FakeProvider());
    const { runtime, runs } = parcelRuntime({ fake, agents: [agent], providers: { ollama: { api: 'ollama-chat', fetch: fake.fetch } } });
    const outcome = await runtime.run('parcel-desk-ollama', 'Where is parcel P-1?');
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toBe('Parcel P-1 is in Lyon; I told the customer.');
    expect(runs.send).toEqual([{ to: 'customer', text: 'Your parcel P-1 is in Lyon.' }]);
    const calls = fake.calls();
    expect(calls.map((call) => `${call.method} ${call.path} ${call.api}`)).toEqual(Array(3).fill('POST /api/chat ollama-chat'));
    // A local Ollama takes no key: none is sent.
    expect(calls[0]!.headers.authorization).toBeUndefined();
    const last = calls[2]!.body as { stream: boolean; messages: Array<Record<string, unknown>>; tools: unknown[] };
    expect(last.stream).toBe(false);
    expect(last.tools).toHaveLength(2);
    expect(last.messages[0]).toEqual({ role: 'system', content: parcelAgent.system });
    expect(last.messages[2]).toMatchObject({
      role: 'assistant',
      tool_calls: [{ id: 'call_lookup', function: { name: 'lookup_parcel', arguments: { parcel: 'P-1' } } }],
    });
    expect(last.messages[3]).toMatchObject({ role: 'tool', tool_name: 'lookup_parcel', tool_call_id: 'call_lookup' });
    const asked = fake.asked();
    expect(asked.map((turn) => turn.api)).toEqual(['ollama-chat', 'ollama-chat', 'ollama-chat']);
    expect(asked[2]!.exchanges).toMatchObject([{ toolCallId: 'call_send', name: 'send_message', isError: false }]);
    const replayed = await runtime.replay(outcome.runId, 'strict');
    expect(replayed.output).toBe(outcome.output);
    expect(fake.calls()).toHaveLength(3);
    assertReplayWasNotBackstopped(replayed, 'ollama');
  });

  test('reaches {base}/api/chat over HTTP with the base URL an Ollama host has', async () => {
    const fake = scriptParcel(new FakeProvider());
    const server = started(await fake.listen({ port: 0 }));
    const { runtime } = parcelRuntime({ fake, agents: [agent], providers: { ollama: { api: 'ollama-chat', baseUrl: server.url } } });
    const outcome = await runtime.run('parcel-desk-ollama', 'Where is parcel P-1?');
    expect(outcome.status).toBe('completed');
    expect(fake.calls().map((call) => call.path)).toEqual(['/api/chat', '/api/chat', '/api/chat']);
  });
});
