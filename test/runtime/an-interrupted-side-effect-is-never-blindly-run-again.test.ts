import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { CrashAtWrite, FaultSchedule, Faulty, SimulatedCrash, SqliteJournalStore, type Json } from 'modeltape/runtime';
import { parcelRules, parcelRuntime } from '../support/parcel-agent.js';

/** Runs the parcel agent until the process "dies" at the write that would record the send's end. */
async function crashAfterTheSend(): Promise<{
  database: SqliteJournalStore;
  fake: FakeProvider;
  runs: { lookup: Json[]; send: Json[] };
  resumeWith: (options?: Parameters<typeof parcelRuntime>[0]) => ReturnType<typeof parcelRuntime>;
}> {
  const database = SqliteJournalStore.memory();
  // Find the write that records the send's end, from a clean run's journal.
  const probe = new Faulty(SqliteJournalStore.memory(), FaultSchedule.explicit());
  await parcelRuntime({ store: probe, fake: parcelRules(new FakeProvider()) }).runtime.run('parcel-desk', 'Where is parcel P-1?');
  const records = await probe.read('run-1');
  const sendEnd = records.findIndex((record) => record.effectKey === '1.1.tool' && record.type === 'complete');
  const write = 2 + sendEnd + 1; // createRun, acquireLease, then one append per record
  const fake = parcelRules(new FakeProvider());
  const crashing = parcelRuntime({ store: new Faulty(database, FaultSchedule.explicit().at(write, CrashAtWrite)), fake, lease: { ttlMs: 1 } });
  await expect(crashing.runtime.run('parcel-desk', 'Where is parcel P-1?')).rejects.toBeInstanceOf(SimulatedCrash);
  expect(crashing.runs.send).toHaveLength(1); // the message went out; its end was never recorded
  // A second runtime, after the first one died: another owner, a day later (its lease long expired).
  const resumeWith = (options: Parameters<typeof parcelRuntime>[0] = {}): ReturnType<typeof parcelRuntime> =>
    parcelRuntime({ store: database.connect(), fake, runs: crashing.runs, owner: 'runtime-b', clock: () => Date.UTC(2027, 0, 1), ...options });
  return { database, fake, runs: crashing.runs, resumeWith };
}

describe('a tool call that started and never finished (the process died after the message went out)', () => {
  test('waits for an interrupted_side_effect approval, and runs exactly once more when approved', async () => {
    const { database, runs, resumeWith } = await crashAfterTheSend();
    const resumer = resumeWith();
    const waiting = await resumer.runtime.resume('run-1');
    expect(waiting.status).toBe('waiting');
    expect(waiting.pendingApprovals).toMatchObject([
      { kind: 'interrupted_side_effect', effectKey: '1.1.tool', request: { tool: 'send_message', args: { to: 'customer' } } },
    ]);
    expect(waiting.pendingApprovals[0]!.reason).toContain('send_message (remote_mutation) started and its end was never recorded: it may have run.');
    expect(runs.send).toHaveLength(1);
    // Resuming again does not run it either.
    expect((await resumer.runtime.resume('run-1')).status).toBe('waiting');
    expect(runs.send).toHaveLength(1);

    await resumer.runtime.approve(waiting.pendingApprovals[0]!.approvalId);
    const done = await resumer.runtime.resume('run-1');
    expect(done.status).toBe('completed');
    expect(runs.send).toHaveLength(2);
    const sendRecords = (await database.read('run-1')).filter((record) => record.effectKey === '1.1.tool').map((record) => record.type);
    expect(sendRecords).toEqual(['start', 'complete']);
  });

  test("is settled by the tool's reconcile hook without running it again, when the hook finds it applied", async () => {
    const { database, runs, resumeWith } = await crashAfterTheSend();
    const reconciled: Json[] = [];
    const resumer = resumeWith({
      toolOverrides: {
        send: {
          reconcile: async (args) => {
            reconciled.push(args);
            return { status: 'applied', result: { sent: true, messageId: 'found-in-the-outbox' } };
          },
        },
      },
    });
    const done = await resumer.runtime.resume('run-1');
    expect(done.status).toBe('completed');
    expect(reconciled).toEqual([{ to: 'customer', text: 'Your parcel P-1 is in Lyon.' }]);
    expect(runs.send).toHaveLength(1);
    expect(done.effects.find((effect) => effect.key === '1.1.tool')?.status).toBe('reconciled');
    expect((await database.read('run-1')).find((record) => record.effectKey === '1.1.tool' && record.type === 'complete')?.data).toEqual({
      sent: true,
      messageId: 'found-in-the-outbox',
    });
  });

  test('is run again once when reconcile finds it was not applied', async () => {
    const { runs, resumeWith } = await crashAfterTheSend();
    const resumer = resumeWith({ toolOverrides: { send: { reconcile: () => ({ status: 'not_applied' }) } } });
    expect((await resumer.runtime.resume('run-1')).status).toBe('completed');
    expect(runs.send).toHaveLength(2);
  });

  test('cannot be replayed strictly: the error says to resume', async () => {
    const { database } = await crashAfterTheSend();
    const reader = parcelRuntime({ store: database.connect(), owner: 'runtime-b' });
    await expect(reader.runtime.replay('run-1', 'strict')).rejects.toThrow(
      'Strict replay of run run-1 reached effect 1.1.tool (tool), which started and never completed: it is in doubt, and strict replay performs nothing. Resume the run (runtime.resume) to settle it.',
    );
  });
});

describe('resuming a call that is run again', () => {
  test('journals its own effects afresh, under a new attempt, with the same operation id', async () => {
    const { database, resumeWith } = await crashAfterTheSend();
    const operations: string[] = [];
    const rerun = resumeWith({
      toolOverrides: {
        send: {
          reconcile: () => ({ status: 'not_applied' }),
          // The world changed: this time it reads the clock first.
          run: async (_args, context) => {
            operations.push(context.operationId);
            return { at: await context.now(), messageId: await context.newId() };
          },
        },
      },
    });
    const outcome = await rerun.runtime.resume('run-1');
    expect(outcome.status).toBe('completed');
    expect(operations).toEqual(['run-1/1.1.tool']);
    const keys = (await database.read('run-1'))
      .filter((record) => record.effectKey.startsWith('1.1.tool'))
      .map((record) => `${record.effectKey} ${record.type}`);
    expect(keys).toEqual([
      '1.1.tool start',
      '1.1.tool/0.id start',
      '1.1.tool/0.id complete',
      '1.1.tool/1.now start',
      '1.1.tool/1.now complete',
      '1.1.tool@2/0.now start',
      '1.1.tool@2/0.now complete',
      '1.1.tool@2/1.id start',
      '1.1.tool@2/1.id complete',
      '1.1.tool complete',
    ]);
    expect((await rerun.runtime.replay('run-1', 'strict')).status).toBe('completed');
  });

  test('a context used after its call returned is refused, and journals nothing', async () => {
    let late: Promise<unknown> | undefined;
    const { runtime, store } = parcelRuntime({
      fake: parcelRules(new FakeProvider()),
      toolOverrides: {
        lookup: {
          run: (_args, context) => {
            late = new Promise((resolve) => setTimeout(resolve, 10)).then(() => context.now()).catch((error: unknown) => error);
            return { parcel: 'P-1', city: 'Lyon' };
          },
        },
      },
    });
    const outcome = await runtime.run('parcel-desk', 'Where is parcel P-1?');
    const error = await late;
    expect((error as Error).message).toContain('The call run-1/0.1.tool is over (it returned, failed or timed out): its context cannot journal anything more.');
    expect((await store.read(outcome.runId)).some((record) => record.effectKey.includes('now') && record.effectKey.startsWith('0.'))).toBe(false);
    expect((await runtime.replay(outcome.runId, 'strict')).output).toBe(outcome.output);
  });
});

describe('a reconcile hook that does not answer', () => {
  for (const [label, reconcile] of [
    ['throws', () => Promise.reject(new Error('the outbox is down'))],
    ['answers an unknown status', () => ({ status: 'Applied', result: { sent: true } })],
    ['says applied without a result', () => ({ status: 'applied' })],
    ['answers nothing', () => undefined],
  ] as Array<[string, () => unknown]>) {
    test(`${label}: the call is not run again on it; an operator decides`, async () => {
      const { runs, resumeWith } = await crashAfterTheSend();
      const resumer = resumeWith({ toolOverrides: { send: { reconcile: reconcile as never } } });
      const waiting = await resumer.runtime.resume('run-1');
      expect(waiting.status).toBe('waiting');
      expect(waiting.pendingApprovals.map((approval) => approval.kind)).toEqual(['interrupted_side_effect']);
      expect(runs.send).toHaveLength(1);
    });
  }
});

describe('an approval this runtime did not consume', () => {
  test('does not run the call: the resume stops, and says to resume again', async () => {
    const { ForwardingJournalStore } = await import('modeltape/runtime');
    const { database, runs, resumeWith } = await crashAfterTheSend();
    const first = resumeWith();
    const waiting = await first.runtime.resume('run-1');
    await first.runtime.approve(waiting.pendingApprovals[0]!.approvalId);
    // Another runtime got there first: the compare-and-set does not report this one's.
    const raced = new (class extends ForwardingJournalStore {
      override async consumeApproval(approvalId: string, at: number): Promise<boolean> {
        await super.consumeApproval(approvalId, at);
        return false;
      }
    })(database.connect());
    const second = resumeWith({ store: raced, owner: 'runtime-c', clock: () => Date.UTC(2027, 0, 2) });
    await expect(second.runtime.resume('run-1')).rejects.toThrow('Approval run-1/1.1.tool was not consumed by this runtime');
    expect(runs.send).toHaveLength(1);
    expect(await database.getLease('run-1')).toBeUndefined();
  });
});

describe('tool definitions', () => {
  test('a timeout Node cannot hold, or a negative retry count, is refused when the tool is added', async () => {
    const { ToolBox } = await import('../../runtime/internal.js');
    const base = { name: 'slow', description: 'x', sideEffect: 'read' as const, parameters: { type: 'object' }, run: () => null };
    expect(() => new ToolBox([{ ...base, timeoutMs: Number.POSITIVE_INFINITY }])).toThrow(
      'Tool "slow" has timeoutMs Infinity: expected a number of milliseconds above 0 and at most 2147483647',
    );
    expect(() => new ToolBox([{ ...base, retries: -1 }])).toThrow('Tool "slow" has retries -1: expected a whole number, 0 or more.');
  });
});
