import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { CrashAtWrite, FaultSchedule, Faulty, RunLeasedError, SqliteJournalStore, type Policy } from 'modeltape/runtime';
import { fuzz } from 'modeltape/testkit';
import { parcelAgent, parcelRules, parcelRuntime } from '../support/parcel-agent.js';

describe('the runtime at its edges', () => {
  test('a call the policy denies still takes its key: the next call in the step gets its own decision and runs', async () => {
    const fake = new FakeProvider()
      .willCallTool('send_message', { to: 'customer', text: 'hi' }, { id: 'call_send' })
      .willCallTool('lookup_parcel', { parcel: 'P-1' }, { id: 'call_lookup' })
      .endTurn()
      .willSay('Looked it up; the message was not allowed.');
    const policy: Policy = (request) =>
      request.tool === 'send_message' ? { outcome: 'deny', rule: 'no-messages', reason: 'messages are off' } : { outcome: 'allow' };
    const { runtime, runs, store } = parcelRuntime({ fake, policy });
    const outcome = await runtime.run('parcel-desk', 'Where is parcel P-1? Tell the customer.');
    expect(outcome.status).toBe('completed');
    expect(runs.send).toEqual([]);
    expect(runs.lookup).toHaveLength(1);
    expect(outcome.backstopHits).toBe(0);
    expect((await store.read(outcome.runId)).filter((record) => record.type === 'start').map((record) => record.effectKey)).toEqual([
      '0.0.model',
      '0.1.policy',
      '0.2.policy',
      '0.2.tool',
      '1.0.model',
    ]);
    const replayed = await runtime.replay(outcome.runId, 'strict');
    expect(replayed.output).toBe(outcome.output);
    expect(replayed.backstopHits).toBe(0);
  });

  test('a policy that answers something other than a decision, or throws, fails the run closed and records it', async () => {
    for (const [bad, says] of [
      [() => ({ outcome: 'Deny', reason: 'typo' }), 'it answered {"outcome":"Deny","reason":"typo"}, which is not a decision'],
      [() => ({ outcome: 'require_approval', reason: 'no kind' }), 'which is not a decision'],
      [() => ({ outcome: 'require_approval', kind: 'interrupted_side_effect', reason: 'sneaky' }), 'which the runtime keeps for calls it found interrupted'],
      [
        () => {
          throw new Error('the rules file is missing');
        },
        'the rules file is missing',
      ],
    ] as unknown as Array<[Policy, string]>) {
      const { runtime, runs, store } = parcelRuntime({ fake: parcelRules(new FakeProvider()), policy: bad });
      const outcome = await runtime.run('parcel-desk', 'Where is parcel P-1?');
      expect(outcome.status).toBe('failed');
      expect(outcome.error?.code).toBe('policy_failed');
      expect(outcome.error?.message).toContain(says);
      expect(runs.lookup).toEqual([]);
      expect((await store.getRun(outcome.runId))?.status).toBe('failed');
      expect(await store.getLease(outcome.runId)).toBeUndefined();
    }
  });

  test('a policy answer with an undefined field replays and rechecks as the same answer', async () => {
    const { runtime } = parcelRuntime({ fake: parcelRules(new FakeProvider()), policy: () => ({ outcome: 'allow', rule: undefined }) });
    const outcome = await runtime.run('parcel-desk', 'Where is parcel P-1?');
    expect((await runtime.replay(outcome.runId, 'strict')).output).toBe(outcome.output);
  });

  test('one runtime does not drive a run twice at once, nor cancel the run it is driving', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { runtime } = parcelRuntime({
      fake: parcelRules(new FakeProvider()),
      toolOverrides: { lookup: { run: async () => (await gate, { parcel: 'P-1', city: 'Lyon' }) } },
    });
    const running = runtime.run('parcel-desk', 'Where is parcel P-1?');
    await new Promise((resolve) => setTimeout(resolve, 20));
    await expect(runtime.resume('run-1')).rejects.toBeInstanceOf(RunLeasedError);
    await expect(runtime.cancel('run-1')).rejects.toBeInstanceOf(RunLeasedError);
    release();
    expect((await running).status).toBe('completed');
  });

  test('what reconcile reads through its context is journaled under the call, so a strict replay still matches', async () => {
    const database = SqliteJournalStore.memory();
    const probe = new Faulty(SqliteJournalStore.memory(), FaultSchedule.explicit());
    await parcelRuntime({ store: probe, fake: parcelRules(new FakeProvider()) }).runtime.run('parcel-desk', 'Where is parcel P-1?');
    const sendEnd = (await probe.read('run-1')).findIndex((record) => record.effectKey === '1.1.tool' && record.type === 'complete');
    const crashing = parcelRuntime({
      store: new Faulty(database, FaultSchedule.explicit().at(2 + sendEnd + 1, CrashAtWrite)),
      fake: parcelRules(new FakeProvider()),
      lease: { ttlMs: 1 },
    });
    await expect(crashing.runtime.run('parcel-desk', 'Where is parcel P-1?')).rejects.toThrow('Simulated crash');
    const resumer = parcelRuntime({
      store: database.connect(),
      fake: parcelRules(new FakeProvider()),
      owner: 'runtime-b',
      clock: () => Date.UTC(2027, 0, 1),
      toolOverrides: { send: { reconcile: async (_args, context) => ({ status: 'applied', result: { sent: true, checkedAt: await context.now() } }) } },
    });
    expect((await resumer.runtime.resume('run-1')).status).toBe('completed');
    expect((await database.read('run-1')).map((record) => record.effectKey)).toContain('1.1.tool@2.reconcile/0.now');
    const replayed = await resumer.runtime.replay('run-1', 'strict');
    expect(replayed.status).toBe('completed');
  });

  test('an agent redefined under a known name is refused rather than silently ignored', async () => {
    const { runtime } = parcelRuntime({ fake: parcelRules(new FakeProvider()) });
    await expect(runtime.run({ ...parcelAgent, system: 'NEW PROMPT' }, 'x')).rejects.toThrow(
      'This runtime already knows an agent named "parcel-desk", defined otherwise (system differs).',
    );
    expect((await runtime.run({ ...parcelAgent }, 'Where is parcel P-1?')).status).toBe('completed');
  });

  test('the boundary cases of fuzz.invalid are refused for scalar schemas too', () => {
    for (const schema of [{ type: 'integer' }, { type: 'number', minimum: 10, maximum: 99 }, { type: 'string' }, { type: 'boolean' }, { enum: [1, 2] }]) {
      const cases = fuzz.invalid(schema);
      expect(cases.length, JSON.stringify(schema)).toBeGreaterThanOrEqual(6);
    }
  });

  test('a strict replay of a run cancelled while it waited on an approval ends cancelled', async () => {
    const { runtime } = parcelRuntime({
      fake: parcelRules(new FakeProvider()),
      policy: (request) =>
        request.tool === 'send_message' ? { outcome: 'require_approval', kind: 'review', rule: 'review', reason: 'reviewed' } : { outcome: 'allow' },
    });
    const waiting = await runtime.run('parcel-desk', 'Where is parcel P-1?');
    await runtime.cancel(waiting.runId, 'not needed');
    const replayed = await runtime.replay(waiting.runId, 'strict');
    expect(replayed.status).toBe('cancelled');
    expect(replayed.error).toEqual({ code: 'cancelled', message: 'not needed' });
  });
});
