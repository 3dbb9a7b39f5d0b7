import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { sequentialIds, steppingClock, type Json } from 'modeltape/runtime';
import { crashAt, CRASH_POINTS, Leave, Reject, runScenario, ScenarioViolationError, type Scenario } from 'modeltape/testkit';
import { parcelAgent, parcelRules, parcelTools } from '../support/parcel-agent.js';

function parcelScenario(overrides: Partial<Scenario> = {}): Scenario & { runs: { lookup: Json[]; send: Json[] } } {
  const runs = { lookup: [] as Json[], send: [] as Json[] };
  return {
    tools: parcelTools(runs),
    agent: parcelAgent,
    model: parcelRules(new FakeProvider()),
    goal: 'Where is parcel P-1?',
    now: steppingClock(),
    newId: sequentialIds('run'),
    ...overrides,
    runs,
  };
}

describe('runScenario', () => {
  test('a send that crashes after its effect is not run again: the run waits on interrupted_side_effect, the operator approves, and it runs exactly once more', async () => {
    const scenario = parcelScenario();
    const result = await runScenario(scenario, crashAt('AfterToolEffect', { tool: 'send_message' }));
    result.assertHolds();
    expect(result.run?.status).toBe('completed');
    expect(result.run?.result).toBe('Parcel P-1 is in Lyon; I told the customer.');
    expect(result.crashes).toEqual([{ point: 'AfterToolEffect', runtime: 'runtime-1', step: 1, key: '1.1.tool', tool: 'send_message' }]);
    expect(
      result.calls
        .filter((call) => call.tool === 'send_message')
        .map(({ runtime, returned, approvedAtTheTime, operationId }) => ({ runtime, returned, approvedAtTheTime, operationId })),
    ).toEqual([
      { runtime: 'runtime-1', returned: false, approvedAtTheTime: false, operationId: 'run-1/1.1.tool' },
      { runtime: 'runtime-3', returned: true, approvedAtTheTime: true, operationId: 'run-1/1.1.tool' },
    ]);
    expect(scenario.runs.send).toHaveLength(2);
    expect(result.approvals).toMatchObject([{ approvalId: 'run-1/1.1.tool', kind: 'interrupted_side_effect', decision: 'consumed' }]);
    expect(result.resumes).toBe(2);
    // The order of what happened.
    const harness = result.events.filter((event) => !/ After(StepStarted|Decided|Allowed|ToolStarted|ToolFinished) /.test(`${event} `));
    expect(harness).toEqual([
      'runtime-1 AfterToolEffect lookup_parcel 0.1.tool',
      'runtime-1 AfterToolEffect send_message 1.1.tool',
      'crash at AfterToolEffect send_message 1.1.tool',
      'runtime-2 refused: leased to runtime-1; waiting 32 ms',
      'runtime-2 AfterResumed',
      'runtime-2 AfterInterrupted send_message 1.1.tool',
      'runtime-2 resumed: waiting',
      'runtime-2 paused: waiting on run-1/1.1.tool (interrupted_side_effect)',
      'operator approved run-1/1.1.tool',
      'runtime-3 AfterResumed',
      'runtime-3 AfterToolEffect send_message 1.1.tool',
      'runtime-3 resumed: completed',
    ]);
    // The agent was asked three times before the crash and once after (the last turn).
    expect(result.inputs).toHaveLength(3);
  });

  test('an approved re-run that is itself interrupted takes a new approval: one approval, one run', async () => {
    const scenario = parcelScenario();
    const result = await runScenario(scenario, crashAt('AfterToolStarted', { tool: 'lookup_parcel' }), crashAt('AfterToolEffect', { tool: 'lookup_parcel' }));
    result.assertHolds();
    expect(result.approvals.map(({ approvalId, decision }) => [approvalId, decision])).toEqual([
      ['run-1/0.1.tool', 'consumed'],
      ['run-1/0.1.tool#2', 'consumed'],
    ]);
    expect(
      result.calls
        .filter((call) => call.tool === 'lookup_parcel')
        .map(({ approvalsConsumed, approvedAtTheTime, returned }) => ({ approvalsConsumed, approvedAtTheTime, returned })),
    ).toEqual([
      { approvalsConsumed: 1, approvedAtTheTime: false, returned: false },
      { approvalsConsumed: 2, approvedAtTheTime: true, returned: true },
    ]);
    expect(result.run?.status).toBe('completed');
  });

  test('a reconcile hook that truthfully says not_applied lets the call run once more', async () => {
    // The crash comes after the start is journaled and before the tool is reached: it did not apply.
    const scenario = parcelScenario({ reconcile: { send_message: () => ({ status: 'not_applied' }) } });
    const result = await runScenario(scenario, crashAt('AfterToolStarted', { tool: 'send_message' }));
    result.assertHolds();
    expect(scenario.runs.send).toHaveLength(1);
    expect(result.approvals).toEqual([]);
  });

  test('two runs of one scenario journal identically', async () => {
    const first = await runScenario(parcelScenario(), crashAt('AfterToolEffect', { tool: 'send_message' }));
    const second = await runScenario(parcelScenario(), crashAt('AfterToolEffect', { tool: 'send_message' }));
    expect(first.journal.length).toBeGreaterThan(10);
    expect(JSON.stringify(second.journal)).toBe(JSON.stringify(first.journal));
    expect(second.events).toEqual(first.events);
  });

  for (const point of CRASH_POINTS) {
    test(`holds every invariant with a crash at ${point}`, async () => {
      // AfterResumed and AfterInterrupted need a resume, and an interruption, to come first.
      const crashes =
        point === 'AfterInterrupted' || point === 'AfterResumed'
          ? [crashAt('AfterToolEffect', { tool: 'send_message' }), crashAt(point)]
          : [crashAt(point, { occurrence: 2 })];
      const scenario = parcelScenario();
      const result = await runScenario(scenario, ...crashes);
      result.assertHolds();
      expect(result.crashes.map((crash) => crash.point)).toEqual(crashes.map((crash) => crash.point));
      expect(result.run?.status).toBe('completed');
      expect(scenario.runs.send.length).toBeGreaterThanOrEqual(1);
      expect(scenario.runs.send.length).toBeLessThanOrEqual(2);
    });
  }

  test('the operator can leave the approval: the run ends waiting, with nothing in flight and no lease', async () => {
    const scenario = parcelScenario({ operator: () => Leave });
    const result = await runScenario(scenario, crashAt('AfterToolEffect', { tool: 'send_message' }));
    result.assertHolds();
    expect(result.run?.status).toBe('waiting');
    expect(result.approvals.map((approval) => approval.decision)).toEqual(['pending']);
    expect(scenario.runs.send).toHaveLength(1);
  });

  test('the operator can reject: the send is reported failed to the model and never runs again', async () => {
    const scenario = parcelScenario({ operator: () => Reject, model: parcelRules(new FakeProvider()) });
    const result = await runScenario(scenario, crashAt('AfterToolEffect', { tool: 'send_message' }));
    result.assertHolds();
    expect(scenario.runs.send).toHaveLength(1);
    expect(result.journal.find((record) => record.effectKey === '1.1.tool' && record.type === 'fail')?.data).toMatchObject({
      name: 'InterruptedSideEffectRejected',
    });
  });

  test('catches a tool that is not idempotent run again without approval (a reconcile hook that lies)', async () => {
    const scenario = parcelScenario({ reconcile: { send_message: () => ({ status: 'not_applied' }) } });
    const result = await runScenario(scenario, crashAt('AfterToolEffect', { tool: 'send_message' }));
    expect(scenario.runs.send).toHaveLength(2);
    expect(result.violations).toEqual([
      '1. step 1.1.tool: send_message executed again on its own (execution #2, by runtime-2) with no approval to run it again (reconcile said not_applied, but the previous execution had returned)',
    ]);
    expect(() => result.assertHolds()).toThrow(ScenarioViolationError);
  });

  test('fails when a crash point is never reached', async () => {
    const result = await runScenario(parcelScenario(), crashAt('AfterInterrupted'));
    expect(result.violations).toEqual(['7. crash at AfterInterrupted was never reached: the run never passed that point']);
    expect(() => result.assertHolds()).toThrow(/broke 1 invariant:\n {2}✗ 7\. crash at AfterInterrupted was never reached/);
  });
});

describe('runScenario catches a loop that ignores an approved step', () => {
  test('an approval granted and never used is a violation', async () => {
    const { ForwardingJournalStore } = await import('modeltape/runtime');
    // A broken loop: it reads every approval as rejected, so the approved send never runs again.
    const ignoring = (store: import('modeltape/runtime').JournalStore) =>
      new (class extends ForwardingJournalStore {
        override async approvals(runId: string) {
          return (await super.approvals(runId)).map((approval) =>
            approval.decision === 'approved' ? { ...approval, decision: 'rejected' as const } : approval,
          );
        }
      })(store);
    const scenario = parcelScenario({ store: ignoring });
    const result = await runScenario(scenario, crashAt('AfterToolEffect', { tool: 'send_message' }));
    expect(result.run?.status).toBe('completed');
    expect(result.violations).toEqual([
      '2. step 1.1.tool: approval run-1/1.1.tool (interrupted_side_effect) was granted and the step never ran under it: the loop ignored an approved step',
    ]);
  });
});
