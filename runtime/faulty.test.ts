import { describe, expect, test } from 'vitest';
import { JournalStorageError } from './errors.js';
import {
  CrashAtWrite,
  CommittedThenLost,
  DiskFull,
  FailBeforeCommit,
  FaultSchedule,
  Faulty,
  IoError,
  Latency,
  SimulatedCrash,
  StoreFaultError,
} from './faulty.js';
import { SqliteJournalStore } from './sqlite-journal-store.js';
import type { JournalRecord } from './journal-store.js';

const record = (n: number): JournalRecord => ({ id: `r${n}`, runId: 'run', effectKey: `${n}.0.now`, type: 'start', data: null, at: n });

describe('Faulty', () => {
  test('numbers writes from 1 and injects exactly the scheduled faults; reads are never faulted', async () => {
    const store = new Faulty(SqliteJournalStore.memory(), FaultSchedule.explicit().at(2, FailBeforeCommit).at(3, CommittedThenLost).at(4, Latency(5)));
    expect(await store.append([record(1)])).toEqual(['appended']);
    await expect(store.append([record(2)])).rejects.toThrow('Injected fault fail_before_commit on write #2 (append): nothing was stored.');
    const lost = await store.append([record(3)]).catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(StoreFaultError);
    expect((lost as StoreFaultError).committed).toBe(true);
    expect(await store.append([record(4)])).toEqual(['appended']);
    expect((await store.read('run')).map((stored) => stored.id)).toEqual(['r1', 'r3', 'r4']);
    expect(store.writes).toBe(4);
    expect(store.injected.map(({ write, fault }) => `${write} ${fault.kind}`)).toEqual(['2 fail_before_commit', '3 committed_then_lost', '4 latency']);
  });

  test('after a CrashAtWrite, every call on the handle fails, reads included, and the write that crashed is not stored', async () => {
    const inner = SqliteJournalStore.memory();
    const store = new Faulty(inner, FaultSchedule.explicit().at(2, CrashAtWrite));
    await store.append([record(1)]);
    await expect(store.append([record(2)])).rejects.toBeInstanceOf(SimulatedCrash);
    expect(store.crashed).toBe(true);
    await expect(store.read('run')).rejects.toThrow('Simulated crash at write #2 (read)');
    await expect(store.getLease('run')).rejects.toBeInstanceOf(SimulatedCrash);
    expect((await inner.read('run')).map((stored) => stored.id)).toEqual(['r1']);
  });

  test('a seed gives the same faults at the same writes forever, and different seeds differ', () => {
    const draw = (seed: number): string =>
      Array.from({ length: 500 }, (_, index) => FaultSchedule.seeded(seed, { rate: 0.2 }).faultAt(index + 1)?.kind?.[0] ?? '.').join('');
    expect(draw(42)).toBe(draw(42));
    expect(draw(42)).not.toBe(draw(43));
    const faults = [...draw(42)].filter((mark) => mark !== '.').length;
    expect(faults).toBeGreaterThan(60);
    expect(faults).toBeLessThan(140);
    expect(new Faulty(SqliteJournalStore.memory(), 42).schedule.seed).toBe(42);
  });

  test('from(n) fails write n and every write after it, as a full disk would, while reads still pass', async () => {
    const store = new Faulty(SqliteJournalStore.memory(), FaultSchedule.explicit().from(2, FailBeforeCommit).at(4, Latency(1)));
    expect(await store.append([record(1)])).toEqual(['appended']);
    for (const n of [2, 3]) await expect(store.append([record(n)]), `write ${n}`).rejects.toBeInstanceOf(StoreFaultError);
    expect(await store.append([record(4)])).toEqual(['appended']);
    for (const n of [5, 6]) await expect(store.append([record(n)]), `write ${n}`).rejects.toBeInstanceOf(StoreFaultError);
    await expect(store.releaseLease('run', 'A')).rejects.toThrow('Injected fault fail_before_commit on write #7 (releaseLease): nothing was stored.');
    expect((await store.read('run')).map((stored) => stored.id)).toEqual(['r1', 'r4']);
    expect(store.injected.map(({ write, fault }) => `${write} ${fault.kind}`)).toEqual([
      '2 fail_before_commit',
      '3 fail_before_commit',
      '4 latency',
      '5 fail_before_commit',
      '6 fail_before_commit',
      '7 fail_before_commit',
    ]);
    expect(() => FaultSchedule.explicit().from(0, FailBeforeCommit)).toThrow('Faults are placed at write numbers 1, 2, 3, …; got 0.');
  });

  test('DiskFull and IoError fail as the storage does, naming the file: journal_full is not retryable, journal_io_error is; nothing is stored', async () => {
    const store = new Faulty(SqliteJournalStore.memory(), FaultSchedule.explicit().at(1, DiskFull).at(2, IoError));
    const full = (await store.append([record(1)]).catch((error: unknown) => error)) as JournalStorageError;
    const io = (await store.append([record(2)]).catch((error: unknown) => error)) as JournalStorageError;
    expect([full, io].map((error) => error instanceof JournalStorageError)).toEqual([true, true]);
    expect([full.code, full.retryable, full.sqliteCode, full.operation]).toEqual(['journal_full', false, 'SQLITE_FULL', 'append']);
    expect([io.code, io.retryable, io.sqliteCode, io.operation]).toEqual(['journal_io_error', true, 'SQLITE_IOERR', 'append']);
    expect(await store.read('run')).toEqual([]);
  });

  test('refuses a schedule it cannot follow', () => {
    expect(() => FaultSchedule.explicit().at(0, CrashAtWrite)).toThrow('Faults are placed at write numbers 1, 2, 3, …; got 0.');
    expect(() => FaultSchedule.seeded(1, { rate: 2 })).toThrow('A fault rate must be between 0 and 1, got 2.');
  });
});
