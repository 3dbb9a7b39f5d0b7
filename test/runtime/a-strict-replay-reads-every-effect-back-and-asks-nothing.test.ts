import { describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { assertReplayWasNotBackstopped, isUlid, SqliteJournalStore } from 'modeltape/runtime';
import { parcelRuntime, scriptParcel } from '../support/parcel-agent.js';

describe('a strict replay', () => {
  test('gives the identical outcome while the fake is not called and no tool runs again', async () => {
    const { runtime, fake, runs, store } = parcelRuntime();
    const first = await runtime.run('parcel-desk', 'Where is parcel P-1?');
    expect(first.status).toBe('completed');
    expect(first.output).toBe('Parcel P-1 is in Lyon; I told the customer.');
    // A tool's own effects (ctx.newId(), ctx.now()) are keyed under it, and settle before it does.
    expect(first.effects.map((effect) => `${effect.key} ${effect.status}`)).toEqual([
      '0.0.model performed',
      '0.1.policy performed',
      '0.1.tool performed',
      '1.0.model performed',
      '1.1.policy performed',
      '1.1.tool/0.id performed',
      '1.1.tool/1.now performed',
      '1.1.tool performed',
      '2.0.model performed',
    ]);
    const callsBefore = fake.calls().length;
    expect(callsBefore).toBe(3);
    expect(runs.send).toHaveLength(1);
    fake.assertConsumed();

    const replayed = await runtime.replay(first.runId, 'strict');
    expect(replayed.output).toEqual(first.output);
    expect(replayed.status).toBe('completed');
    expect(fake.calls()).toHaveLength(callsBefore);
    expect(runs.lookup).toHaveLength(1);
    expect(runs.send).toHaveLength(1);
    // Nested effects of a tool read back with the tool: the replay asked for the three model turns, two policy evaluations and two tools.
    expect(replayed.effects.map((effect) => `${effect.key} ${effect.status}`)).toEqual([
      '0.0.model read_back',
      '0.1.policy read_back',
      '0.1.tool read_back',
      '1.0.model read_back',
      '1.1.policy read_back',
      '1.1.tool read_back',
      '2.0.model read_back',
    ]);
    expect(replayed.backstopHits).toBe(0);
    assertReplayWasNotBackstopped(replayed, 'strict replay of the parcel run');

    // A strict replay writes nothing.
    const journal = await store.read(first.runId);
    expect(journal).toHaveLength(18);
    expect(journal.every((record) => isUlid(record.id))).toBe(true);
    expect((await runtime.replay(first.runId, 'strict')).output).toEqual(first.output);
    expect(await store.read(first.runId)).toEqual(journal);
    expect(await store.getLease(first.runId)).toBeUndefined();
  });

  test('journals byte-identically when the same script runs with the same clock and ids', async () => {
    const journals: string[] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      const { runtime, store } = parcelRuntime({ fake: scriptParcel(new FakeProvider()) });
      const outcome = await runtime.run('parcel-desk', 'Where is parcel P-1?');
      journals.push(JSON.stringify({ run: await store.getRun(outcome.runId), records: await store.read(outcome.runId) }));
    }
    expect(journals[0]!.length).toBeGreaterThan(2000);
    expect(journals[1]).toBe(journals[0]);
  });

  test('is read from a journal file by a runtime that did not record it', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'modeltape-runtime-'));
    try {
      const path = join(dir, 'journal.sqlite');
      const recorder = parcelRuntime({ store: SqliteJournalStore.open(path) });
      const first = await recorder.runtime.run('parcel-desk', 'Where is parcel P-1?');
      await recorder.store.close();

      const unscripted = new FakeProvider();
      const reader = parcelRuntime({ store: SqliteJournalStore.open(path), fake: unscripted, owner: 'runtime-b' });
      const replayed = await reader.runtime.replay(first.runId, 'strict');
      expect(replayed.output).toBe(first.output);
      expect(unscripted.calls()).toHaveLength(0);
      expect(reader.runs.send).toHaveLength(0);
      await reader.store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
