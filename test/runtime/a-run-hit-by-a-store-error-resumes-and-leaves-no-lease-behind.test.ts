import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import {
  CommittedThenLost,
  CrashAtWrite,
  DiskFull,
  FailBeforeCommit,
  FaultSchedule,
  Faulty,
  JournalStorageError,
  JournalWriteError,
  NondeterminismError,
  RunLeasedError,
  SimulatedCrash,
  SqliteJournalStore,
  type Fault,
  type JournalStore,
  type RunOutcome,
  type StoredRecord,
} from 'modeltape/runtime';
import { parcelRules, parcelRuntime, type ParcelRuntime } from '../support/parcel-agent.js';
import { mountSmallDisk } from '../support/small-disk.js';
import { tempDir } from '../support/temp-dir.js';

const TTL = 60_000;
const QUESTION = 'Where is parcel P-1?';

/** A clock the test can move: each reading advances 1 ms, `jump` moves it further. */
function movableClock(start = Date.UTC(2026, 0, 1)): { read: () => number; jump: (ms: number) => void } {
  let now = start;
  return { read: () => now++, jump: (ms) => (now += ms) };
}

async function cleanWrites(): Promise<{ writes: number; output: unknown; records: StoredRecord[] }> {
  const store = new Faulty(SqliteJournalStore.memory(), FaultSchedule.explicit());
  const { runtime } = parcelRuntime({ store, fake: parcelRules(new FakeProvider()) });
  const outcome = await runtime.run('parcel-desk', QUESTION);
  return { writes: store.writes, output: outcome.output, records: await store.read(outcome.runId) };
}

/** Resumes to the end; an in-doubt call is approved once (it may have run), as an operator would. */
async function resumeToTheEnd(second: ParcelRuntime): Promise<{ outcome: RunOutcome; approvals: number }> {
  let outcome = await second.runtime.resume('run-1');
  let approvals = 0;
  while (outcome.status === 'waiting' && approvals < 2) {
    approvals++;
    expect(outcome.pendingApprovals[0]!.kind).toBe('interrupted_side_effect');
    await second.runtime.approve(outcome.pendingApprovals[0]!.approvalId);
    outcome = await second.runtime.resume('run-1');
  }
  return { outcome, approvals };
}

function noStoreErrorRecordedAsAToolFailure(records: readonly StoredRecord[]): void {
  const failures = records.filter((record) => record.type === 'fail').map((record) => JSON.stringify(record.data));
  expect(failures.filter((failure) => /journal|store|disk|injected/i.test(failure))).toEqual([]);
}

describe('a run hit by a store error', () => {
  for (const [name, fault] of [
    ['DiskFull (not retried)', DiskFull],
    ['FailBeforeCommit on every retry', FailBeforeCommit],
  ] as Array<[string, Fault]>) {
    test(`when the store refuses one write (${name}), the run stops interrupted with the error, its lease is released, and another runtime resumes it at once`, async () => {
      const clean = await cleanWrites();
      expect(clean.writes).toBe(22);
      let checked = 0;
      // Write 1 creates the run; the last releases the lease of a run that completed.
      for (let write = 2; write < clean.writes; write++) {
        const database = SqliteJournalStore.memory();
        // A disk that is full for one write: five failures in a row outlast the runtime's retries.
        const schedule = FaultSchedule.explicit();
        for (let failing = write; failing < write + (fault === DiskFull ? 1 : 5); failing++) schedule.at(failing, fault);
        const clock = movableClock();
        const first = parcelRuntime({ store: new Faulty(database, schedule), fake: parcelRules(new FakeProvider()), clock: clock.read, lease: { ttlMs: TTL } });
        const failure = await first.runtime.run('parcel-desk', QUESTION).catch((error: unknown) => error);
        expect(failure, `fault at write ${write}`).toBeInstanceOf(fault === DiskFull ? JournalStorageError : JournalWriteError);
        if (fault === DiskFull) expect((failure as JournalStorageError).code).toBe('journal_full');
        // run() never returned the id: the error carries it, to resume by.
        expect((failure as JournalStorageError).runId, `fault at write ${write}`).toBe('run-1');
        expect(await database.getLease('run-1'), `fault at write ${write}: the lease is released`).toBeUndefined();
        // The store took writes again after the refused one: the runtime recorded why it stopped.
        const stopped = await database.getRun('run-1');
        expect(stopped?.status, `fault at write ${write}`).toBe('interrupted');
        expect(stopped?.result, `fault at write ${write}`).toEqual({
          code: fault === DiskFull ? 'journal_full' : 'journal_write_failed',
          message: (failure as Error).message,
        });
        noStoreErrorRecordedAsAToolFailure(await database.read('run-1'));

        const second = parcelRuntime({
          store: database.connect(),
          fake: first.fake,
          runs: first.runs,
          clock: clock.read,
          owner: 'runtime-b',
          lease: { ttlMs: TTL },
        });
        const { outcome } = await resumeToTheEnd(second);
        expect(outcome.status, `fault at write ${write}`).toBe('completed');
        expect(outcome.output).toBe(clean.output);
        expect(await database.getRun('run-1')).toMatchObject({ status: 'completed', result: clean.output });
        expect(first.runs.send.length, `fault at write ${write}`).toBeLessThanOrEqual(2);
        expect(await database.getLease('run-1')).toBeUndefined();
        noStoreErrorRecordedAsAToolFailure(await database.read('run-1'));
        checked++;
      }
      expect(checked).toBe(20);
    });
  }

  test("a store of the user's that throws a plain Error at one write stops the run as a store failure, never as the tool's failure, and the run resumes to the same answer", async () => {
    const clean = await cleanWrites();
    const WRITES = new Set([
      'createRun',
      'updateRun',
      'append',
      'acquireLease',
      'renewLease',
      'releaseLease',
      'requestApproval',
      'decideApproval',
      'consumeApproval',
    ]);
    // A decorator over the store (a connection pool, another database) whose driver throws what it throws.
    const resetAt = (inner: JournalStore, at: number): JournalStore => {
      let writes = 0;
      return new Proxy(inner, {
        get(target, name) {
          const value = Reflect.get(target, name) as unknown;
          if (typeof value !== 'function') return value;
          if (!WRITES.has(String(name))) return (value as (...args: unknown[]) => unknown).bind(target);
          return async (...args: unknown[]) => {
            if (++writes === at) throw new Error('connection reset by peer');
            return (value as (...args: unknown[]) => unknown).apply(target, args);
          };
        },
      });
    };
    let checked = 0;
    for (let write = 2; write < clean.writes; write++) {
      const database = SqliteJournalStore.memory();
      const clock = movableClock();
      const first = parcelRuntime({ store: resetAt(database, write), fake: parcelRules(new FakeProvider()), clock: clock.read, lease: { ttlMs: TTL } });
      const failure = await first.runtime.run('parcel-desk', QUESTION).catch((error: unknown) => error);
      expect(failure, `reset at write ${write}`).toBeInstanceOf(JournalWriteError);
      expect((failure as Error).message).toContain('connection reset by peer');
      expect((failure as JournalWriteError).runId).toBe('run-1');
      expect((await database.getRun('run-1'))?.status, `reset at write ${write}`).toBe('interrupted');
      expect(await database.getLease('run-1')).toBeUndefined();
      const records = await database.read('run-1');
      expect(
        records.filter((record) => record.type === 'fail' && JSON.stringify(record.data).includes('connection reset')),
        `reset at write ${write}`,
      ).toEqual([]);
      const second = parcelRuntime({
        store: database.connect(),
        fake: first.fake,
        runs: first.runs,
        clock: clock.read,
        owner: 'runtime-b',
        lease: { ttlMs: TTL },
      });
      const { outcome } = await resumeToTheEnd(second);
      expect(outcome.output, `reset at write ${write}`).toBe(clean.output);
      checked++;
    }
    expect(checked).toBe(20);
  });

  test('when the store refuses every write from some point (a full disk that stays full), the interrupted status and the release fail too: the run stays running, its lease expires, and a second runtime takes the run over after it', async () => {
    const clean = await cleanWrites();
    let approvals = 0;
    let checked = 0;
    for (let write = 3; write < clean.writes; write++) {
      const database = SqliteJournalStore.memory();
      const clock = movableClock();
      const full = new Faulty(database, FaultSchedule.explicit().from(write, DiskFull));
      const first = parcelRuntime({ store: full, fake: parcelRules(new FakeProvider()), clock: clock.read, lease: { ttlMs: TTL } });
      const failure = await first.runtime.run('parcel-desk', QUESTION).catch((error: unknown) => error);
      expect((failure as JournalStorageError).code, `full from write ${write}`).toBe('journal_full');
      // After the refused write it tried to record the interruption, then to release: both refused.
      expect(full.injected.map((injected) => injected.operation).slice(1), `full from write ${write}`).toEqual(['updateRun', 'releaseLease']);
      expect(await database.getRun('run-1'), `full from write ${write}`).toMatchObject({ status: 'running', result: null });
      const left = await database.getLease('run-1');
      expect(left?.owner, `full from write ${write}: the release could not be written`).toBe('runtime-a');

      // The disk is freed (the runtime-b reaches the database without the fault).
      const second = parcelRuntime({
        store: database.connect(),
        fake: first.fake,
        runs: first.runs,
        clock: clock.read,
        owner: 'runtime-b',
        lease: { ttlMs: TTL },
      });
      const refused = await second.runtime.resume('run-1').catch((error: unknown) => error);
      expect(refused, `full from write ${write}: refused before the lease expires`).toBeInstanceOf(RunLeasedError);
      expect((refused as RunLeasedError).expiresAt).toBe(left!.expiresAt);
      clock.jump(TTL);
      const resumed = await resumeToTheEnd(second);
      approvals += resumed.approvals;
      expect(resumed.outcome.status, `full from write ${write}`).toBe('completed');
      expect(resumed.outcome.output).toBe(clean.output);
      expect(await database.getLease('run-1')).toBeUndefined();
      noStoreErrorRecordedAsAToolFailure(await database.read('run-1'));
      checked++;
    }
    expect(checked).toBe(19);
    // Disk full between a call's start and its end leaves it in doubt: an operator decided those.
    expect(approvals).toBeGreaterThan(0);
  });

  test('an interrupted run reads as unfinished: a strict replay says to resume it, as for a run a crash left running, and a resume hit again ends interrupted again', async () => {
    const clean = await cleanWrites();
    // Write 9 is the start of step 1's model call: the journal then ends with the lookup's end.
    const write = 9;
    const interrupted = SqliteJournalStore.memory();
    const clock = movableClock();
    const first = parcelRuntime({
      store: new Faulty(interrupted, FaultSchedule.explicit().at(write, DiskFull)),
      fake: parcelRules(new FakeProvider()),
      clock: clock.read,
      lease: { ttlMs: TTL },
    });
    const failure = (await first.runtime.run('parcel-desk', QUESTION).catch((error: unknown) => error)) as JournalStorageError;
    expect(failure.code).toBe('journal_full');
    expect((await interrupted.read('run-1')).at(-1)).toMatchObject({ effectKey: '0.1.tool', type: 'complete' });
    expect((await interrupted.getRun('run-1'))?.status).toBe('interrupted');

    const crashed = SqliteJournalStore.memory();
    const dead = parcelRuntime({ store: new Faulty(crashed, FaultSchedule.explicit().at(write, CrashAtWrite)), fake: parcelRules(new FakeProvider()) });
    expect(await dead.runtime.run('parcel-desk', QUESTION).catch((error: unknown) => error)).toBeInstanceOf(SimulatedCrash);
    expect((await crashed.getRun('run-1'))?.status).toBe('running');

    const strictly = async (database: SqliteJournalStore): Promise<string> => {
      const error = await parcelRuntime({ store: database.connect(), owner: 'runtime-b' })
        .runtime.replay('run-1', 'strict')
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(NondeterminismError);
      return (error as Error).message;
    };
    const hint = await strictly(interrupted);
    expect(hint.endsWith(' The run never finished: resume it (runtime.resume) instead of replaying it strictly.')).toBe(true);
    expect(hint).toBe(await strictly(crashed));

    // A resume that the store refuses in turn (its third write: the end of step 1's model call) stops interrupted again.
    const again = parcelRuntime({
      store: new Faulty(interrupted.connect(), FaultSchedule.explicit().at(3, DiskFull)),
      fake: first.fake,
      runs: first.runs,
      clock: clock.read,
      owner: 'runtime-b',
      lease: { ttlMs: TTL },
    });
    const second = (await again.runtime.resume('run-1').catch((error: unknown) => error)) as JournalStorageError;
    expect(second.code).toBe('journal_full');
    expect(await interrupted.getRun('run-1')).toMatchObject({ status: 'interrupted', result: { code: 'journal_full', message: second.message } });
    expect(second.message).not.toBe(failure.message);
    expect(await interrupted.getLease('run-1')).toBeUndefined();

    const third = parcelRuntime({
      store: interrupted.connect(),
      fake: first.fake,
      runs: first.runs,
      clock: clock.read,
      owner: 'runtime-c',
      lease: { ttlMs: TTL },
    });
    const outcome = await third.runtime.resume('run-1');
    expect([outcome.status, outcome.output]).toEqual(['completed', clean.output]);
    expect([first.runs.lookup.length, first.runs.send.length]).toEqual([1, 1]);
  });

  test('an interrupted run can be cancelled, which records why and leaves no lease', async () => {
    const database = SqliteJournalStore.memory();
    const first = parcelRuntime({ store: new Faulty(database, FaultSchedule.explicit().at(9, DiskFull)), fake: parcelRules(new FakeProvider()) });
    await first.runtime.run('parcel-desk', QUESTION).catch(() => undefined);
    expect((await database.getRun('run-1'))?.status).toBe('interrupted');
    const operator = parcelRuntime({ store: database.connect(), owner: 'runtime-b' });
    const outcome = await operator.runtime.cancel('run-1', 'the disk filled up; the customer was called instead');
    expect([outcome.status, outcome.error]).toEqual(['cancelled', { code: 'cancelled', message: 'the disk filled up; the customer was called instead' }]);
    expect(await database.getRun('run-1')).toMatchObject({
      status: 'cancelled',
      result: { code: 'cancelled', message: 'the disk filled up; the customer was called instead' },
    });
    expect(await database.getLease('run-1')).toBeUndefined();
    expect((await operator.runtime.resume('run-1')).status).toBe('cancelled');
  });

  test('when the interrupted status is written and the release is refused, the run reads interrupted and its lease expires before another runtime takes it', async () => {
    const clean = await cleanWrites();
    const database = SqliteJournalStore.memory();
    const clock = movableClock();
    // Write 9 is refused, write 10 records the interruption, write 11 (the release) is refused.
    const faulty = new Faulty(database, FaultSchedule.explicit().at(9, DiskFull).at(11, DiskFull));
    const first = parcelRuntime({ store: faulty, fake: parcelRules(new FakeProvider()), clock: clock.read, lease: { ttlMs: TTL } });
    await first.runtime.run('parcel-desk', QUESTION).catch(() => undefined);
    expect(faulty.injected.map((injected) => [injected.write, injected.operation])).toEqual([
      [9, 'append'],
      [11, 'releaseLease'],
    ]);
    expect((await database.getRun('run-1'))?.status).toBe('interrupted');
    const left = await database.getLease('run-1');
    expect(left?.owner).toBe('runtime-a');
    const second = parcelRuntime({
      store: database.connect(),
      fake: first.fake,
      runs: first.runs,
      clock: clock.read,
      owner: 'runtime-b',
      lease: { ttlMs: TTL },
    });
    expect(await second.runtime.resume('run-1').catch((error: unknown) => error)).toBeInstanceOf(RunLeasedError);
    clock.jump(TTL);
    const outcome = await second.runtime.resume('run-1');
    expect([outcome.status, outcome.output]).toEqual(['completed', clean.output]);
    expect(await database.getLease('run-1')).toBeUndefined();
  });

  test('a store error after the final status was stored (the write committed, its writer told it failed) leaves that status, not interrupted', async () => {
    const clean = await cleanWrites();
    const database = SqliteJournalStore.memory();
    // Write 21 stores the status `completed`; it and its four retries are each stored and reported failed.
    const schedule = FaultSchedule.explicit();
    for (let write = 21; write < 26; write++) schedule.at(write, CommittedThenLost);
    const faulty = new Faulty(database, schedule);
    const first = parcelRuntime({ store: faulty, fake: parcelRules(new FakeProvider()) });
    const failure = await first.runtime.run('parcel-desk', QUESTION).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(JournalWriteError);
    expect(faulty.injected.map((injected) => injected.operation)).toEqual(['updateRun', 'updateRun', 'updateRun', 'updateRun', 'updateRun']);
    expect(await database.getRun('run-1')).toMatchObject({ status: 'completed', result: clean.output });
    expect(await database.getLease('run-1')).toBeUndefined();
  });

  test('a lease stored while its writer was told it failed is released all the same, and the run it could not lease ends interrupted', async () => {
    const database = SqliteJournalStore.memory();
    // Write 2 takes the lease; it and its four retries are each stored and reported failed.
    const schedule = FaultSchedule.explicit();
    for (let write = 2; write < 7; write++) schedule.at(write, CommittedThenLost);
    const faulty = new Faulty(database, schedule);
    const first = parcelRuntime({ store: faulty, fake: parcelRules(new FakeProvider()), lease: { ttlMs: TTL } });
    expect(await first.runtime.run('parcel-desk', QUESTION).catch((error: unknown) => error)).toBeInstanceOf(JournalWriteError);
    expect(faulty.injected.map((injected) => injected.operation)).toEqual(['acquireLease', 'acquireLease', 'acquireLease', 'acquireLease', 'acquireLease']);
    expect(await database.getRun('run-1')).toMatchObject({ status: 'interrupted', result: { code: 'journal_write_failed' } });
    expect(await database.getLease('run-1')).toBeUndefined();
    expect(await database.read('run-1')).toEqual([]);
  });

  test('a simulated crash is no store error: the run is left running with its lease, as a dead process leaves it', async () => {
    const database = SqliteJournalStore.memory();
    const first = parcelRuntime({
      store: database,
      fake: parcelRules(new FakeProvider()),
      lease: { ttlMs: TTL },
      onPoint: (point, detail) => {
        if (point === 'AfterToolEffect' && detail.tool === 'send_message') throw new SimulatedCrash(0, point);
      },
    });
    expect(await first.runtime.run('parcel-desk', QUESTION).catch((error: unknown) => error)).toBeInstanceOf(SimulatedCrash);
    expect(await database.getRun('run-1')).toMatchObject({ status: 'running', result: null });
    expect((await database.getLease('run-1'))?.owner).toBe('runtime-a');
  });

  describe('on a real SQLite file', () => {
    const dir = tempDir();
    const bigLookup = {
      lookup: {
        run: async () => ({ parcel: 'P-1', city: 'Lyon', history: 'scan '.repeat(40_000) }),
        reconcile: async () => ({ status: 'not_applied' as const }),
      },
    };

    test('at its maxSizeBytes: the run fails with journal_full naming the file, ends interrupted, the lease is released, and once reopened with room the run resumes', async () => {
      const path = join(dir, 'journal.sqlite');
      const full = SqliteJournalStore.open({ path, maxSizeBytes: 64 * 1024 });
      const first = parcelRuntime({ store: full, fake: parcelRules(new FakeProvider()), toolOverrides: bigLookup, lease: { ttlMs: TTL } });
      const failure = await first.runtime.run('parcel-desk', QUESTION).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(JournalStorageError);
      expect((failure as JournalStorageError).code).toBe('journal_full');
      expect((failure as Error).message).toContain(`Could not write to the journal at ${path} (append)`);
      expect(await full.getLease('run-1')).toBeUndefined();
      // The lookup's 200 KB answer did not fit; the small status write did.
      expect(await full.getRun('run-1')).toMatchObject({ status: 'interrupted', result: { code: 'journal_full', message: (failure as Error).message } });
      await full.close();

      const roomy = SqliteJournalStore.open(path);
      const second = parcelRuntime({ store: roomy, fake: first.fake, runs: first.runs, toolOverrides: bigLookup, owner: 'runtime-b' });
      const outcome = await second.runtime.resume('run-1');
      expect(outcome.status).toBe('completed');
      expect(outcome.effects.find((effect) => effect.key === '0.1.tool')?.status).toBe('performed');
      expect(await roomy.getLease('run-1')).toBeUndefined();
      await roomy.close();
    });

    test('on a small tmpfs that fills up: the run fails with journal_full naming the file, and once space is freed a second runtime takes it over after the lease time', async (context) => {
      const disk = mountSmallDisk(2 * 1024 * 1024);
      if (!disk.mounted) {
        context.skip(disk.reason);
        return;
      }
      try {
        const path = join(disk.dir, 'journal.sqlite');
        const store = SqliteJournalStore.open(path);
        // Fill the disk, then free 64 KB: room for the small writes, not for the lookup's 200 KB answer.
        const fillers: string[] = [];
        for (;;) {
          const filler = join(disk.dir, `filler-${fillers.length}`);
          try {
            writeFileSync(filler, Buffer.alloc(64 * 1024, 1));
            fillers.push(filler);
          } catch {
            rmSync(filler, { force: true });
            break;
          }
        }
        expect(fillers.length).toBeGreaterThan(10);
        rmSync(fillers.pop()!);
        const clock = movableClock();
        const first = parcelRuntime({ store, fake: parcelRules(new FakeProvider()), toolOverrides: bigLookup, clock: clock.read, lease: { ttlMs: TTL } });
        const failure = await first.runtime.run('parcel-desk', QUESTION).catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(JournalStorageError);
        expect([(failure as JournalStorageError).code, (failure as JournalStorageError).path]).toEqual(['journal_full', path]);
        // Whether the release still fit on the disk or not, nobody is left holding the run once its time is over.
        const left = await store.getLease('run-1');
        if (left !== undefined) expect(left.owner).toBe('runtime-a');
        await store.close();

        for (const filler of fillers) rmSync(filler);
        clock.jump(TTL);
        const freed = SqliteJournalStore.open(path);
        const second = parcelRuntime({
          store: freed,
          fake: first.fake,
          runs: first.runs,
          toolOverrides: bigLookup,
          clock: clock.read,
          owner: 'runtime-b',
          lease: { ttlMs: TTL },
        });
        const outcome = await second.runtime.resume('run-1');
        expect(outcome.status).toBe('completed');
        expect(outcome.output).toBe('Parcel P-1 is in Lyon; I told the customer.');
        expect(await freed.getLease('run-1')).toBeUndefined();
        await freed.close();
      } finally {
        disk.unmount();
      }
    });
  });
});
