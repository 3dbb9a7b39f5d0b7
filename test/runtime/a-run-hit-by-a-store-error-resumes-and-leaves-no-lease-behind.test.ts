import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { DiskFull, FailBeforeCommit, FaultSchedule, Faulty, JournalStorageError, JournalWriteError, RunLeasedError, SqliteJournalStore, type Fault, type RunOutcome, type StoredRecord } from 'modeltape/runtime';
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
    test(`when the store refuses one write (${name}), the run stops, its lease is released, and another runtime resumes it at once`, async () => {
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
        expect(await database.getLease('run-1'), `fault at write ${write}: the lease is released`).toBeUndefined();
        expect((await database.getRun('run-1'))?.status, `fault at write ${write}`).toBe('running');
        noStoreErrorRecordedAsAToolFailure(await database.read('run-1'));

        const second = parcelRuntime({ store: database.connect(), fake: first.fake, runs: first.runs, clock: clock.read, owner: 'runtime-b', lease: { ttlMs: TTL } });
        const { outcome } = await resumeToTheEnd(second);
        expect(outcome.status, `fault at write ${write}`).toBe('completed');
        expect(outcome.output).toBe(clean.output);
        expect(first.runs.send.length, `fault at write ${write}`).toBeLessThanOrEqual(2);
        expect(await database.getLease('run-1')).toBeUndefined();
        noStoreErrorRecordedAsAToolFailure(await database.read('run-1'));
        checked++;
      }
      expect(checked).toBe(20);
    });
  }

  test('when the store refuses every write from some point (a full disk that stays full), even the release fails: the lease expires, and a second runtime takes the run over after it', async () => {
    const clean = await cleanWrites();
    let approvals = 0;
    let checked = 0;
    for (let write = 3; write < clean.writes; write++) {
      const database = SqliteJournalStore.memory();
      const clock = movableClock();
      const first = parcelRuntime({ store: new Faulty(database, FaultSchedule.explicit().from(write, DiskFull)), fake: parcelRules(new FakeProvider()), clock: clock.read, lease: { ttlMs: TTL } });
      const failure = await first.runtime.run('parcel-desk', QUESTION).catch((error: unknown) => error);
      expect((failure as JournalStorageError).code, `full from write ${write}`).toBe('journal_full');
      const left = await database.getLease('run-1');
      expect(left?.owner, `full from write ${write}: the release could not be written`).toBe('runtime-a');

      // The disk is freed (the runtime-b reaches the database without the fault).
      const second = parcelRuntime({ store: database.connect(), fake: first.fake, runs: first.runs, clock: clock.read, owner: 'runtime-b', lease: { ttlMs: TTL } });
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

  describe('on a real SQLite file', () => {
    const dir = tempDir();
    const bigLookup = { lookup: { run: async () => ({ parcel: 'P-1', city: 'Lyon', history: 'scan '.repeat(40_000) }), reconcile: async () => ({ status: 'not_applied' as const }) } };

    test('at its maxSizeBytes: the run fails with journal_full naming the file, the lease is released, and once reopened with room the run resumes', async () => {
      const path = join(dir, 'journal.sqlite');
      const full = SqliteJournalStore.open({ path, maxSizeBytes: 64 * 1024 });
      const first = parcelRuntime({ store: full, fake: parcelRules(new FakeProvider()), toolOverrides: bigLookup, lease: { ttlMs: TTL } });
      const failure = await first.runtime.run('parcel-desk', QUESTION).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(JournalStorageError);
      expect((failure as JournalStorageError).code).toBe('journal_full');
      expect((failure as Error).message).toContain(`Could not write to the journal at ${path} (append)`);
      expect(await full.getLease('run-1')).toBeUndefined();
      expect((await full.getRun('run-1'))?.status).toBe('running');
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
        const second = parcelRuntime({ store: freed, fake: first.fake, runs: first.runs, toolOverrides: bigLookup, clock: clock.read, owner: 'runtime-b', lease: { ttlMs: TTL } });
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
