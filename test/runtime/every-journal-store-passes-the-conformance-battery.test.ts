import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import {
  checkJournalStore,
  FaultSchedule,
  Faulty,
  ForwardingJournalStore,
  JournalStoreConformanceError,
  Latency,
  SqliteJournalStore,
  type AppendOutcome,
  type JournalRecord,
  type JournalStore,
  type Lease,
} from 'modeltape/runtime';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function fileFactory(): { open(): SqliteJournalStore; connect(store: JournalStore): JournalStore } {
  return {
    open: () => {
      const dir = mkdtempSync(join(tmpdir(), 'modeltape-journal-'));
      dirs.push(dir);
      return SqliteJournalStore.open(join(dir, 'journal.sqlite'));
    },
    connect: (store) => (store as SqliteJournalStore).connect(),
  };
}

/** A decorator that counts what passes through it, and changes nothing. */
class CountingStore extends ForwardingJournalStore {
  appended = 0;
  override async append(records: readonly JournalRecord[]): Promise<AppendOutcome[]> {
    this.appended += records.length;
    return super.append(records);
  }
}

/** Deliberately broken: grants every lease, as a store without compare-and-set would. */
class LeaseWithoutCompareAndSet extends ForwardingJournalStore {
  override async acquireLease(runId: string, owner: string, expiresAt: number, now: number): Promise<{ acquired: boolean; lease: Lease }> {
    await super.releaseLease(runId, (await super.getLease(runId))?.owner ?? owner);
    return super.acquireLease(runId, owner, expiresAt, now);
  }
}

/** Deliberately broken: treats a record it already holds as new, so a retry stores it twice. */
class RetryStoresTwice extends ForwardingJournalStore {
  override async append(records: readonly JournalRecord[]): Promise<AppendOutcome[]> {
    const held = new Set((await Promise.all([...new Set(records.map((record) => record.runId))].map((runId) => super.read(runId)))).flat().map((record) => record.id));
    return super.append(records.map((record) => (held.has(record.id) ? { ...record, id: `${record.id}-again` } : record)));
  }
}

describe('checkJournalStore', () => {
  test('passes the SQLite file store, with racing appends from two connections to one file', async () => {
    const report = await checkJournalStore(fileFactory());
    report.assertConforms('SqliteJournalStore (file)');
    expect(report.checks.map((check) => check.name)).toHaveLength(8);
    expect(report.checks.every((check) => check.expectations >= 3)).toBe(true);
    expect(report.checks.reduce((sum, check) => sum + check.expectations, 0)).toBeGreaterThan(50);
  });

  test('passes the in-memory store', async () => {
    const report = await checkJournalStore({ open: () => SqliteJournalStore.memory(), connect: (store) => (store as SqliteJournalStore).connect() });
    report.assertConforms('SqliteJournalStore (memory)');
    expect(report.passed).toBe(true);
  });

  test('passes Faulty-wrapped stores (a fault-free schedule, and one of latency only) and a decorated handle', async () => {
    (await checkJournalStore(() => new Faulty(SqliteJournalStore.memory(), FaultSchedule.explicit()))).assertConforms('Faulty, no faults');
    (await checkJournalStore(() => new Faulty(SqliteJournalStore.memory(), FaultSchedule.seeded(3, { rate: 0.5, faults: [Latency(1)] })))).assertConforms('Faulty, latency');
    const counters: CountingStore[] = [];
    const report = await checkJournalStore({
      open: () => {
        const counting = new CountingStore(fileFactory().open());
        counters.push(counting);
        return counting;
      },
      connect: (store) => new CountingStore(((store as CountingStore).inner as SqliteJournalStore).connect()),
    });
    report.assertConforms('decorated SqliteJournalStore');
    expect(counters.reduce((sum, counter) => sum + counter.appended, 0)).toBeGreaterThan(100);
  });

  test('fails a store whose lease has no compare-and-set, naming the check and what it saw', async () => {
    const report = await checkJournalStore(() => new LeaseWithoutCompareAndSet(SqliteJournalStore.memory()));
    expect(report.passed).toBe(false);
    expect(report.checks.filter((check) => !check.passed).map((check) => check.name)).toEqual([
      'lease compare-and-set: one holder at a time, taken over only after expiry, released only by its holder',
      'a store that stops taking writes (a full disk) still reads what it held; a lease it could not release is taken over once it expires',
    ]);
    let thrown: unknown;
    try {
      report.assertConforms('LeaseWithoutCompareAndSet');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(JournalStoreConformanceError);
    expect((thrown as Error).message).toBe(
      'Journal store "LeaseWithoutCompareAndSet" fails 2 of 8 conformance checks:\n' +
        '  ✗ lease compare-and-set: one holder at a time, taken over only after expiry, released only by its holder: B is refused while A holds it, and told until when: expected {"acquired":false,"lease":{"owner":"A","expiresAt":1000}}, got {"acquired":true,"lease":{"owner":"B","expiresAt":1500}}\n' +
        '  ✗ a store that stops taking writes (a full disk) still reads what it held; a lease it could not release is taken over once it expires: B before the lease expires: expected false, got true',
    );
  });

  test('fails a store that stores a retried record twice', async () => {
    const report = await checkJournalStore(() => new RetryStoresTwice(SqliteJournalStore.memory()));
    const failed = report.checks.filter((check) => !check.passed);
    expect(failed.map((check) => check.name)).toEqual([
      'uniqueness: a second start of one effect is rejected and counted; a record appended twice is stored once',
      'CommittedThenLost: a write stored while its writer was told it failed is found by a read, and appending it again stores nothing twice',
    ]);
    expect(failed[1]!.problem).toContain('appending the committed batch again: expected ["duplicate","duplicate"]');
  });
});

describe('the SQLite file store with writers in several processes', () => {
  test('puts every batch at its own consecutive positions and counts every second start', async () => {
    const { spawn } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const dir = mkdtempSync(join(tmpdir(), 'modeltape-journal-'));
    dirs.push(dir);
    const file = join(dir, 'journal.sqlite');
    await SqliteJournalStore.open(file).close();
    const worker = fileURLToPath(new URL('../support/journal-append-worker.mjs', import.meta.url));
    const batches = 300;
    const exits = await Promise.all(
      [0, 1, 2].map(
        (index) =>
          new Promise<number | null>((resolve) => {
            const child = spawn(process.execPath, [worker, file, String(index), String(batches)], { stdio: 'inherit' });
            child.on('exit', resolve);
          }),
      ),
    );
    expect(exits).toEqual([0, 0, 0]);
    const store = SqliteJournalStore.open(file);
    const records = await store.read('shared-run');
    expect(records).toHaveLength(3 * batches * 2);
    expect(records.map((record) => record.position)).toEqual(records.map((_, index) => index + 1));
    for (let index = 0; index < records.length; index += 2) {
      expect(records[index]!.type).toBe('start');
      expect(records[index + 1]!.effectKey).toBe(records[index]!.effectKey);
    }
    expect(await store.backstopRejections('shared-run')).toBe(3 * (batches / 50));
    await store.close();
  });
});
