// A process appending to one journal file, for the test of writers in several processes.
// Usage: node journal-append-worker.mjs FILE WORKER BATCHES
import { SqliteJournalStore } from 'modeltape/runtime';

const [file, worker, batches] = process.argv.slice(2);
const store = SqliteJournalStore.open(file);
for (let batch = 0; batch < Number(batches); batch++) {
  const key = `${batch}.${worker}.tool`;
  await store.append([
    { id: `w${worker}-${batch}-start`, runId: 'shared-run', effectKey: key, type: 'start', data: { worker: Number(worker), batch }, at: batch },
    { id: `w${worker}-${batch}-complete`, runId: 'shared-run', effectKey: key, type: 'complete', data: { ok: true }, at: batch },
  ]);
  // A second start of one of this worker's effects, under another id: the backstop must refuse it.
  if (batch % 50 === 0) await store.append([{ id: `w${worker}-${batch}-again`, runId: 'shared-run', effectKey: key, type: 'start', data: null, at: batch }]);
}
await store.close();
