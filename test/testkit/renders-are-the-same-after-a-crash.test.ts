import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { sequentialIds, steppingClock, type Turn } from 'modeltape/runtime';
import { crashAt, rendered, RenderMismatchError, runScenario, sameRenders, type Scenario } from 'modeltape/testkit';
import { parcelAgent, parcelRules, parcelTools } from '../support/parcel-agent.js';

function fresh(overrides: Partial<Scenario> = {}): Scenario {
  return {
    tools: parcelTools({ lookup: [], send: [] }),
    agent: parcelAgent,
    model: parcelRules(new FakeProvider()),
    goal: 'Where is parcel P-1?',
    now: steppingClock(),
    newId: sequentialIds('run'),
    ...overrides,
  };
}

describe('rendered', () => {
  test('is the request the runtime sends for a step input, for the first step and for a conversation', async () => {
    const scenario = fresh();
    const result = await runScenario(scenario);
    const tools = scenario.tools;
    const sent = result.renders.map((render) => JSON.parse(render.body) as Record<string, unknown>);
    expect(sent).toHaveLength(3);
    expect(rendered(parcelAgent, 'Where is parcel P-1?', { tools })).toEqual(sent[0]);
    expect(JSON.stringify(rendered(parcelAgent, 'Where is parcel P-1?', { tools }))).toBe(result.renders[0]!.body);
    const conversation: Turn[] = [
      { role: 'user', content: 'Where is parcel P-1?' },
      { role: 'assistant', text: null, toolCalls: [{ id: 'call_lookup', name: 'lookup_parcel', args: { parcel: 'P-1' } }] },
      { role: 'tool', callId: 'call_lookup', name: 'lookup_parcel', content: '{"parcel":"P-1","city":"Lyon"}', isError: false },
    ];
    expect(JSON.stringify(rendered(parcelAgent, conversation, { tools }))).toBe(result.renders[1]!.body);
    expect(() => rendered(parcelAgent, 'x')).toThrow('Agent "parcel-desk" is granted tool "lookup_parcel": pass it in options.tools to render its request.');
  });
});

describe('sameRenders', () => {
  test('passes when every decision renders the same bytes in two runs, those made again after crashes and a pause included', async () => {
    const comparison = await sameRenders(() => fresh(), crashAt('AfterStepStarted', { occurrence: 2 }), crashAt('AfterToolEffect', { tool: 'send_message' }));
    comparison.second.assertHolds();
    expect(comparison.compared).toBe(3);
    expect(comparison.second.renders.map((render) => `${render.step} ${render.runtime}`)).toEqual(['0 runtime-1', '1 runtime-2', '2 runtime-4']);
  });

  test('catches an agent whose render includes a timestamp, naming the decision and the first message that differs', async () => {
    let day = 0;
    const timestamped = (): Scenario =>
      fresh({ agent: { ...parcelAgent, system: `Today is ${new Date(Date.UTC(2026, 10, 30 + day++)).toISOString().slice(0, 10)}. ${parcelAgent.system}` } });
    const error = await sameRenders(timestamped, crashAt('AfterToolEffect', { tool: 'send_message' })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RenderMismatchError);
    expect((error as Error).message).toContain(
      'The decision at step 0 (request #1, by runtime-1) rendered another request in a second run of the same scenario: first difference at .messages[0].content: first run "Today is 2026-11-30.',
    );
    expect((error as Error).message).toContain('(message 0 is the first that differs)');
  });
});
