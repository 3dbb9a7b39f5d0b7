import { isDeepStrictEqual } from 'node:util';
import { ModeltapeError } from '../core/internal.js';
import { CommittedThenLost, FailBeforeCommit, FaultSchedule, Faulty, StoreFaultError } from './faulty.js';
import { RUN_STATUSES, type ApprovalRecord, type JournalRecord, type JournalStore, type Json, type RunRecord } from './journal-store.js';

/** Opens stores for the battery: a fresh, empty one per check, and a second connection to one. */
export interface JournalStoreFactory {
  open(): JournalStore | Promise<JournalStore>;
  /** Another connection to the same store, for racing appends. Without it, the same handle is used twice. */
  connect?(store: JournalStore): JournalStore | Promise<JournalStore>;
}

export interface JournalStoreCheck {
  name: string;
  passed: boolean;
  /** What went wrong (when it did not pass). */
  problem?: string;
  /** How many expectations the check verified. */
  expectations: number;
}

export interface JournalStoreReport {
  checks: JournalStoreCheck[];
  passed: boolean;
  /** Throws, naming the store and every failed check, unless all passed. */
  assertConforms(name: string): void;
}

/** Thrown by `assertConforms`. */
export class JournalStoreConformanceError extends ModeltapeError {
  readonly failed: JournalStoreCheck[];
  constructor(name: string, failed: JournalStoreCheck[], total: number) {
    super(
      'journal_store_nonconforming',
      `Journal store "${name}" fails ${failed.length} of ${total} conformance checks:\n${failed.map((check) => `  ✗ ${check.name}: ${check.problem}`).join('\n')}`,
    );
    this.failed = failed;
  }
}

class Expectations {
  count = 0;
  that(condition: boolean, message: string): void {
    this.count++;
    if (!condition) throw new CheckFailed(message);
  }
  equal(actual: unknown, expected: unknown, what: string): void {
    this.that(isDeepStrictEqual(actual, expected), `${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
  async rejects(promise: Promise<unknown>, what: string): Promise<unknown> {
    try {
      await promise;
    } catch (error) {
      this.count++;
      return error;
    }
    throw new CheckFailed(`${what}: expected an error, and it succeeded`);
  }
}

class CheckFailed extends Error {}

const RUN = 'conformance-run';
const OTHER = 'conformance-other';

function record(runId: string, effectKey: string, type: JournalRecord['type'], n: number, data: Json = { n }): JournalRecord {
  return { id: `${runId}-${effectKey}-${type}-${n}`, runId, effectKey, type, data, at: 1_700_000_000_000 + n };
}

function run(runId: string): RunRecord {
  return { runId, agent: 'conformance', input: 'Where is my parcel?', status: 'running', result: null, createdAt: 1, updatedAt: 1 };
}

type Check = (open: () => Promise<JournalStore>, connect: (store: JournalStore) => Promise<JournalStore>, expect: Expectations) => Promise<void>;

const CHECKS: Array<[string, Check]> = [
  [
    'runs: created once, read back, updated',
    async (open, _connect, expect) => {
      const store = await open();
      try {
        await store.createRun(run(RUN));
        expect.equal(await store.getRun(RUN), run(RUN), 'the run read back');
        await expect.rejects(store.createRun(run(RUN)), 'creating the same run twice');
        await store.updateRun(RUN, { status: 'completed', result: { answer: 'In Lyon' }, updatedAt: 5 });
        await store.updateRun(RUN, { status: 'completed', result: { answer: 'In Lyon' }, updatedAt: 5 });
        expect.equal(
          await store.getRun(RUN),
          { ...run(RUN), status: 'completed', result: { answer: 'In Lyon' }, updatedAt: 5 },
          'the run after two identical updates',
        );
        expect.equal(await store.getRun('no-such-run'), undefined, 'a run that does not exist');
      } finally {
        await store.close();
      }
    },
  ],
  [
    'run statuses: interrupted (a run a store error stopped) reads back with its error, and from it a run goes on to every status',
    async (open, _connect, expect) => {
      const store = await open();
      try {
        const error = {
          code: 'journal_full',
          message: 'Could not write to the journal at /data/journal.sqlite (append): the disk is full (SQLITE_FULL: database or disk is full).',
        };
        await store.createRun(run(RUN));
        await store.createRun(run(OTHER));
        await store.updateRun(RUN, { status: 'interrupted', result: error, updatedAt: 2 });
        expect.equal(await store.getRun(RUN), { ...run(RUN), status: 'interrupted', result: error, updatedAt: 2 }, 'the run a store error interrupted');
        expect.equal(await store.getRun(OTHER), run(OTHER), 'another run, untouched');
        // Resumed, an interrupted run may end in any status, or be interrupted again.
        for (const status of RUN_STATUSES) {
          const runId = `${RUN}-${status}`;
          await store.createRun(run(runId));
          await store.updateRun(runId, { status: 'interrupted', result: error, updatedAt: 2 });
          await store.updateRun(runId, { status, result: { status }, updatedAt: 3 });
          expect.equal(await store.getRun(runId), { ...run(runId), status, result: { status }, updatedAt: 3 }, `an interrupted run updated to ${status}`);
        }
      } finally {
        await store.close();
      }
    },
  ],
  [
    'append and read order: records come back per run, in append order, at positions 1, 2, 3, …',
    async (open, _connect, expect) => {
      const store = await open();
      try {
        const data: Json = { text: 'Ship to Lyon — tomorrow ✓', nested: { list: [1, 2.5, -3e-7, null, true, 'x'] }, empty: {} };
        const first = [record(RUN, '0.0.model', 'start', 1, data), record(OTHER, '0.0.model', 'start', 2), record(RUN, '0.0.model', 'complete', 3)];
        const second = [record(RUN, '0.1.tool', 'start', 4), record(RUN, '0.1.tool', 'fail', 5, { name: 'Error', message: 'boom' })];
        expect.equal(await store.append(first), ['appended', 'appended', 'appended'], 'outcomes of the first batch');
        expect.equal(await store.append(second), ['appended', 'appended'], 'outcomes of the second batch');
        expect.equal(await store.append([]), [], 'outcomes of an empty batch');
        const read = await store.read(RUN);
        expect.equal(
          read.map((stored) => stored.id),
          [first[0]!.id, first[2]!.id, second[0]!.id, second[1]!.id],
          'record ids in order',
        );
        expect.equal(
          read.map((stored) => stored.position),
          [1, 2, 3, 4],
          'positions',
        );
        expect.equal(read[0], { ...first[0]!, position: 1 }, 'the first record, field by field');
        expect.equal(
          (await store.read(OTHER)).map((stored) => stored.position),
          [1],
          'positions of the other run',
        );
        expect.equal(await store.read('no-such-run'), [], 'records of a run that has none');
      } finally {
        await store.close();
      }
    },
  ],
  [
    'uniqueness: a second start of one effect is rejected and counted; a record appended twice is stored once',
    async (open, _connect, expect) => {
      const store = await open();
      try {
        const start = record(RUN, '1.0.tool', 'start', 1);
        await store.append([start, record(RUN, '1.0.tool', 'complete', 2)]);
        expect.equal(await store.backstopRejections(RUN), 0, 'rejections before');
        const again = { ...record(RUN, '1.0.tool', 'start', 3), id: `${start.id}-second` };
        expect.equal(await store.append([again, record(RUN, '1.1.now', 'start', 4)]), ['rejected', 'appended'], 'outcomes of a batch with a second start');
        expect.equal(await store.backstopRejections(RUN), 1, 'rejections after one second start');
        expect.equal(await store.backstopRejections(OTHER), 0, 'rejections of another run');
        expect.equal(await store.append([start]), ['duplicate'], 'appending a stored record again');
        await expect.rejects(
          store.append([record(RUN, '1.2.now', 'start', 9), { ...start, effectKey: '7.0.tool' }]),
          'appending another record under a stored id',
        );
        expect.equal(
          (await store.read(RUN)).some((stored) => stored.effectKey === '1.2.now'),
          false,
          'a batch with a colliding id is not stored in part',
        );
        expect.equal(await store.backstopRejections(RUN), 1, 'rejections after a duplicate (a retry is not a second start)');
        const read = await store.read(RUN);
        expect.equal(
          read.map((stored) => `${stored.effectKey} ${stored.type}`),
          ['1.0.tool start', '1.0.tool complete', '1.1.now start'],
          'what the run holds',
        );
        expect.equal(
          read.map((stored) => stored.position),
          [1, 2, 3],
          'positions stay consecutive',
        );
        expect.equal(await store.append([{ ...record(OTHER, '1.0.tool', 'start', 5), id: 'other-start' }]), ['appended'], 'the same effect key in another run');
      } finally {
        await store.close();
      }
    },
  ],
  [
    'lease compare-and-set: one holder at a time, taken over only after expiry, released only by its holder',
    async (open, _connect, expect) => {
      const store = await open();
      try {
        expect.equal(await store.acquireLease(RUN, 'A', 1000, 0), { acquired: true, lease: { owner: 'A', expiresAt: 1000 } }, 'A takes a free lease');
        expect.equal(
          await store.acquireLease(RUN, 'B', 1500, 500),
          { acquired: false, lease: { owner: 'A', expiresAt: 1000 } },
          'B is refused while A holds it, and told until when',
        );
        expect.equal(await store.acquireLease(RUN, 'A', 1600, 600), { acquired: true, lease: { owner: 'A', expiresAt: 1600 } }, 'A extends its own lease');
        expect.equal(await store.renewLease(RUN, 'A', 2000), true, 'A renews');
        expect.equal(await store.renewLease(RUN, 'B', 9000), false, 'B cannot renew a lease it does not hold');
        expect.equal(await store.releaseLease(RUN, 'B'), false, 'B cannot release a lease it does not hold');
        expect.equal(await store.getLease(RUN), { owner: 'A', expiresAt: 2000 }, 'the lease after B tried');
        expect.equal(
          await store.acquireLease(RUN, 'B', 4000, 2000),
          { acquired: true, lease: { owner: 'B', expiresAt: 4000 } },
          'B takes it at the moment it expires',
        );
        expect.equal(await store.renewLease(RUN, 'A', 5000), false, 'A, which lost it, cannot renew');
        expect.equal(await store.releaseLease(RUN, 'A'), false, 'A, which lost it, cannot release');
        expect.equal(await store.releaseLease(RUN, 'B'), true, 'B releases');
        expect.equal(await store.getLease(RUN), undefined, 'no lease after release');
        expect.equal(await store.acquireLease(OTHER, 'A', 10, 0), { acquired: true, lease: { owner: 'A', expiresAt: 10 } }, 'leases are per run');
      } finally {
        await store.close();
      }
    },
  ],
  [
    'racing appends from two connections land at distinct consecutive positions, each connection in its own order',
    async (open, connect, expect) => {
      const store = await open();
      const second = await connect(store);
      try {
        const batches = 60;
        // Each connection appends its batches one after another; the two run at once.
        const writer = async (connection: JournalStore, ordinal: number, kind: string): Promise<void> => {
          for (let batch = 0; batch < batches; batch++) {
            await connection.append([
              record(RUN, `${batch}.${ordinal}.${kind}`, 'start', batch * 4 + ordinal * 2),
              record(RUN, `${batch}.${ordinal}.${kind}`, 'complete', batch * 4 + ordinal * 2 + 1),
            ]);
          }
        };
        await Promise.all([writer(store, 0, 'model'), writer(second, 1, 'tool')]);
        const read = await store.read(RUN);
        expect.equal(read.length, batches * 4, 'records after the race');
        expect.equal(
          read.map((stored) => stored.position),
          Array.from({ length: batches * 4 }, (_, index) => index + 1),
          'positions',
        );
        expect.equal(new Set(read.map((stored) => stored.id)).size, batches * 4, 'distinct ids');
        expect.that(
          read.every((stored, index) => stored.type !== 'start' || read[index + 1]?.effectKey === stored.effectKey),
          'each batch lands whole: every start is followed by the end appended with it',
        );
        for (const kind of ['model', 'tool']) {
          const mine = read.filter((stored) => stored.effectKey.endsWith(kind)).map((stored) => Number(stored.effectKey.split('.')[0]));
          expect.equal(
            mine,
            [...mine].sort((a, b) => a - b),
            `the ${kind} connection's records keep their order`,
          );
        }
        expect.equal((await second.read(RUN)).length, batches * 4, 'the second connection reads the same records');
      } finally {
        if (second !== store) await second.close();
        await store.close();
      }
    },
  ],
  [
    'CommittedThenLost: a write stored while its writer was told it failed is found by a read, and appending it again stores nothing twice',
    async (open, _connect, expect) => {
      const store = await open();
      try {
        const faulty = new Faulty(store, FaultSchedule.explicit().at(1, CommittedThenLost).at(2, FailBeforeCommit));
        const batch = [record(RUN, '0.0.model', 'start', 1), record(RUN, '0.0.model', 'complete', 2)];
        const lost = await expect.rejects(faulty.append(batch), 'the append told it failed');
        expect.that(lost instanceof StoreFaultError && lost.committed, 'the error says the write was stored');
        expect.equal(
          (await faulty.read(RUN)).map((stored) => stored.id),
          batch.map((stored) => stored.id),
          'what a read after the error finds',
        );
        const failed = await expect.rejects(faulty.append([record(RUN, '0.1.now', 'start', 3)]), 'an append failed before commit');
        expect.that(failed instanceof StoreFaultError && !failed.committed, 'the error says nothing was stored');
        expect.equal((await faulty.read(RUN)).length, 2, 'records after a write failed before commit');
        expect.equal(await faulty.append(batch), ['duplicate', 'duplicate'], 'appending the committed batch again');
        expect.equal(await faulty.append([record(RUN, '0.1.now', 'start', 3)]), ['appended'], 'appending the failed record again');
        const read = await faulty.read(RUN);
        expect.equal(
          read.map((stored) => stored.position),
          [1, 2, 3],
          'one record per position',
        );
        expect.equal(await faulty.backstopRejections(RUN), 0, 'retries are not second starts');
      } finally {
        await store.close();
      }
    },
  ],
  [
    'a store that stops taking writes (a full disk) still reads what it held; a lease it could not release is taken over once it expires',
    async (open, _connect, expect) => {
      const store = await open();
      try {
        await store.createRun(run(RUN));
        expect.equal((await store.acquireLease(RUN, 'A', 1000, 0)).acquired, true, 'A takes the lease');
        await store.append([record(RUN, '0.0.model', 'start', 1)]);
        // Every write from here on fails, as on a disk that filled up.
        const full = new Faulty(store, FaultSchedule.explicit().from(1, FailBeforeCommit));
        await expect.rejects(full.append([record(RUN, '0.0.model', 'complete', 2)]), 'an append on the full store');
        await expect.rejects(full.updateRun(RUN, { status: 'failed', result: null, updatedAt: 2 }), 'a status update on the full store');
        await expect.rejects(full.releaseLease(RUN, 'A'), 'the release on the full store');
        expect.equal(
          (await full.read(RUN)).map((stored) => `${stored.effectKey} ${stored.type}`),
          ['0.0.model start'],
          'what the run holds after the failed writes',
        );
        expect.equal((await full.getRun(RUN))?.status, 'running', 'the run status after a failed update');
        expect.equal(await store.getLease(RUN), { owner: 'A', expiresAt: 1000 }, 'the lease A could not release');
        // Space is freed (the store itself takes writes again): B waits out A's lease, then takes the run.
        expect.equal((await store.acquireLease(RUN, 'B', 2000, 999)).acquired, false, 'B before the lease expires');
        expect.equal(await store.acquireLease(RUN, 'B', 2000, 1000), { acquired: true, lease: { owner: 'B', expiresAt: 2000 } }, 'B once it expired');
        expect.equal(await store.append([record(RUN, '0.0.model', 'complete', 2)]), ['appended'], 'the refused record, appended again by B');
        expect.equal(
          (await store.read(RUN)).map((stored) => stored.position),
          [1, 2],
          'positions after the disk was freed',
        );
      } finally {
        await store.close();
      }
    },
  ],
  [
    'approvals: requested once, decided once, an approved one consumed once',
    async (open, _connect, expect) => {
      const store = await open();
      try {
        const approval: ApprovalRecord = {
          approvalId: `${RUN}/2.0.tool`,
          runId: RUN,
          effectKey: '2.0.tool',
          kind: 'interrupted_side_effect',
          reason: 'send may have run',
          request: { tool: 'send', args: { to: 'ops' } },
          decision: 'pending',
          createdAt: 10,
          decidedAt: null,
        };
        expect.equal(await store.requestApproval(approval), approval, 'the approval as stored');
        expect.equal(await store.requestApproval({ ...approval, reason: 'a second request' }), approval, 'a second request keeps the first');
        expect.equal(await store.decideApproval(approval.approvalId, 'approved', 20), { ...approval, decision: 'approved', decidedAt: 20 }, 'the decision');
        expect.equal(
          await store.decideApproval(approval.approvalId, 'rejected', 30),
          { ...approval, decision: 'approved', decidedAt: 20 },
          'a second decision changes nothing',
        );
        expect.equal(await store.decideApproval('no-such-approval', 'approved', 30), undefined, 'deciding an unknown approval');
        expect.equal(await store.approvals(RUN), [{ ...approval, decision: 'approved', decidedAt: 20 }], "the run's approvals");
        expect.equal(await store.approvals(OTHER), [], "another run's approvals");
        const pending = { ...approval, approvalId: `${RUN}/3.0.tool` };
        await store.requestApproval(pending);
        expect.equal(await store.consumeApproval(pending.approvalId, 40), false, 'consuming a pending approval');
        expect.equal(await store.consumeApproval(approval.approvalId, 40), true, 'consuming an approved approval');
        expect.equal(await store.consumeApproval(approval.approvalId, 50), false, 'consuming it a second time');
        expect.equal(
          (await store.approvals(RUN)).map((stored) => [stored.approvalId, stored.decision]),
          [
            [approval.approvalId, 'consumed'],
            [pending.approvalId, 'pending'],
          ],
          'decisions after consuming',
        );
        expect.equal(
          await store.decideApproval(approval.approvalId, 'rejected', 60).then((stored) => stored?.decision),
          'consumed',
          'deciding a consumed approval changes nothing',
        );
      } finally {
        await store.close();
      }
    },
  ],
];

/**
 * The conformance battery every journal store runs: runs and every run status (`interrupted`
 * included) read back as written, append and read order, uniqueness (the
 * backstop), lease compare-and-set, racing appends from two connections, CommittedThenLost
 * handling, a store that stops taking writes (its lease expires) and approvals. Each check gets a fresh store from `factory`.
 */
export async function checkJournalStore(factory: JournalStoreFactory | (() => JournalStore | Promise<JournalStore>)): Promise<JournalStoreReport> {
  const resolved: JournalStoreFactory = typeof factory === 'function' ? { open: factory } : factory;
  const open = async (): Promise<JournalStore> => resolved.open();
  const connect = async (store: JournalStore): Promise<JournalStore> => (resolved.connect ? resolved.connect(store) : store);
  const checks: JournalStoreCheck[] = [];
  for (const [name, check] of CHECKS) {
    const expect = new Expectations();
    try {
      await check(open, connect, expect);
      checks.push({ name, passed: true, expectations: expect.count });
    } catch (error) {
      checks.push({
        name,
        passed: false,
        problem: error instanceof CheckFailed ? error.message : `threw ${(error as Error)?.name}: ${(error as Error)?.message}`,
        expectations: expect.count,
      });
    }
  }
  const passed = checks.every((check) => check.passed);
  return {
    checks,
    passed,
    assertConforms(name: string): void {
      const failed = checks.filter((check) => !check.passed);
      if (failed.length > 0 || checks.length === 0) throw new JournalStoreConformanceError(name, failed, checks.length);
    },
  };
}
