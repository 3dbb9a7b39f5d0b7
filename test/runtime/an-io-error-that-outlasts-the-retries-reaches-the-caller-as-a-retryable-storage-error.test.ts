import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { FaultSchedule, Faulty, IoError, JournalStorageError, JournalWriteError, ModeltapeError, SqliteJournalStore } from 'modeltape/runtime';
import { parcelRules, parcelRuntime } from '../support/parcel-agent.js';

// What a caller of run() catches when the journal's storage keeps failing with an I/O error (a
// disk, or a database server gone away: see postgres/ for the same on a real server): the
// store's own JournalStorageError, journal_io_error and retryable, as a full disk's journal_full
// reaches it at once, never a JournalWriteError that only holds it as its cause.

const QUESTION = 'Where is parcel P-1?';
const ANSWER = 'Parcel P-1 is in Lyon; I told the customer.';

describe('an I/O error on every one of the runtime’s attempts at a write', () => {
  test('stops the run with a retryable journal_io_error naming the run, records it interrupted, and another runtime resumes it to the same answer, at every write', async () => {
    const clean = new Faulty(SqliteJournalStore.memory(), FaultSchedule.explicit());
    await parcelRuntime({ store: clean, fake: parcelRules(new FakeProvider()) }).runtime.run('parcel-desk', QUESTION);
    expect(clean.writes).toBe(22);
    let checked = 0;
    // Write 1 creates the run (no run to resume); the last releases the lease of a run that completed.
    for (let write = 2; write < clean.writes; write++) {
      const database = SqliteJournalStore.memory();
      // The runtime makes five attempts at a write: each one fails.
      const schedule = FaultSchedule.explicit();
      for (let failing = write; failing < write + 5; failing++) schedule.at(failing, IoError);
      const faulty = new Faulty(database, schedule);
      const first = parcelRuntime({ store: faulty, fake: parcelRules(new FakeProvider()) });
      const caught = await first.runtime.run('parcel-desk', QUESTION).catch((error: unknown) => error);

      expect(caught, `I/O errors from write ${write}`).toBeInstanceOf(JournalStorageError);
      expect(caught).not.toBeInstanceOf(JournalWriteError);
      const failure = caught as JournalStorageError;
      expect(ModeltapeError.isInstance(failure)).toBe(true);
      expect([failure.code, failure.retryable, failure.problem, failure.sqliteCode, failure.runId], `I/O errors from write ${write}`).toEqual([
        'journal_io_error',
        true,
        'io',
        'SQLITE_IOERR',
        'run-1',
      ]);
      expect(failure.operation).toBe(faulty.injected[0]!.operation);
      expect(faulty.injected.map((injected) => injected.operation)).toEqual(Array(5).fill(faulty.injected[0]!.operation));
      expect(failure.message).toContain('then resume the run (runtime.resume)');
      // The store took writes again after the fifth: the run is recorded interrupted, with the error's code, and released.
      expect(await database.getRun('run-1'), `I/O errors from write ${write}`).toMatchObject({
        status: 'interrupted',
        result: { code: 'journal_io_error', message: failure.message },
      });
      expect(await database.getLease('run-1')).toBeUndefined();

      const second = parcelRuntime({ store: database.connect(), fake: first.fake, runs: first.runs, owner: 'runtime-b' });
      let outcome = await second.runtime.resume(failure.runId!);
      // A send that ran and was not recorded as ended is in doubt: an operator approves it once.
      if (outcome.status === 'waiting') {
        expect(outcome.pendingApprovals.map((approval) => approval.kind)).toEqual(['interrupted_side_effect']);
        await second.runtime.approve(outcome.pendingApprovals[0]!.approvalId);
        outcome = await second.runtime.resume(failure.runId!);
      }
      expect([outcome.status, outcome.output], `I/O errors from write ${write}`).toEqual(['completed', ANSWER]);
      expect(first.runs.send.length).toBeLessThanOrEqual(2);
      expect(await database.getLease('run-1')).toBeUndefined();
      checked++;
    }
    expect(checked).toBe(20);
  });

  test('one that passes before the fifth attempt is retried away: the run completes, and the caller sees nothing', async () => {
    const faulty = new Faulty(SqliteJournalStore.memory(), FaultSchedule.explicit().at(5, IoError).at(6, IoError).at(7, IoError).at(8, IoError));
    const { runtime } = parcelRuntime({ store: faulty, fake: parcelRules(new FakeProvider()) });
    const outcome = await runtime.run('parcel-desk', QUESTION);
    expect([outcome.status, outcome.output]).toEqual(['completed', ANSWER]);
    expect(faulty.injected).toHaveLength(4);
  });
});
