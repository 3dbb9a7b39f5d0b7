import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { ForwardingJournalStore, sequentialIds, steppingClock, type Json, type JournalStore, type Policy, type RunStatus, type Tool } from 'modeltape/runtime';
import { checkPolicy, checkPolicyBattery, crashAt, fuzz, FuzzCheckError, never, PolicyDisagreementError, recheck, runScenario } from 'modeltape/testkit';
import { parcelAgent, parcelRules, parcelRuntime, parcelTools } from '../support/parcel-agent.js';

describe('the kit at its edges', () => {
  test('a retry inside one execution is not taken for a second execution', async () => {
    const runs = { lookup: [] as Json[], send: [] as Json[] };
    const tools = parcelTools(runs, {
      lookup: {
        retries: 1,
        run: (_args, context) => {
          if (context.attempt === 1) throw Object.assign(new Error('the tracking service hiccuped'), { retryable: true });
          return { parcel: 'P-1', city: 'Lyon' };
        },
      },
    });
    const result = await runScenario(
      { tools, agent: parcelAgent, model: parcelRules(new FakeProvider()), goal: 'Where is parcel P-1?' },
      crashAt('AfterToolEffect', { tool: 'send_message' }),
    );
    result.assertHolds();
    expect(result.calls.filter((call) => call.tool === 'lookup_parcel').map(({ retries, effectDone }) => ({ retries, effectDone }))).toEqual([
      { retries: 1, effectDone: true },
    ]);
  });

  test('invariant 5 names a run left interrupted, and one marked interrupted with its lease still held as left running', async () => {
    // Broken stores: one records the run's end as an interruption; the other also never drops a lease.
    const interrupting = (store: JournalStore): JournalStore =>
      new (class extends ForwardingJournalStore {
        override updateRun(runId: string, update: { status: RunStatus; result: Json; updatedAt: number }): Promise<void> {
          return super.updateRun(
            runId,
            update.status === 'completed' ? { ...update, status: 'interrupted', result: { code: 'journal_full', message: 'the disk is full' } } : update,
          );
        }
      })(store);
    const holding = (store: JournalStore): JournalStore =>
      new (class extends ForwardingJournalStore {
        override async releaseLease(): Promise<boolean> {
          return false;
        }
      })(interrupting(store));
    const scenario = (store: (store: JournalStore) => JournalStore) => ({
      tools: parcelTools({ lookup: [], send: [] }),
      agent: parcelAgent,
      model: parcelRules(new FakeProvider()),
      goal: 'Where is parcel P-1?',
      now: steppingClock(),
      newId: sequentialIds('run'),
      store,
    });
    const released = await runScenario(scenario(interrupting));
    expect(released.run?.status).toBe('interrupted');
    expect(released.violations).toEqual(['5. run run-1 was left interrupted by a store error (journal_full) and never resumed to its end']);
    const held = await runScenario(scenario(holding));
    expect(held.violations).toEqual([
      expect.stringMatching(
        /^5\. run run-1 was left running: it is marked interrupted \(journal_full\) while its lease is still held \(runtime-1 until \d+\)$/,
      ),
      expect.stringMatching(/^6\. a lease was left on run run-1: runtime-1 until \d+$/),
    ]);
  });

  test('crashAt names an unknown tool, and a tool on a point that has none', async () => {
    const scenario = {
      tools: parcelTools({ lookup: [], send: [] }),
      agent: parcelAgent,
      model: parcelRules(new FakeProvider()),
      goal: 'x',
      now: steppingClock(),
      newId: sequentialIds('run'),
    };
    await expect(runScenario(scenario, crashAt('AfterToolEffect', { tool: 'send_mesage' }))).rejects.toThrow(
      `crashAt('AfterToolEffect', { tool: 'send_mesage' }): the scenario has no tool named "send_mesage" (tools: lookup_parcel, send_message).`,
    );
    await expect(runScenario(scenario, crashAt('AfterDecided', { tool: 'send_message' }))).rejects.toThrow('AfterDecided is not about a tool call');
    await expect(runScenario({ ...scenario, reconcile: { sendMessage: () => ({ status: 'not_applied' }) } })).rejects.toThrow(
      'scenario.reconcile names "sendMessage", which is not one of the scenario\'s tools',
    );
  });

  test('the policy checks refuse what the runtime refuses: a reserved kind, a blank reason, no answer', () => {
    const tools: Tool[] = parcelTools({ lookup: [], send: [] });
    const reserved: Policy = () => ({ outcome: 'require_approval', kind: 'interrupted_side_effect', rule: 'r', reason: 'sneaky' });
    const report = checkPolicy.report(reserved, tools, [
      { name: 'a lookup', tool: 'lookup_parcel', args: { parcel: 'P-1' }, want: 'require_approval', kind: 'interrupted_side_effect' },
    ]);
    expect(report.disagreements).toMatchObject([
      { got: 'not a decision (the runtime fails the run)', reason: expect.stringContaining('which the runtime keeps for calls it found interrupted') },
    ]);
    expect(checkPolicyBattery.report(reserved, tools).checks.find((check) => check.name === 'total')?.passed).toBe(false);
    const blank: Policy = () => ({ outcome: 'deny', rule: 'r', reason: ' ' });
    expect(checkPolicy.report(blank, tools, [{ name: 'blank', tool: 'lookup_parcel', args: { parcel: 'P-1' }, want: 'deny' }]).disagreements).toHaveLength(1);
    expect(() => never((() => undefined) as unknown as Policy, tools, 'remote_mutation', 'allow')).toThrow(PolicyDisagreementError);
    expect(() => never((() => undefined) as unknown as Policy, tools, 'remote_mutation', 'allow')).toThrow(
      /^never\(remote_mutation, allow\): on send_message\(.*\) the policy it answered undefined, which is not a decision; the runtime would fail the run\.$/,
    );
    expect(() => checkPolicy(blank, tools, [{ name: 'kind on a deny', tool: 'lookup_parcel', args: { parcel: 'P-1' }, want: 'deny', kind: 'review' }])).toThrow(
      'Case "kind on a deny" gives an approval kind ("review") but wants deny: a kind only applies to require_approval.',
    );
  });

  test('recheck compares answers as the runtime keeps them', async () => {
    const policy: Policy = (request) => ({ outcome: 'allow', rule: request.sideEffect === 'read' ? 'reads' : undefined });
    const { runtime, store } = parcelRuntime({ fake: parcelRules(new FakeProvider()), policy });
    const outcome = await runtime.run('parcel-desk', 'Where is parcel P-1?');
    await expect(recheck(store, outcome.runId, policy)).resolves.toHaveLength(2);
  });

  test('fuzz.check holds a tool to its own timeout, and says why it checked nothing', async () => {
    const hangs: Tool = {
      name: 'hangs',
      description: 'Never answers.',
      sideEffect: 'read',
      timeoutMs: 30,
      parameters: { type: 'object', properties: { n: { type: 'integer', minimum: 0, maximum: 3 } } },
      run: () => new Promise(() => undefined),
    };
    const report = await fuzz.check([hangs], { count: 2 });
    expect(report.problems).toHaveLength(2);
    expect(report.problems[0]).toMatch(/^hangs: did not finish within its timeoutMs \(30 ms\) on valid arguments /);
    const patterned: Tool = { ...hangs, name: 'patterned', parameters: { type: 'object', properties: { code: { type: 'string', pattern: '^[A-Z]+$' } } } };
    const nothing = await fuzz.check([patterned], { run: false });
    expect(() => nothing.assertHolds()).toThrow(FuzzCheckError);
    expect(() => nothing.assertHolds()).toThrow(/checked nothing\.\n {2}✗ patterned: The kit cannot generate values for "pattern"/);
  });

  test('fuzz.valid keeps to maxDepth on a recursive schema, and says so when a schema has no finite value', () => {
    const list = {
      type: 'object',
      properties: { value: { type: 'integer', minimum: 0, maximum: 9 }, next: { anyOf: [{ type: 'null' }, { $ref: '#' }] } },
      required: ['value', 'next'],
    };
    const depth = (value: unknown): number => (value !== null && typeof value === 'object' ? 1 + Math.max(0, ...Object.values(value as object).map(depth)) : 0);
    const values = fuzz.valid(list, { maxDepth: 3, count: 20 });
    expect(values.length).toBeGreaterThan(3);
    expect(Math.max(...values.map(depth))).toBeLessThanOrEqual(4);
    expect(() => fuzz.valid({ type: 'object', properties: { self: { $ref: '#' } }, required: ['self'] })).toThrow(
      'The kit could not generate a single value the schema accepts',
    );
  });
});
