import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { assertReplayWasNotBackstopped, type Agent } from 'modeltape/runtime';
import { closeAfterEach } from '../support/close-after-each.js';
import { parcelAgent, parcelRuntime } from '../support/parcel-agent.js';

const started = closeAfterEach();
const agent: Agent = { ...parcelAgent, name: 'parcel-desk-gemini', provider: 'gemini', model: 'gemini-2.5-flash' };

// Gemini's calls carry no id (it pairs calls and responses by name), so none is scripted.
function scriptGeminiParcel(fake: FakeProvider): FakeProvider {
  return fake
    .willCallTool('lookup_parcel', { parcel: 'P-1' })
    .endTurn()
    .willCallTool('send_message', { to: 'customer', text: 'Your parcel P-1 is in Lyon.' })
    .endTurn()
    .willSay('Parcel P-1 is in Lyon; I told the customer.');
}

describe('a run on gemini-generate', () => {
  test('drives a tool-calling agent through fake.fetch: function calls, function responses, and a strict replay', async () => {
    const fake = scriptGeminiParcel(new FakeProvider());
    const keys: Array<string | null> = [];
    const send: typeof fetch = (input, init) => {
      keys.push(new Headers(init?.headers).get('x-goog-api-key'));
      return fake.fetch(input as string, init);
    };
    const { runtime, runs } = parcelRuntime({
      fake,
      agents: [agent],
      providers: { gemini: { api: 'gemini-generate', fetch: send, apiKey: 'fake-key-for-tests' } },
    });
    const outcome = await runtime.run('parcel-desk-gemini', 'Where is parcel P-1?');
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toBe('Parcel P-1 is in Lyon; I told the customer.');
    expect(runs.lookup).toEqual([{ parcel: 'P-1' }]);
    expect(runs.send).toEqual([{ to: 'customer', text: 'Your parcel P-1 is in Lyon.' }]);
    const calls = fake.calls();
    expect(calls.map((call) => call.path)).toEqual(Array(3).fill('/v1beta/models/gemini-2.5-flash:generateContent'));
    // The key travels in x-goog-api-key, and the fake's calls() never show it.
    expect(keys).toEqual(Array(3).fill('fake-key-for-tests'));
    expect(calls.every((call) => call.headers['x-goog-api-key'] === undefined)).toBe(true);
    const asked = fake.asked();
    expect(asked.map((turn) => turn.api)).toEqual(['gemini-generate', 'gemini-generate', 'gemini-generate']);
    expect(asked[0]!.system).toBe(parcelAgent.system);
    expect(asked[0]!.tools.map((tool) => tool.name)).toEqual(['lookup_parcel', 'send_message']);
    expect(asked[1]!.exchanges).toEqual([{ toolCallId: 'lookup_parcel', name: 'lookup_parcel', result: '{"parcel":"P-1","city":"Lyon"}', isError: false }]);
    expect(JSON.parse(asked[2]!.exchanges[0]!.result)).toMatchObject({ sent: true, messageId: 'run-2' });
    // The ids the runtime gave Gemini's id-less calls are its own, and never sent back.
    expect(JSON.stringify(calls[2]!.body)).not.toContain('gemini-call-');
    const replayed = await runtime.replay(outcome.runId, 'strict');
    expect(replayed.output).toBe(outcome.output);
    expect(fake.calls()).toHaveLength(3);
    assertReplayWasNotBackstopped(replayed, 'gemini');
  });

  test('reaches the fake over HTTP at its base URL, and asks for an output schema as responseJsonSchema', async () => {
    const fake = new FakeProvider().willAnswer({ parcel: 'P-1', city: 'Lyon' });
    const server = started(await fake.listen({ port: 0 }));
    const output = {
      type: 'object',
      properties: { parcel: { type: 'string' }, city: { type: 'string' } },
      required: ['parcel', 'city'],
      additionalProperties: false,
    };
    const { runtime } = parcelRuntime({
      fake,
      agents: [{ ...agent, name: 'parcel-json-gemini', tools: [], output }],
      providers: { gemini: { api: 'gemini-generate', baseUrl: `${server.url}/gemini`, apiKey: 'fake-key-for-tests' } },
    });
    const outcome = await runtime.run('parcel-json-gemini', 'Where is parcel P-1?');
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toEqual({ parcel: 'P-1', city: 'Lyon' });
    expect(fake.calls()[0]!.path).toBe('/gemini/v1beta/models/gemini-2.5-flash:generateContent');
    expect(fake.asked()[0]!.responseSchema).toEqual({ source: 'generationConfig.responseJsonSchema', name: undefined, schema: output, strict: true });
  });
});
