import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import type { Agent } from 'modeltape/runtime';
import { parcelAgent, parcelRuntime, scriptParcel } from '../support/parcel-agent.js';

/** A fetch to the fake that keeps every answer's body, so a test can see the thinking the run was sent. */
function keepingAnswers(fake: FakeProvider, change?: (body: Record<string, unknown>) => void): { send: typeof fetch; answers: string[] } {
  const answers: string[] = [];
  const send: typeof fetch = async (input, init) => {
    let body = init?.body;
    if (change !== undefined && typeof body === 'string') {
      const parsed = JSON.parse(body) as Record<string, unknown>;
      change(parsed);
      body = JSON.stringify(parsed);
    }
    const response = await fake.fetch(input as string, { ...init, body });
    answers.push(await response.clone().text());
    return response;
  };
  return { send, answers };
}

describe('a run never takes thinking for the answer', () => {
  test('over Ollama: a thinking model’s message.thinking stays out of the output and the tool loop', async () => {
    const fake = scriptParcel(new FakeProvider());
    const { send, answers } = keepingAnswers(fake);
    const agent: Agent = { ...parcelAgent, name: 'parcel-desk-qwen', provider: 'ollama', model: 'qwen3' };
    const { runtime, runs } = parcelRuntime({ fake, agents: [agent], providers: { ollama: { api: 'ollama-chat', fetch: send } } });
    const outcome = await runtime.run('parcel-desk-qwen', 'Where is parcel P-1?');
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toBe('Parcel P-1 is in Lyon; I told the customer.');
    expect(runs.send).toEqual([{ to: 'customer', text: 'Your parcel P-1 is in Lyon.' }]);
    // qwen3 thinks by default: every answer the run read carried thinking.
    expect(answers).toHaveLength(3);
    expect(answers.every((answer) => (JSON.parse(answer) as { message: { thinking?: string } }).message.thinking?.startsWith('Thinking (modeltape'))).toBe(
      true,
    );
    // And none of it went back to the model as what the assistant said: no request body holds it.
    expect(fake.calls()).toHaveLength(3);
    expect(JSON.stringify(fake.calls().map((call) => call.body))).not.toContain('Thinking (modeltape');
  });

  test('over Gemini: thought parts stay out of the output and the tool loop', async () => {
    const fake = new FakeProvider()
      .willCallTool('lookup_parcel', { parcel: 'P-1' })
      .endTurn()
      .willCallTool('send_message', { to: 'customer', text: 'Your parcel P-1 is in Lyon.' })
      .endTurn()
      .willSay('Parcel P-1 is in Lyon; I told the customer.');
    // The runtime asks for no thoughts; this fetch asks for them, as a configured client might.
    const { send, answers } = keepingAnswers(fake, (body) => {
      body.generationConfig = { ...(body.generationConfig as object | undefined), thinkingConfig: { includeThoughts: true } };
    });
    const agent: Agent = { ...parcelAgent, name: 'parcel-desk-gemini', provider: 'gemini', model: 'gemini-2.5-flash' };
    const { runtime, runs } = parcelRuntime({ fake, agents: [agent], providers: { gemini: { api: 'gemini-generate', fetch: send, apiKey: 'fake-key' } } });
    const outcome = await runtime.run('parcel-desk-gemini', 'Where is parcel P-1?');
    expect(outcome.status).toBe('completed');
    expect(outcome.output).toBe('Parcel P-1 is in Lyon; I told the customer.');
    expect(runs.lookup).toEqual([{ parcel: 'P-1' }]);
    expect(answers).toHaveLength(3);
    for (const answer of answers) {
      const parts = (JSON.parse(answer) as { candidates: Array<{ content: { parts: Array<{ thought?: boolean }> } }> }).candidates[0]!.content.parts;
      expect(parts[0]!.thought).toBe(true);
    }
    expect(fake.calls()).toHaveLength(3);
    expect(JSON.stringify(fake.calls().map((call) => call.body))).not.toContain('Thinking (modeltape');
  });
});
