// A process appending to one PostgreSQL journal, for the test of writers in several processes.
// Usage: node postgres-append-worker.mjs URL SCHEMA WORKER BATCHES
// Prints one JSON line: what its race for one effect's start and for one lease came to.
import { PostgresJournalStore } from 'modeltape/runtime';

const [url, schema, worker, batches] = process.argv.slice(2);
const store = await PostgresJournalStore.open({ connection: url, schema, maxConnections: 2 });
// Every worker starts one effect of a run, each under its own record id: one start lands.
const [raced] = await store.append([
  { id: `w${worker}-race`, runId: 'race-run', effectKey: '0.0.tool', type: 'start', data: { worker: Number(worker) }, at: 0 },
]);
const lease = await store.acquireLease('lease-run', `worker-${worker}`, Number.MAX_SAFE_INTEGER, 0);
for (let batch = 0; batch < Number(batches); batch++) {
  const key = `${batch}.${worker}.tool`;
  await store.append([
    { id: `w${worker}-${batch}-start`, runId: 'shared-run', effectKey: key, type: 'start', data: { worker: Number(worker), batch }, at: batch },
    { id: `w${worker}-${batch}-complete`, runId: 'shared-run', effectKey: key, type: 'complete', data: { ok: true }, at: batch },
  ]);
  // A second start of one of this worker's effects, under another id: the backstop must refuse it.
  if (batch % 25 === 0) await store.append([{ id: `w${worker}-${batch}-again`, runId: 'shared-run', effectKey: key, type: 'start', data: null, at: batch }]);
}
await store.close();
process.stdout.write(`${JSON.stringify({ raced, acquired: lease.acquired })}\n`);
