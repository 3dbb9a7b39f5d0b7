import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { FaultSchedule, Faulty, CrashAtWrite, SqliteJournalStore, type PointDetail, type RuntimePoint } from 'modeltape/runtime';
import { parcelRules, parcelRuntime } from '../support/parcel-agent.js';

/** Every point the loop passes live, as `<point> <tool|step>`, in order. */
function tracer(): { trace: string[]; onPoint: (point: RuntimePoint, detail: PointDetail) => void } {
  const trace: string[] = [];
  return {
    trace,
    onPoint: (point, detail) => {
      if (detail.live) trace.push(`${point}${detail.tool ? ` ${detail.tool}` : point === 'AfterStepStarted' ? ` ${detail.step}` : ''}`);
    },
  };
}

describe('runtime trajectories', () => {
  test('a tool succeeds', async () => {
    const { trace, onPoint } = tracer();
    const fake = new FakeProvider().willCallTool('lookup_parcel', { parcel: 'P-1' }, { id: 'call_1' }).endTurn().willSay('In Lyon.');
    const { runtime, runs } = parcelRuntime({ fake, onPoint });
    const outcome = await runtime.run('parcel-desk', 'Where is parcel P-1?');
    expect(outcome.status).toBe('completed');
    expect(runs.lookup).toHaveLength(1);
    expect(trace).toEqual([
      'AfterStepStarted 0',
      'AfterDecided',
      'AfterAllowed lookup_parcel',
      'AfterToolStarted lookup_parcel',
      'AfterToolEffect lookup_parcel',
      'AfterToolFinished lookup_parcel',
      'AfterStepStarted 1',
      'AfterDecided',
    ]);
  });

  test('a tool times out, then succeeds on retry: two attempts, one operation id, the retry budget used once', async () => {
    const { trace, onPoint } = tracer();
    const operations: string[] = [];
    let attempt = 0;
    const fake = new FakeProvider().willCallTool('lookup_parcel', { parcel: 'P-1' }, { id: 'call_1' }).endTurn().willSay('In Lyon.');
    const { runtime, store } = parcelRuntime({
      fake,
      onPoint,
      retryBudget: 3,
      toolOverrides: {
        lookup: {
          timeoutMs: 20,
          retries: 2,
          run: (_args, context) => {
            operations.push(context.operationId);
            return ++attempt === 1 ? new Promise(() => undefined) : { parcel: 'P-1', city: 'Lyon' };
          },
        },
      },
    });
    const outcome = await runtime.run('parcel-desk', 'Where is parcel P-1?');
    expect(outcome.status).toBe('completed');
    const lookup = outcome.effects.find((effect) => effect.key === '0.1.tool');
    expect(lookup).toEqual({ key: '0.1.tool', kind: 'tool', status: 'performed', attempts: 2 });
    expect(operations).toEqual(['run-1/0.1.tool', 'run-1/0.1.tool']);
    expect(outcome.retries).toEqual({ used: 1, budget: 3 });
    // One start, one completion: the retry is inside the effect.
    expect((await store.read(outcome.runId)).filter((record) => record.effectKey === '0.1.tool').map((record) => record.type)).toEqual(['start', 'complete']);
    expect(trace.slice(2, 6)).toEqual([
      'AfterAllowed lookup_parcel',
      'AfterToolStarted lookup_parcel',
      'AfterToolEffect lookup_parcel',
      'AfterToolFinished lookup_parcel',
    ]);
  });

  test('a tool that keeps timing out fails once its retries are spent, and the model is told', async () => {
    const fake = new FakeProvider().willCallTool('lookup_parcel', { parcel: 'P-1' }, { id: 'call_1' }).endTurn().willSay('The service is down.');
    const { runtime } = parcelRuntime({
      fake,
      retryBudget: 1,
      toolOverrides: { lookup: { timeoutMs: 10, retries: 5, run: () => new Promise(() => undefined) } },
    });
    const outcome = await runtime.run('parcel-desk', 'Where is parcel P-1?');
    expect(outcome.effects.find((effect) => effect.key === '0.1.tool')).toEqual({ key: '0.1.tool', kind: 'tool', status: 'failed', attempts: 2 });
    expect(outcome.retries).toEqual({ used: 1, budget: 1 });
    expect(fake.asked()[1]!.exchanges[0]!.result).toContain('ToolTimeoutError');
  });

  test('a run waits for approval', async () => {
    const { trace, onPoint } = tracer();
    const { runtime, runs } = parcelRuntime({
      fake: parcelRules(new FakeProvider()),
      onPoint,
      policy: (request) =>
        request.tool === 'send_message' ? { outcome: 'require_approval', kind: 'customer_contact', rule: 'review', reason: 'reviewed' } : { outcome: 'allow' },
    });
    const outcome = await runtime.run('parcel-desk', 'Where is parcel P-1?');
    expect(outcome.status).toBe('waiting');
    expect(runs.send).toEqual([]);
    expect(trace.slice(-3)).toEqual(['AfterToolFinished lookup_parcel', 'AfterStepStarted 1', 'AfterDecided']);
  });

  test('a run is cancelled', async () => {
    const controller = new AbortController();
    const { trace, onPoint } = tracer();
    const { runtime } = parcelRuntime({
      fake: parcelRules(new FakeProvider()),
      onPoint: (point, detail) => {
        onPoint(point, detail);
        if (point === 'AfterToolFinished') controller.abort('stop');
      },
    });
    const outcome = await runtime.run('parcel-desk', 'Where is parcel P-1?', { signal: controller.signal });
    expect(outcome.status).toBe('cancelled');
    expect(trace).toEqual([
      'AfterStepStarted 0',
      'AfterDecided',
      'AfterAllowed lookup_parcel',
      'AfterToolStarted lookup_parcel',
      'AfterToolEffect lookup_parcel',
      'AfterToolFinished lookup_parcel',
      'AfterStepStarted 1',
    ]);
  });

  test('a run resumes', async () => {
    const database = SqliteJournalStore.memory();
    const clock = { now: Date.UTC(2026, 0, 1) };
    const read = (): number => clock.now++;
    const first = parcelRuntime({
      store: new Faulty(database, FaultSchedule.explicit().at(9, CrashAtWrite)),
      fake: parcelRules(new FakeProvider()),
      clock: read,
      lease: { ttlMs: 100 },
    });
    await expect(first.runtime.run('parcel-desk', 'Where is parcel P-1?')).rejects.toThrow('Simulated crash at write #9');
    clock.now += 1000;
    const { trace, onPoint } = tracer();
    const second = parcelRuntime({ store: database.connect(), fake: first.fake, runs: first.runs, owner: 'runtime-b', clock: read, onPoint });
    const outcome = await second.runtime.resume('run-1');
    expect(outcome.status).toBe('completed');
    expect(outcome.effects.map((effect) => `${effect.key} ${effect.status}`).slice(0, 4)).toEqual([
      '0.0.model read_back',
      '0.1.policy read_back',
      '0.1.tool read_back',
      '1.0.model performed',
    ]);
    expect(trace[0]).toBe('AfterResumed');
    expect(trace.filter((entry) => entry.startsWith('AfterToolStarted'))).toEqual(['AfterToolStarted send_message']);
  });
});
