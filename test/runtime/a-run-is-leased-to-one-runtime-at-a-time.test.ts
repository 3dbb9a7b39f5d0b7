import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { NondeterminismError, RunLeasedError, SqliteJournalStore } from 'modeltape/runtime';
import { parcelAgent, parcelRules, parcelRuntime } from '../support/parcel-agent.js';

describe('leases', () => {
  test('while a runtime runs, another that tries to resume is refused with the expiry, and the heartbeat keeps the lease alive past its first TTL', async () => {
    const database = SqliteJournalStore.memory();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // A clock the test moves: the heartbeat (every 10 ms of real time) reads it like the loop does.
    let now = Date.UTC(2026, 0, 1);
    const clock = (): number => now;
    const until = async (condition: () => Promise<boolean>): Promise<void> => {
      for (let waited = 0; !(await condition()); waited += 5) {
        if (waited > 5000) throw new Error('timed out waiting');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    const first = parcelRuntime({
      store: database,
      fake: parcelRules(new FakeProvider()),
      clock,
      lease: { ttlMs: 80, heartbeatMs: 10 },
      toolOverrides: { lookup: { run: async () => (await gate, { parcel: 'P-1', city: 'Lyon' }) } },
    });
    const running = first.runtime.run('parcel-desk', 'Where is parcel P-1?');
    await until(async () => (await database.getLease('run-1')) !== undefined);
    const taken = (await database.getLease('run-1'))!;
    expect(taken).toEqual({ owner: 'runtime-a', expiresAt: now + 80 });

    const second = parcelRuntime({ store: database.connect(), fake: new FakeProvider(), owner: 'runtime-b', clock });
    const refused = await second.runtime.resume('run-1').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RunLeasedError);
    expect((refused as RunLeasedError).owner).toBe('runtime-a');
    expect((refused as Error).message).toBe(
      `Run run-1 is leased to runtime runtime-a until ${new Date(taken.expiresAt).toISOString()} (80 ms from now).\nWait for that runtime to finish or for the lease to expire, then resume the run.`,
    );

    // Well past the first TTL, the heartbeat has renewed it: still refused.
    now += 1000;
    await until(async () => (await database.getLease('run-1'))!.expiresAt === now + 80);
    await expect(second.runtime.resume('run-1')).rejects.toBeInstanceOf(RunLeasedError);

    release();
    expect((await running).status).toBe('completed');
    expect(await database.getLease('run-1')).toBeUndefined();
  });

  test('a runtime that stops on an error releases its lease (compare-and-set on its own name)', async () => {
    const database = SqliteJournalStore.memory();
    const first = parcelRuntime({
      store: database,
      fake: parcelRules(new FakeProvider()),
      policy: () => ({ outcome: 'require_approval', kind: 'review', reason: 'every call is reviewed' }),
    });
    const outcome = await first.runtime.run('parcel-desk', 'Where is parcel P-1?');
    expect(outcome.status).toBe('waiting');
    const changed = parcelRuntime({ store: database.connect(), owner: 'runtime-b', agents: [{ ...parcelAgent, system: 'Changed.' }] });
    await expect(changed.runtime.resume(outcome.runId)).rejects.toBeInstanceOf(NondeterminismError);
    expect(await database.getLease(outcome.runId)).toBeUndefined();
    // And it releases only its own: a lease someone else holds is left alone.
    await database.acquireLease(outcome.runId, 'runtime-c', Date.UTC(2100, 0, 1), 0);
    await expect(changed.runtime.resume(outcome.runId)).rejects.toBeInstanceOf(RunLeasedError);
    expect((await database.getLease(outcome.runId))?.owner).toBe('runtime-c');
  });
});
