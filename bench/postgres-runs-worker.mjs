// One process of the runtime bench's worker rows: opens the PostgreSQL journal, says "ready", waits
// for "go" on stdin, then drives COUNT runs of a three-step agent (two tool calls, then an answer,
// from an instant provider) and says "done".
// Usage: node bench/postgres-runs-worker.mjs URL SCHEMA WORKER COUNT
import { PostgresJournalStore, Runtime } from '../dist/runtime/index.js';

const [url, schema, worker, count] = process.argv.slice(2);
const store = await PostgresJournalStore.open({ connection: url, schema, maxConnections: 2 });
let calls = 0;
const fetch = async () => {
  const step = calls++ % 3;
  const message =
    step < 2
      ? {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: `call_${step}`, type: 'function', function: { name: 'tick', arguments: JSON.stringify({ n: step }) } }],
        }
      : { role: 'assistant', content: 'done' };
  return new Response(
    JSON.stringify({
      id: 'b',
      object: 'chat.completion',
      model: 'bench',
      choices: [{ index: 0, message, finish_reason: step < 2 ? 'tool_calls' : 'stop' }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    }),
    { headers: { 'content-type': 'application/json' } },
  );
};
let ids = 0;
const runtime = Runtime.build({
  store,
  providers: { bench: { api: 'openai-chat', fetch } },
  agents: [{ name: 'ticker', provider: 'bench', model: 'bench', system: 'Tick twice.', tools: ['tick'] }],
  tools: [
    {
      name: 'tick',
      description: 'Counts.',
      parameters: { type: 'object', properties: { n: { type: 'integer' } } },
      sideEffect: 'read',
      run: (args) => ({ n: args.n }),
    },
  ],
  ids: () => `w${worker}-${ids++}`,
  owner: `worker-${worker}`,
});
process.stdout.write('ready\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
for (let index = 0; index < Number(count); index++) {
  const outcome = await runtime.run('ticker', 'go');
  if (outcome.status !== 'completed') throw new Error(`run ${outcome.runId}: ${outcome.status}`);
}
process.stdout.write('done\n');
await store.close();
process.exit(0);
