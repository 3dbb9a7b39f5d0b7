import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { NondeterminismError, Runtime, SqliteJournalStore, type Agent, type RuntimeOptions } from 'modeltape/runtime';
import { parcelAgent, parcelRuntime, parcelTools } from '../support/parcel-agent.js';

/** The same journal, read by a runtime whose agent changed since the run was recorded. */
async function replayWith(changed: Partial<Agent>, recordedAs: Partial<Agent> = {}, extra: Partial<RuntimeOptions> = {}): Promise<unknown> {
  const store = SqliteJournalStore.memory();
  const recorder = parcelRuntime({ store, agents: [{ ...parcelAgent, ...recordedAs }] });
  const first = await recorder.runtime.run('parcel-desk', 'Where is parcel P-1?');
  const unscripted = new FakeProvider();
  const runs = { lookup: [], send: [] };
  const reader = Runtime.build({
    store,
    providers: { openai: { api: 'openai-chat', fetch: unscripted.fetch } },
    agents: [{ ...parcelAgent, ...changed }],
    tools: parcelTools(runs),
    owner: 'runtime-b',
    ...extra,
  });
  try {
    await reader.replay(first.runId, 'strict');
  } catch (error) {
    expect(unscripted.calls()).toHaveLength(0);
    expect(runs).toEqual({ lookup: [], send: [] });
    return error;
  }
  throw new Error('the replay did not throw');
}

describe('a strict replay of code that changed', () => {
  test('names the recorded and the new model request, with the path that differs, when the system prompt changed', async () => {
    const error = (await replayWith({ system: 'You answer questions about parcels. Be brief.' })) as NondeterminismError;
    expect(error).toBeInstanceOf(NondeterminismError);
    expect(error.reason).toBe('mismatch');
    expect(error.recorded?.key).toBe('0.0.model');
    expect(error.requested?.key).toBe('0.0.model');
    expect(error.differences.map((difference) => difference.path)).toEqual(['.system']);
    expect(error.message).toContain('Replay of run run-1 asked for effect 0.0.model (model) with other arguments than the journal holds.');
    expect(error.message).toContain('.system');
    expect(error.message).toContain('Be brief');
  });

  test('shows the changed tool schema as a path under .tools', async () => {
    const runs = { lookup: [], send: [] };
    const tools = parcelTools(runs);
    tools[0]!.description = 'Finds where a parcel is, by its tracking number.';
    const error = (await replayWith({}, {}, { tools })) as NondeterminismError;
    expect(error.differences.map((difference) => difference.path)).toEqual(['.tools[0].description']);
  });

  test('throws on an effect the journal does not hold (the code now does more)', async () => {
    // Recorded with one step: the lookup ran, then the run stopped at maxSteps. Now it may go on.
    const error = (await replayWith({ maxSteps: 5 }, { maxSteps: 1 })) as NondeterminismError;
    expect(error).toBeInstanceOf(NondeterminismError);
    expect(error.reason).toBe('extra');
    expect(error.requested?.key).toBe('1.0.model');
    expect(error.recorded).toBeUndefined();
    expect(error.message).toContain('which the journal does not hold');
  });

  test('throws on a recorded effect it never reached (the code now does less)', async () => {
    const error = (await replayWith({ maxSteps: 1 })) as NondeterminismError;
    expect(error.reason).toBe('unreached');
    expect(error.recorded?.key).toBe('1.0.model');
    expect(error.requested).toBeUndefined();
    expect(error.message).toContain('ended without reaching recorded effect 1.0.model');
  });

  test('throws when the policy now decides a recorded call otherwise, naming the evaluation and what changed', async () => {
    // The evaluation is journaled with its inputs; replay evaluates the policy again on them.
    const error = (await replayWith(
      {},
      {},
      { policy: (request) => (request.tool === 'lookup_parcel' ? { outcome: 'deny', rule: 'no-lookups', reason: 'lookups are off' } : { outcome: 'allow' }) },
    )) as NondeterminismError;
    expect(error.reason).toBe('mismatch');
    expect(error.recorded).toMatchObject({ key: '0.1.policy', data: { outcome: 'allow' } });
    expect(error.requested).toMatchObject({ key: '0.1.policy', data: { outcome: 'deny', rule: 'no-lookups' } });
    expect(error.differences.map((difference) => difference.path)).toEqual(['.outcome', '.rule', '.reason']);
    expect(error.message).toContain('Replay of run run-1: the policy now decides 0.1.policy otherwise than it did');
    expect(error.message).toContain('recheck(store, runId, policy) lists every evaluation it now decides otherwise');
  });
});
