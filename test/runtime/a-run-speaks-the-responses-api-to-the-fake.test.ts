import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { assertReplayWasNotBackstopped, type Agent } from 'modeltape/runtime';
import { closeAfterEach } from '../support/close-after-each.js';
import { parcelAgent, parcelRuntime, scriptParcel } from '../support/parcel-agent.js';
import { validateAgainstSpec } from '../support/spec-validator.js';

const started = closeAfterEach();
const agent: Agent = { ...parcelAgent, name: 'parcel-desk-responses' };

function bodyOf(call: { body: unknown }): { input: unknown[]; [key: string]: unknown } {
  return call.body as { input: unknown[] };
}

describe('a run on openai-responses', () => {
  test('drives a tool-calling agent through fake.fetch: function_call items, their outputs, and a strict replay', async () => {
    const fake = scriptParcel(new FakeProvider());
    const { runtime, runs } = parcelRuntime({
      fake,
      agents: [agent],
      providers: { openai: { api: 'openai-responses', fetch: fake.fetch, apiKey: 'fake-key-for-tests' } },
    });
    const outcome = await runtime.run('parcel-desk-responses', 'Where is parcel P-1?');
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toBe('Parcel P-1 is in Lyon; I told the customer.');
    expect(runs.lookup).toEqual([{ parcel: 'P-1' }]);
    expect(runs.send).toEqual([{ to: 'customer', text: 'Your parcel P-1 is in Lyon.' }]);

    const calls = fake.calls();
    expect(calls.map((call) => call.path)).toEqual(Array(3).fill('/v1/responses'));
    const first = bodyOf(calls[0]!);
    expect(first).toMatchObject({ model: 'gpt-4o', instructions: parcelAgent.system, store: false });
    expect(first.tools).toEqual([
      expect.objectContaining({ type: 'function', name: 'lookup_parcel', strict: false }),
      expect.objectContaining({ type: 'function', name: 'send_message', strict: false }),
    ]);
    // The last turn sends the whole conversation back: each call and its output, paired by call_id.
    const last = bodyOf(calls[2]!).input;
    expect(last).toEqual([
      { role: 'user', content: 'Where is parcel P-1?' },
      { type: 'function_call', call_id: 'call_lookup', name: 'lookup_parcel', arguments: '{"parcel":"P-1"}' },
      { type: 'function_call_output', call_id: 'call_lookup', output: '{"parcel":"P-1","city":"Lyon"}' },
      { type: 'function_call', call_id: 'call_send', name: 'send_message', arguments: '{"to":"customer","text":"Your parcel P-1 is in Lyon."}' },
      expect.objectContaining({ type: 'function_call_output', call_id: 'call_send' }),
    ]);
    // Every input item the runtime writes is one the published spec types.
    for (const item of last) expect(validateAgainstSpec('openai', 'InputItem', item).errors).toEqual([]);

    const asked = fake.asked();
    expect(asked.map((turn) => turn.api)).toEqual(['openai-responses', 'openai-responses', 'openai-responses']);
    expect(asked[0]!.system).toBe(parcelAgent.system);
    expect(asked[1]!.exchanges).toEqual([{ toolCallId: 'call_lookup', name: 'lookup_parcel', result: '{"parcel":"P-1","city":"Lyon"}', isError: false }]);

    const replayed = await runtime.replay(outcome.runId, 'strict');
    expect(replayed.output).toBe(outcome.output);
    expect(fake.calls()).toHaveLength(3);
    assertReplayWasNotBackstopped(replayed, 'responses');
  });

  test('sends text the model said before a call back as an assistant message, before the call', async () => {
    const fake = new FakeProvider()
      .willCallTool('lookup_parcel', { parcel: 'P-1' }, { id: 'call_lookup', saying: 'Let me look.' })
      .endTurn()
      .willSay('It is in Lyon.');
    const { runtime } = parcelRuntime({
      fake,
      agents: [agent],
      providers: { openai: { api: 'openai-responses', fetch: fake.fetch, apiKey: 'fake-key-for-tests' } },
    });
    const outcome = await runtime.run('parcel-desk-responses', 'Where is parcel P-1?');
    expect(outcome.output).toBe('It is in Lyon.');
    expect(bodyOf(fake.calls()[1]!).input.slice(1, 3)).toEqual([
      { role: 'assistant', content: 'Let me look.' },
      { type: 'function_call', call_id: 'call_lookup', name: 'lookup_parcel', arguments: '{"parcel":"P-1"}' },
    ]);
  });

  test('a reasoning model answers with a reasoning item first, and the runtime reads past it', async () => {
    const fake = scriptParcel(new FakeProvider());
    const answers: string[] = [];
    const send: typeof fetch = async (input, init) => {
      const response = await fake.fetch(input as string, init);
      answers.push(await response.clone().text());
      return response;
    };
    const { runtime } = parcelRuntime({
      fake,
      agents: [{ ...agent, model: 'o4-mini' }],
      providers: { openai: { api: 'openai-responses', fetch: send, apiKey: 'fake-key-for-tests' } },
    });
    const outcome = await runtime.run('parcel-desk-responses', 'Where is parcel P-1?');
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toBe('Parcel P-1 is in Lyon; I told the customer.');
    expect(answers.map((text) => (JSON.parse(text) as { output: Array<{ type: string }> }).output[0]!.type)).toEqual(['reasoning', 'reasoning', 'reasoning']);
    // With store: false nothing is resolved on the provider's side: no reasoning item is sent back.
    expect(JSON.stringify(fake.calls().map((call) => call.body))).not.toContain('"reasoning"');
  });

  test('reaches the fake over HTTP at its base URL, and asks for an output schema as a strict text.format', async () => {
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
      agents: [{ ...agent, name: 'parcel-json-responses', tools: [], output }],
      providers: { openai: { api: 'openai-responses', baseUrl: `${server.url}/openai/v1`, apiKey: 'fake-key-for-tests' } },
    });
    const outcome = await runtime.run('parcel-json-responses', 'Where is parcel P-1?');
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toEqual({ parcel: 'P-1', city: 'Lyon' });
    expect(fake.calls()[0]!.path).toBe('/openai/v1/responses');
    expect(fake.asked()[0]!.responseSchema).toMatchObject({ source: 'text.format', schema: output, strict: true });
  });

  test('an answer the runtime cannot read names what is missing', async () => {
    const send: typeof fetch = async () =>
      new Response(JSON.stringify({ id: 'resp_x', object: 'response' }), { status: 200, headers: { 'content-type': 'application/json' } });
    const { runtime } = parcelRuntime({ agents: [agent], providers: { openai: { api: 'openai-responses', fetch: send } } });
    const outcome = await runtime.run('parcel-desk-responses', 'Where is parcel P-1?');
    expect(outcome.status).toBe('failed');
    expect(JSON.stringify(outcome)).toContain('answered without an output list');
  });
});
