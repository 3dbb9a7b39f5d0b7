import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { RunLeasedError, SqliteJournalStore } from 'modeltape/runtime';
import { parcelRules, parcelRuntime } from '../support/parcel-agent.js';

describe('cancellation', () => {
  test('through the signal stops the loop before its next effect, records the run as cancelled, and releases the lease', async () => {
    const controller = new AbortController();
    const fake = parcelRules(new FakeProvider());
    const { runtime, store, runs } = parcelRuntime({
      fake,
      onPoint: (point, detail) => {
        if (point === 'AfterToolFinished' && detail.tool === 'lookup_parcel') controller.abort(new Error('the customer hung up'));
      },
    });
    const outcome = await runtime.run('parcel-desk', 'Where is parcel P-1?', { signal: controller.signal });
    expect(outcome.status).toBe('cancelled');
    expect(outcome.error).toEqual({ code: 'cancelled', message: 'the customer hung up' });
    expect(fake.calls()).toHaveLength(1);
    expect(runs.send).toEqual([]);
    expect(await store.getRun(outcome.runId)).toMatchObject({ status: 'cancelled', result: { code: 'cancelled', message: 'the customer hung up' } });
    expect(await store.getLease(outcome.runId)).toBeUndefined();
    const records = await store.read(outcome.runId);
    expect(records.map((record) => `${record.effectKey} ${record.type}`)).toEqual([
      '0.0.model start',
      '0.0.model complete',
      '0.1.policy start',
      '0.1.policy complete',
      '0.1.tool start',
      '0.1.tool complete',
    ]);

    // A strict replay ends where the cancellation did; a resume does not continue it.
    const replayed = await runtime.replay(outcome.runId, 'strict');
    expect(replayed.status).toBe('cancelled');
    expect(replayed.effects.map((effect) => effect.status)).toEqual(['read_back', 'read_back', 'read_back']);
    const resumed = await runtime.resume(outcome.runId);
    expect(resumed.status).toBe('cancelled');
    expect(fake.calls()).toHaveLength(1);
    expect(await store.read(outcome.runId)).toEqual(records);
  });

  test('of a run waiting on an approval records it as cancelled; a run another runtime holds is refused', async () => {
    const database = SqliteJournalStore.memory();
    const fake = parcelRules(new FakeProvider());
    const { runtime } = parcelRuntime({
      store: database,
      fake,
      policy: (request) =>
        request.tool === 'send_message' ? { outcome: 'require_approval', kind: 'customer_contact', reason: 'reviewed' } : { outcome: 'allow' },
    });
    const waiting = await runtime.run('parcel-desk', 'Where is parcel P-1?');
    expect(waiting.status).toBe('waiting');
    const cancelled = await runtime.cancel(waiting.runId, 'no longer needed');
    expect(cancelled).toMatchObject({ status: 'cancelled', error: { code: 'cancelled', message: 'no longer needed' } });
    expect((await database.getRun(waiting.runId))?.status).toBe('cancelled');
    expect(await database.getLease(waiting.runId)).toBeUndefined();
    // Cancelling again, or resuming, changes nothing.
    expect((await runtime.cancel(waiting.runId)).error?.message).toBe('no longer needed');
    expect((await runtime.resume(waiting.runId)).status).toBe('cancelled');
    expect(fake.calls()).toHaveLength(2);

    await database.acquireLease('someone-elses-run', 'runtime-z', Date.UTC(2100, 0, 1), 0);
    await database.createRun({ runId: 'someone-elses-run', agent: 'parcel-desk', input: 'x', status: 'running', result: null, createdAt: 0, updatedAt: 0 });
    await expect(runtime.cancel('someone-elses-run')).rejects.toBeInstanceOf(RunLeasedError);
    expect((await database.getRun('someone-elses-run'))?.status).toBe('running');
  });
});
