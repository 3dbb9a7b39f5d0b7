import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import type { Agent } from 'modeltape/runtime';
import { parcelAgent, parcelRuntime } from '../support/parcel-agent.js';

const agent: Agent = { ...parcelAgent, name: 'parcel-desk-gemini', provider: 'gemini', model: 'gemini-2.5-flash' };

describe('a run on gemini-generate whose prompt Gemini blocks', () => {
  test('fails, saying the answer had no candidates[0].content and why (promptFeedback.blockReason SAFETY)', async () => {
    const fake = new FakeProvider().willSay('I will not help with that.', { finish: 'refusal' });
    const { runtime } = parcelRuntime({ fake, agents: [agent], providers: { gemini: { api: 'gemini-generate', fetch: fake.fetch, apiKey: 'fake-key' } } });
    const outcome = await runtime.run('parcel-desk-gemini', 'Where is parcel P-1?');
    expect(outcome.status).toBe('failed');
    expect(JSON.stringify(outcome)).toContain('answered without candidates[0].content (promptFeedback.blockReason SAFETY)');
    expect(fake.calls()).toHaveLength(1);
    fake.assertConsumed();
  });

  test('the same agent completes when the step is not a refusal', async () => {
    const fake = new FakeProvider().willSay('Parcel P-1 is in Lyon.');
    const { runtime } = parcelRuntime({ fake, agents: [agent], providers: { gemini: { api: 'gemini-generate', fetch: fake.fetch, apiKey: 'fake-key' } } });
    const outcome = await runtime.run('parcel-desk-gemini', 'Where is parcel P-1?');
    expect([outcome.status, outcome.output]).toEqual(['completed', 'Parcel P-1 is in Lyon.']);
  });
});
