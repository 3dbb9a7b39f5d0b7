import { describe, expect, test } from 'vitest';
import {
  CommittedThenLost,
  CrashAtWrite,
  FailBeforeCommit,
  FaultSchedule,
  Faulty,
  RunLeasedError,
  SimulatedCrash,
  SqliteJournalStore,
  type Fault,
  type StoredRecord,
} from 'modeltape/runtime';
import { FakeProvider } from 'modeltape/fake-provider';
import { parcelRules, parcelRuntime } from '../support/parcel-agent.js';

/** A clock the test can move: each reading advances 1 ms, `jump` moves it further. */
function movableClock(start = Date.UTC(2026, 0, 1)): { read: () => number; jump: (ms: number) => void } {
  let now = start;
  return { read: () => now++, jump: (ms) => (now += ms) };
}

function shape(records: readonly StoredRecord[]): string[] {
  return records.map((record) => `${record.position} ${record.effectKey} ${record.type}`);
}

function assertOneRecordPerPositionAndEffect(records: readonly StoredRecord[]): void {
  expect(records.map((record) => record.position)).toEqual(records.map((_, index) => index + 1));
  const seen = new Set<string>();
  for (const record of records) {
    const identity = `${record.effectKey} ${record.type === 'start' ? 'start' : 'end'}`;
    expect(seen.has(identity), identity).toBe(false);
    seen.add(identity);
  }
}

async function cleanRun(): Promise<{ writes: number; records: StoredRecord[]; output: unknown }> {
  const store = new Faulty(SqliteJournalStore.memory(), FaultSchedule.explicit());
  const { runtime } = parcelRuntime({ store });
  const outcome = await runtime.run('parcel-desk', 'Where is parcel P-1?');
  return { writes: store.writes, records: await store.read(outcome.runId), output: outcome.output };
}

describe('the runtime on a faulty store', () => {
  for (const [name, fault] of [
    ['CommittedThenLost', CommittedThenLost],
    ['FailBeforeCommit', FailBeforeCommit],
  ] as Array<[string, Fault]>) {
    test(`finishes with the same journal, each tool run once, when any single write gets ${name}`, async () => {
      const clean = await cleanRun();
      expect(clean.writes).toBe(22); // the run, the lease, 9 effects' starts and ends (2 of them policy evaluations), the status, the release
      for (let write = 1; write <= clean.writes; write++) {
        const store = new Faulty(SqliteJournalStore.memory(), FaultSchedule.explicit().at(write, fault));
        const { runtime, runs } = parcelRuntime({ store });
        const outcome = await runtime.run('parcel-desk', 'Where is parcel P-1?');
        expect(outcome.status, `fault at write ${write}`).toBe('completed');
        expect(outcome.output).toBe(clean.output);
        expect(store.injected, `fault at write ${write}`).toEqual([{ write, operation: expect.any(String), fault }]);
        expect(runs.lookup).toHaveLength(1);
        expect(runs.send).toHaveLength(1);
        const records = await store.read(outcome.runId);
        assertOneRecordPerPositionAndEffect(records);
        // Verified and retried by record id, the journal is the one a clean run writes, byte for byte.
        expect(records, `fault at write ${write}`).toEqual(clean.records);
        expect(await store.backstopRejections(outcome.runId)).toBe(0);
        expect(await store.getLease(outcome.runId)).toBeUndefined();
      }
    });
  }

  test('draws the same faults from the same seed, every time', async () => {
    const draws: string[] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      const store = new Faulty(SqliteJournalStore.memory(), FaultSchedule.seeded(11, { rate: 0.3, faults: [FailBeforeCommit, CommittedThenLost] }));
      const { runtime, runs } = parcelRuntime({ store });
      const outcome = await runtime.run('parcel-desk', 'Where is parcel P-1?');
      expect(outcome.status).toBe('completed');
      expect(runs.send).toHaveLength(1);
      assertOneRecordPerPositionAndEffect(await store.read(outcome.runId));
      draws.push(JSON.stringify(store.injected));
    }
    expect(JSON.parse(draws[0]!).length).toBeGreaterThan(2);
    expect(draws[1]).toBe(draws[0]);
    const schedule = FaultSchedule.seeded(11, { rate: 0.3 });
    expect(Array.from({ length: 200 }, (_, index) => schedule.faultAt(index + 1)?.kind ?? '-')).toEqual(
      Array.from({ length: 200 }, (_, index) => FaultSchedule.seeded(11, { rate: 0.3 }).faultAt(index + 1)?.kind ?? '-'),
    );
  });

  test('after a CrashAtWrite fault at any write, a new runtime waits out the lease the refusal names, resumes, and runs nothing twice unless an operator approves it', async () => {
    const clean = await cleanRun();
    let sawApproval = 0;
    for (let write = 2; write <= clean.writes; write++) {
      const database = SqliteJournalStore.memory();
      const clock = movableClock();
      const first = parcelRuntime({
        store: new Faulty(database, FaultSchedule.explicit().at(write, CrashAtWrite)),
        fake: parcelRules(new FakeProvider()),
        clock: clock.read,
        lease: { ttlMs: 60_000 },
      });
      const crash = await first.runtime.run('parcel-desk', 'Where is parcel P-1?').catch((error: unknown) => error);
      expect(crash, `crash at write ${write}`).toBeInstanceOf(SimulatedCrash);
      const second = parcelRuntime({
        store: database.connect(),
        fake: first.fake,
        runs: first.runs,
        clock: clock.read,
        owner: 'runtime-b',
        lease: { ttlMs: 60_000 },
      });
      if (write === 2) {
        // It stopped while taking the lease: there is none to wait for.
        expect(await database.getLease('run-1')).toBeUndefined();
      } else {
        // A dead process releases nothing: the lease is left behind, and a new runtime is refused until it expires.
        const left = await database.getLease('run-1');
        expect(left?.owner, `crash at write ${write}`).toBe('runtime-a');
        const refused = await second.runtime.resume('run-1').catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(RunLeasedError);
        expect((refused as RunLeasedError).expiresAt).toBe(left!.expiresAt);
        expect((refused as Error).message).toContain(`Run run-1 is leased to runtime runtime-a until ${new Date(left!.expiresAt).toISOString()}`);
      }

      clock.jump(60_000);
      let outcome = await second.runtime.resume('run-1');
      if (outcome.status === 'waiting') {
        // The send started and its end was never recorded: it may have gone out.
        sawApproval++;
        const [approval] = outcome.pendingApprovals;
        expect([approval!.kind, ['0.1.tool', '1.1.tool'].includes(approval!.effectKey)]).toEqual(['interrupted_side_effect', true]);
        const runsOf = approval!.effectKey === '1.1.tool' ? first.runs.send : first.runs.lookup;
        expect(runsOf).toHaveLength(1);
        await second.runtime.approve(approval!.approvalId);
        outcome = await second.runtime.resume('run-1');
        expect(runsOf).toHaveLength(2); // exactly once more, under the approval
      } else {
        expect(first.runs.send.length, `crash at write ${write}`).toBeLessThanOrEqual(1);
      }
      expect(outcome.status, `crash at write ${write}`).toBe('completed');
      expect(outcome.output).toBe(clean.output);
      const records = await database.read('run-1');
      assertOneRecordPerPositionAndEffect(records);
      expect(await database.getLease('run-1')).toBeUndefined();
      expect(await database.backstopRejections('run-1')).toBe(0);
      // The same effects as a clean run (a call run again journals its own effects under a new attempt, `@2`).
      const topLevel = (lines: string[]): string[] =>
        lines
          .map((line) => line.split(' ').slice(1).join(' '))
          .filter((line) => !line.includes('/'))
          .sort();
      expect(topLevel(shape(records))).toEqual(topLevel(shape(clean.records)));
    }
    expect(sawApproval).toBeGreaterThan(0);
  });
});
