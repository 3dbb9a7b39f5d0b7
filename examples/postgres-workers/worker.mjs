// One worker process: takes the runs of one PostgreSQL journal that no live worker holds and
// drives them, until every run is finished. A run whose lease a killed worker left behind is
// taken once the lease expires; a run waiting on an operator's approval is left until it is
// decided (by another process), then continued.
// Usage: node worker.mjs URL SCHEMA NAME EFFECTS_FILE RUN_IDS_JSON
// Each run it starts to drive is written to EFFECTS_FILE's drives.jsonl beside it.
import { appendFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PostgresJournalStore, RunLeasedError, Runtime, TERMINAL_STATUSES } from 'modeltape/runtime';
import { agent, model, tools } from './parcel-desk.mjs';

const [url, schema, name, effects, runIds] = process.argv.slice(2);
const store = await PostgresJournalStore.open({ connection: url, schema, maxConnections: 2 });
const runtime = Runtime.build({
  store,
  providers: { openai: { api: 'openai-chat', fetch: model().fetch } },
  agents: [agent],
  tools: tools(name, effects),
  owner: name,
  lease: { ttlMs: 300, heartbeatMs: 75 },
  onPoint: (point, detail) => {
    if (point === 'AfterResumed') appendFileSync(join(dirname(effects), 'drives.jsonl'), `${JSON.stringify({ runId: detail.runId, worker: name })}\n`);
  },
});
for (;;) {
  let open = 0;
  for (const runId of JSON.parse(runIds)) {
    const run = await store.getRun(runId);
    if (TERMINAL_STATUSES.includes(run.status)) continue;
    open++;
    if (run.status === 'waiting' && (await store.approvals(runId)).some((approval) => approval.decision === 'pending')) continue;
    try {
      await runtime.resume(runId);
    } catch (error) {
      if (!(error instanceof RunLeasedError)) throw error;
    }
  }
  if (open === 0) break;
  await new Promise((resolve) => setTimeout(resolve, 20));
}
await store.close();
