import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import {
  ForwardingJournalStore,
  PostgresJournalStore,
  sequentialIds,
  steppingClock,
  TERMINAL_STATUSES,
  type Json,
  type JournalStore,
  type Lease,
  type RunStatus,
} from 'modeltape/runtime';
import { CRASH_POINTS, crashAt, runScenario, type Crash, type OperatorAnswer } from 'modeltape/testkit';
import { parcelAgent, parcelRules, parcelTools } from '../support/parcel-agent.js';
import { describeOnPostgres, freshSchema } from '../support/postgres.js';

interface Observed {
  statuses: RunStatus[];
  /** Lease takes and releases, in the order they happened. */
  leases: Array<
    { kind: 'acquire'; owner: string; now: number; expiresAt: number; acquired: boolean; holder: Lease } | { kind: 'release'; owner: string; released: boolean }
  >;
}

/** A decorator that records every status written and every lease taken or dropped, across every runtime's handle. */
function observing(observed: Observed): (store: JournalStore) => JournalStore {
  return (store) =>
    new (class extends ForwardingJournalStore {
      override async updateRun(runId: string, update: { status: RunStatus; result: Json; updatedAt: number }): Promise<void> {
        await super.updateRun(runId, update);
        observed.statuses.push(update.status);
      }
      override async acquireLease(runId: string, owner: string, expiresAt: number, now: number): Promise<{ acquired: boolean; lease: Lease }> {
        const result = await super.acquireLease(runId, owner, expiresAt, now);
        observed.leases.push({ kind: 'acquire', owner, now, expiresAt, acquired: result.acquired, holder: result.lease });
        return result;
      }
      override async releaseLease(runId: string, owner: string): Promise<boolean> {
        const released = await super.releaseLease(runId, owner);
        observed.leases.push({ kind: 'release', owner, released });
        return released;
      }
    })(store);
}

const TOOL_POINTS = new Set(['AfterAllowed', 'AfterToolStarted', 'AfterToolEffect', 'AfterToolFinished', 'AfterInterrupted']);
const crashArbitrary = fc
  .record({
    point: fc.constantFrom(...CRASH_POINTS),
    occurrence: fc.integer({ min: 1, max: 2 }),
    tool: fc.constantFrom(undefined, 'lookup_parcel', 'send_message'),
  })
  .map((crash) => (TOOL_POINTS.has(crash.point) ? crash : { ...crash, tool: undefined }));

/**
 * The properties over `numRuns` generated scenarios, each on a fresh journal: a SQLite file of the
 * harness's own, or what `journal()` opens (a fresh opener per scenario).
 */
async function checkProperties(
  numRuns: number,
  journal?: () => () => Promise<JournalStore>,
): Promise<{ crashed: number; resumed: number; interrupted: number }> {
  let runs = 0;
  let crashed = 0;
  let resumed = 0;
  let interrupted = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(crashArbitrary, { minLength: 1, maxLength: 3 }),
      fc.constantFrom<OperatorAnswer>('approve', 'reject'),
      fc.boolean(),
      fc.boolean(),
      fc.boolean(),
      async (crashes, answer, reviewSends, reconcileSends, retryLookups) => {
        runs++;
        const observed: Observed = { statuses: [], leases: [] };
        const sends: Json[] = [];
        const result = await runScenario(
          {
            tools: parcelTools(
              { lookup: [], send: sends },
              retryLookups
                ? {
                    lookup: {
                      retries: 1,
                      run: (_args, context) => {
                        if (context.attempt === 1) throw Object.assign(new Error('hiccup'), { retryable: true });
                        return { parcel: 'P-1', city: 'Lyon' };
                      },
                    },
                  }
                : {},
            ),
            agent: parcelAgent,
            model: parcelRules(new FakeProvider()),
            goal: 'Where is parcel P-1?',
            now: steppingClock(),
            newId: sequentialIds('run'),
            operator: () => answer,
            store: observing(observed),
            ...(journal === undefined ? {} : { journal: journal() }),
            ...(reviewSends
              ? {
                  policy: (request) =>
                    request.tool === 'send_message'
                      ? { outcome: 'require_approval', kind: 'customer_contact', rule: 'review', reason: 'reviewed' }
                      : { outcome: 'allow' },
                }
              : {}),
            ...(reconcileSends ? { reconcile: { send_message: () => ({ status: 'applied', result: { sent: true, reconciled: true } }) } } : {}),
          },
          ...crashes.map((crash): Crash => crashAt(crash.point, { occurrence: crash.occurrence, ...(crash.tool ? { tool: crash.tool } : {}) })),
        );
        if (result.crashes.length > 0) crashed++;
        if (result.resumes > 0) resumed++;
        if (result.approvals.some((approval) => approval.kind === 'interrupted_side_effect')) interrupted++;
        // Invariants 1–6 hold whatever the schedule (7, crashes never reached, depends on it).
        expect(result.violations.filter((violation) => !violation.startsWith('7.'))).toEqual([]);
        expect(result.run !== undefined && TERMINAL_STATUSES.includes(result.run.status)).toBe(true);

        // A terminal state never returns to running (or waiting).
        const firstTerminal = observed.statuses.findIndex((status) => TERMINAL_STATUSES.includes(status));
        if (firstTerminal >= 0) expect(observed.statuses.slice(firstTerminal).every((status) => status === observed.statuses[firstTerminal])).toBe(true);

        // One lease owner per epoch: nobody takes a lease another holds before it expires or is released.
        let holder: { owner: string; expiresAt: number } | undefined;
        for (const event of observed.leases) {
          if (event.kind === 'release') {
            if (event.released) {
              expect(holder?.owner).toBe(event.owner);
              holder = undefined;
            }
            continue;
          }
          if (!event.acquired) {
            expect(holder?.owner).toBe(event.holder.owner);
            continue;
          }
          if (holder !== undefined && holder.owner !== event.owner) expect(event.now).toBeGreaterThanOrEqual(holder.expiresAt);
          holder = { owner: event.owner, expiresAt: event.expiresAt };
        }
        expect(observed.leases.filter((event) => event.kind === 'acquire' && event.acquired).length).toBeGreaterThan(0);

        // No logical operation has two committed successes (nor a success and a failure).
        const ends = new Map<string, number>();
        for (const record of result.journal) if (record.type !== 'start') ends.set(record.effectKey, (ends.get(record.effectKey) ?? 0) + 1);
        expect([...ends.values()].every((count) => count === 1)).toBe(true);
      },
    ),
    { numRuns, seed: 20261130 },
  );
  expect(runs).toBe(numRuns);
  return { crashed, resumed, interrupted };
}

describe('properties over generated runs and crash schedules', () => {
  test('a terminal state never returns to running, one lease owner per epoch, no operation has two committed successes, and every invariant holds', async () => {
    const { crashed, resumed, interrupted } = await checkProperties(60);
    // The schedules exercised what they are for: crashes, resumes, interruptions.
    expect(crashed).toBeGreaterThan(20);
    expect(resumed).toBeGreaterThan(10);
    expect(interrupted).toBeGreaterThan(2);
    // Hundreds of generated runs: 12 s alone here, 20 s beside another worker on 2 cores.
  }, 120_000);
});

// The same properties with every scenario's journal on PostgreSQL, each in a schema of its own.

describeOnPostgres('properties over generated runs and crash schedules, on PostgreSQL', (server) => {
  test('hold with the journal on PostgreSQL', async () => {
    const { crashed, resumed } = await checkProperties(30, () => {
      const schema = freshSchema('properties');
      return () => PostgresJournalStore.open({ connection: server().url, schema, maxConnections: 2 });
    });
    expect(crashed).toBeGreaterThan(8);
    expect(resumed).toBeGreaterThan(4);
  }, 120_000);
});
