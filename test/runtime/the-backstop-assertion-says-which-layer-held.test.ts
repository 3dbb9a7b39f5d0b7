import { describe, expect, test } from 'vitest';
import { assertReplayWasNotBackstopped, BackstopAssertionError, Runtime, type StoredRecord } from 'modeltape/runtime';
import { parcelAgent, parcelRuntime, parcelTools } from '../support/parcel-agent.js';

function startsPerEffect(records: readonly StoredRecord[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const record of records) if (record.type === 'start') counts.set(record.effectKey, (counts.get(record.effectKey) ?? 0) + 1);
  return counts;
}

describe('assertReplayWasNotBackstopped', () => {
  test('fails when replay ran effects and only the unique index stopped the duplicates, though every outcome check passes', async () => {
    const { runtime, fake, runs, store } = parcelRuntime();
    const first = await runtime.run('parcel-desk', 'Where is parcel P-1?');
    const callsBefore = fake.calls().length;
    const journalBefore = await store.read(first.runId);

    // The test-only seam: replay performs effects instead of reading them back.
    const leaning = Runtime.build({
      store,
      providers: { openai: { api: 'openai-chat', fetch: fake.fetch } },
      agents: [parcelAgent],
      tools: parcelTools(runs),
      owner: 'runtime-without-read-back',
      unsafeTestSeams: { disableReplayReadBack: true },
    });
    const replayed = await leaning.replay(first.runId, 'strict');

    // Every outcome-shaped check passes: same answer, the model not asked, no tool run twice, no duplicate in the journal.
    expect(replayed.output).toBe(first.output);
    expect(replayed.status).toBe('completed');
    expect(fake.calls()).toHaveLength(callsBefore);
    expect(runs.lookup).toHaveLength(1);
    expect(runs.send).toHaveLength(1);
    const journalAfter = await store.read(first.runId);
    expect(journalAfter).toEqual(journalBefore);
    expect([...startsPerEffect(journalAfter).values()].every((count) => count === 1)).toBe(true);

    // Only the backstop held, and the assertion says so.
    expect(replayed.backstopHits).toBe(7);
    expect(replayed.effects.filter((effect) => effect.status === 'backstopped').map((effect) => effect.key)).toEqual([
      '0.0.model',
      '0.1.policy',
      '0.1.tool',
      '1.0.model',
      '1.1.policy',
      '1.1.tool',
      '2.0.model',
    ]);
    let thrown: unknown;
    try {
      assertReplayWasNotBackstopped(replayed, 'replay without read-back');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(BackstopAssertionError);
    expect((thrown as Error).message).toContain(
      'replay without read-back: the strict replay of run run-1 leaned on the backstop: the unique index rejected 7 second starts of an effect (0.0.model, 0.1.policy, 0.1.tool, 1.0.model, 1.1.policy, 1.1.tool, 2.0.model)',
    );

    // The real replay reads back and passes.
    const honest = await runtime.replay(first.runId, 'strict');
    expect(() => assertReplayWasNotBackstopped(honest, 'replay with read-back')).not.toThrow();
    expect(honest.backstopHits).toBe(0);
  });

  test('fails on a first run and on a replay that saw no effect, which prove nothing', async () => {
    const { runtime } = parcelRuntime();
    const first = await runtime.run('parcel-desk', 'Where is parcel P-1?');
    expect(() => assertReplayWasNotBackstopped(first, 'first run')).toThrow(/is a first run, not a replay/);
    const replayed = await runtime.replay(first.runId, 'strict');
    expect(() => assertReplayWasNotBackstopped({ ...replayed, effects: [] }, 'nothing')).toThrow(/saw no effect at all, so it proves nothing/);
  });

  test('takes the outcome first, like every assertion, and says so when given the label first (the order of earlier versions)', () => {
    expect(() => (assertReplayWasNotBackstopped as (...args: unknown[]) => void)('replay', { mode: 'strict' })).toThrow(
      'assertReplayWasNotBackstopped(outcome, label?) takes the replay\'s outcome first; it was given the string "replay". Earlier versions took the label first: swap the two arguments.',
    );
    expect(() => assertReplayWasNotBackstopped({ mode: 'run', runId: 'run-7', effects: [], backstopHits: 0 } as never)).toThrow(
      /^run run-7: outcome of run run-7 is a first run, not a replay/,
    );
  });
});
