import { expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { FaultSchedule, Faulty, PostgresJournalStore, sequentialIds, steppingClock, type Json } from 'modeltape/runtime';
import { crashAt, CRASH_POINTS, runScenario, type Scenario } from 'modeltape/testkit';
import { parcelAgent, parcelRules, parcelTools } from '../../support/parcel-agent.js';
import { describeOnPostgres, freshSchema } from '../../support/postgres.js';

// The crash harness with its journal on PostgreSQL: each runtime it starts after a crash opens its
// own pool, as a new process would, and every invariant holds at every crash point. The journal
// it leaves is the one the SQLite store leaves, record for record.

describeOnPostgres('the crash harness on PostgreSQL', (server) => {
  function scenario(onPostgres: boolean, overrides: Partial<Scenario> = {}): Scenario & { runs: { lookup: Json[]; send: Json[] } } {
    const runs = { lookup: [] as Json[], send: [] as Json[] };
    const schema = freshSchema('crash');
    return {
      tools: parcelTools(runs),
      agent: parcelAgent,
      model: parcelRules(new FakeProvider()),
      goal: 'Where is parcel P-1?',
      now: steppingClock(),
      newId: sequentialIds('run'),
      ...(onPostgres ? { journal: () => PostgresJournalStore.open({ connection: server().url, schema, maxConnections: 2 }) } : {}),
      ...overrides,
      runs,
    };
  }

  for (const point of CRASH_POINTS) {
    test(`holds every invariant with a crash at ${point}, journaling as SQLite does`, async () => {
      const crashes =
        point === 'AfterInterrupted' || point === 'AfterResumed'
          ? [crashAt('AfterToolEffect', { tool: 'send_message' }), crashAt(point)]
          : [crashAt(point, { occurrence: 2 })];
      const onPostgres = scenario(true);
      const result = await runScenario(onPostgres, ...crashes);
      result.assertHolds();
      expect(result.run?.status).toBe('completed');
      expect(onPostgres.runs.send.length).toBeGreaterThanOrEqual(1);
      expect(onPostgres.runs.send.length).toBeLessThanOrEqual(2);
      const onSqlite = await runScenario(scenario(false), ...crashes);
      expect(JSON.stringify(result.journal)).toBe(JSON.stringify(onSqlite.journal));
      expect(result.events).toEqual(onSqlite.events);
    });
  }

  test('with store faults on a seeded schedule (Faulty around each PostgreSQL handle), every invariant still holds', async () => {
    for (const seed of [1, 2, 3]) {
      const faulty = scenario(true, { store: (store) => new Faulty(store, FaultSchedule.seeded(seed, { rate: 0.2 })) });
      const result = await runScenario(faulty, crashAt('AfterToolEffect', { tool: 'send_message' }));
      result.assertHolds();
    }
  }, 60_000);
});
