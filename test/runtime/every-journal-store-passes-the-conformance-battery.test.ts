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
  type Json,
  type Lease,
  type RunStatus,
} from 'modeltape/runtime';
import { openSqlite } from '../../runtime/sqlite-driver.js';

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

/**
 * The tables as the first release created them, copied from its source: a journal an earlier
 * modeltape wrote, before versions were kept (`user_version` 0) and before `interrupted` existed.
 */
const FIRST_RELEASE_SCHEMA = `
CREATE TABLE IF NOT EXISTS runs (run_id TEXT PRIMARY KEY, agent TEXT NOT NULL, input TEXT NOT NULL, status TEXT NOT NULL, result TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS records (id TEXT PRIMARY KEY, run_id TEXT NOT NULL, position INTEGER NOT NULL, effect_key TEXT NOT NULL, type TEXT NOT NULL CHECK (type IN ('start', 'complete', 'fail')), data TEXT NOT NULL, at INTEGER NOT NULL, UNIQUE (run_id, position));
CREATE UNIQUE INDEX IF NOT EXISTS records_one_start_per_effect ON records (run_id, effect_key) WHERE type = 'start';
CREATE TABLE IF NOT EXISTS backstop (run_id TEXT PRIMARY KEY, rejections INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS leases (run_id TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS approvals (approval_id TEXT PRIMARY KEY, run_id TEXT NOT NULL, effect_key TEXT NOT NULL, kind TEXT NOT NULL, reason TEXT NOT NULL, request TEXT NOT NULL, decision TEXT NOT NULL, created_at INTEGER NOT NULL, decided_at INTEGER);
CREATE INDEX IF NOT EXISTS approvals_by_run ON approvals (run_id);
`;

/** A journal file as the first release left it, holding one run it left running. */
function firstReleaseJournal(): string {
  const dir = mkdtempSync(join(tmpdir(), 'modeltape-journal-'));
  dirs.push(dir);
  const path = join(dir, 'journal.sqlite');
  const { connection } = openSqlite(path);
  connection.exec(FIRST_RELEASE_SCHEMA);
  connection
    .prepare('INSERT INTO runs (run_id, agent, input, status, result, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run('old-run', 'parcel-desk', '"Where is parcel P-1?"', 'running', 'null', 1, 1);
  connection.close();
  return path;
}

/** Deliberately broken: keeps only the five statuses there were before `interrupted`, reading any other back as `running`. */
class KnowsFiveStatuses extends ForwardingJournalStore {
  override async updateRun(runId: string, update: { status: RunStatus; result: Json; updatedAt: number }): Promise<void> {
    const known: readonly string[] = ['running', 'waiting', 'completed', 'failed', 'cancelled'];
    return super.updateRun(runId, { ...update, status: known.includes(update.status) ? update.status : 'running' });
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
    const held = new Set(
      (await Promise.all([...new Set(records.map((record) => record.runId))].map((runId) => super.read(runId)))).flat().map((record) => record.id),
    );
    return super.append(records.map((record) => (held.has(record.id) ? { ...record, id: `${record.id}-again` } : record)));
  }
}

describe('checkJournalStore', () => {
  test('passes the SQLite file store, with racing appends from two connections to one file', async () => {
    const report = await checkJournalStore(fileFactory());
    report.assertConforms('SqliteJournalStore (file)');
    expect(report.checks.map((check) => check.name)).toHaveLength(9);
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
    (await checkJournalStore(() => new Faulty(SqliteJournalStore.memory(), FaultSchedule.seeded(3, { rate: 0.5, faults: [Latency(1)] })))).assertConforms(
      'Faulty, latency',
    );
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
      'Journal store "LeaseWithoutCompareAndSet" fails 2 of 9 conformance checks:\n' +
        '  ✗ lease compare-and-set: one holder at a time, taken over only after expiry, released only by its holder: B is refused while A holds it, and told until when: expected {"acquired":false,"lease":{"owner":"A","expiresAt":1000}}, got {"acquired":true,"lease":{"owner":"B","expiresAt":1500}}\n' +
        '  ✗ a store that stops taking writes (a full disk) still reads what it held; a lease it could not release is taken over once it expires: B before the lease expires: expected false, got true',
    );
  });

  test('passes a journal file as the first release wrote it, whose runs table has no CHECK on status: its run reads back as it was and takes the interrupted status', async () => {
    const opened: string[] = [];
    const report = await checkJournalStore({
      open: () => {
        const path = firstReleaseJournal();
        opened.push(path);
        return SqliteJournalStore.open(path);
      },
      connect: (store) => (store as SqliteJournalStore).connect(),
    });
    report.assertConforms('SqliteJournalStore on a first-release journal');
    expect(opened).toHaveLength(report.checks.length);

    const path = firstReleaseJournal();
    const { connection } = openSqlite(path);
    const runs = connection.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'runs'").get() as { sql: string };
    const version = connection.prepare('PRAGMA user_version').get() as { user_version: number };
    connection.close();
    expect(runs.sql).toContain('status TEXT NOT NULL');
    expect(runs.sql).not.toMatch(/CHECK/i);
    expect(version.user_version).toBe(0);
    const store = SqliteJournalStore.open(path);
    try {
      expect(await store.getRun('old-run')).toEqual({
        runId: 'old-run',
        agent: 'parcel-desk',
        input: 'Where is parcel P-1?',
        status: 'running',
        result: null,
        createdAt: 1,
        updatedAt: 1,
      });
      await store.updateRun('old-run', { status: 'interrupted', result: { code: 'journal_full', message: 'the disk is full' }, updatedAt: 2 });
      expect(await store.getRun('old-run')).toMatchObject({ status: 'interrupted', result: { code: 'journal_full', message: 'the disk is full' } });
    } finally {
      await store.close();
    }
  });

  test('fails a store that keeps only the statuses there were before interrupted, naming the check', async () => {
    const report = await checkJournalStore(() => new KnowsFiveStatuses(SqliteJournalStore.memory()));
    const failed = report.checks.filter((check) => !check.passed);
    expect(failed.map((check) => check.name)).toEqual([
      'run statuses: interrupted (a run a store error stopped) reads back with its error, and from it a run goes on to every status',
    ]);
    expect(failed[0]!.problem).toMatch(/^the run a store error interrupted: expected \{.*"status":"interrupted".*\}, got \{.*"status":"running".*\}$/);
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
