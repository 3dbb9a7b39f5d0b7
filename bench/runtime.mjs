// The runtime's rows of `npm run bench`: a report, not a test.
//
//   appends   effects appended per second to a SQLite file journal (WAL), each effect a start and
//             a completion record: in batches of BENCH_BATCH effects (one transaction each), and one
//             record per append as the runtime writes while it runs (for comparison)
//   runtime   ctx.now() effects per second through the runtime itself (start, complete: two appends each)
//   replay    a strict replay of a 1,000-step run (1,000 model calls, 999 policy evaluations and
//             999 tool calls, the policy evaluated again as replay does): median and
//             max of BENCH_REPLAYS replays, each reading the journal from the file afresh
//
//   PostgreSQL the same rows on a PostgresJournalStore (MODELTAPE_PG_URL, or a server started from
//             this machine's PostgreSQL binaries; skipped without one), as ratios to SQLite in the
//             same run; lease take-over after expiry; runs a second by 1, 2 and 4 worker processes
//
// Targets (issue 5): ≥ 20,000 effects/s with batching; a 1,000-step strict replay in ≤ 100 ms.
// Env: BENCH_EFFECTS (default 50000), BENCH_BATCH (default 100), BENCH_STEPS (default 1000),
// BENCH_REPLAYS (default 7). Run after `npm run build`: node bench/runtime.mjs
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { PostgresJournalStore, Runtime, SqliteJournalStore, sequentialIds, steppingClock } from '../dist/runtime/index.js';
import { postgresBin, startLocalPostgres } from '../examples/postgres-workers/local-postgres.mjs';
import { writeResults } from './results.mjs';

const EFFECTS = Number(process.env.BENCH_EFFECTS ?? 50_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 100);
const STEPS = Number(process.env.BENCH_STEPS ?? 1000);
const REPLAYS = Number(process.env.BENCH_REPLAYS ?? 7);
const here = dirname(fileURLToPath(import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'modeltape-bench-runtime-'));

function effect(runId, index) {
  const key = `${index}.0.tool`;
  return [
    {
      id: `${runId}-${index}-s`,
      runId,
      effectKey: key,
      type: 'start',
      data: { tool: 'lookup_parcel', args: { parcel: `P-${index}` }, callId: `call_${index}` },
      at: index,
    },
    { id: `${runId}-${index}-c`, runId, effectKey: key, type: 'complete', data: { parcel: `P-${index}`, city: 'Lyon', eta: '2026-12-01' }, at: index },
  ];
}

// Where each measure's journal is: a SQLite file, or a schema of its own on the PostgreSQL server.
const sqlite = { name: 'SQLite', open: async (name) => SqliteJournalStore.open(join(dir, `${name}.sqlite`)) };
let schemas = 0;
const postgresOn = (url) => ({
  name: 'PostgreSQL',
  url,
  open: async (name) => PostgresJournalStore.open({ connection: url, schema: `bench_${process.pid}_${name.replace(/-/g, '_')}_${schemas++}` }),
});

async function appendBatched(on) {
  const store = await on.open('batched');
  const started = performance.now();
  for (let first = 0; first < EFFECTS; first += BATCH) {
    const records = [];
    for (let index = first; index < Math.min(EFFECTS, first + BATCH); index++) records.push(...effect('batched', index));
    await store.append(records);
  }
  const seconds = (performance.now() - started) / 1000;
  const stored = (await store.read('batched')).length;
  await store.close();
  if (stored !== EFFECTS * 2) throw new Error(`batched: ${stored} records stored, expected ${EFFECTS * 2}`);
  return EFFECTS / seconds;
}

async function appendOneByOne(on, count) {
  const store = await on.open('single');
  const started = performance.now();
  for (let index = 0; index < count; index++) for (const record of effect('single', index)) await store.append([record]);
  const seconds = (performance.now() - started) / 1000;
  const stored = (await store.read('single')).length;
  await store.close();
  if (stored !== count * 2) throw new Error(`one by one: ${stored} records stored, expected ${count * 2}`);
  return count / seconds;
}

/** A provider answering instantly: a tool call per step, then an answer (it never reads the request). */
function instantProvider(steps) {
  let calls = 0;
  const fetch = async () => {
    const step = calls++;
    const message =
      step < steps - 1
        ? {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: `call_${step}`, type: 'function', function: { name: 'tick', arguments: JSON.stringify({ n: step }) } }],
          }
        : { role: 'assistant', content: `done after ${steps} steps` };
    return new Response(
      JSON.stringify({
        id: `bench-${step}`,
        object: 'chat.completion',
        model: 'bench',
        choices: [{ index: 0, message, finish_reason: step < steps - 1 ? 'tool_calls' : 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }),
      {
        headers: { 'content-type': 'application/json' },
      },
    );
  };
  return { fetch, calls: () => calls };
}

const tick = {
  name: 'tick',
  description: 'Counts.',
  parameters: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
  sideEffect: 'read',
  run: (args) => ({ n: args.n, ok: true }),
};
const agent = { name: 'ticker', provider: 'bench', model: 'bench', system: 'Call tick until told to stop.', tools: ['tick'], maxSteps: STEPS + 1 };

function runtimeOn(store, provider) {
  return Runtime.build({
    store,
    providers: { bench: { api: 'openai-chat', baseUrl: 'http://bench.invalid/v1', fetch: provider.fetch } },
    agents: [agent],
    tools: [tick],
    clock: steppingClock(),
    ids: sequentialIds('run'),
    owner: 'bench',
  });
}

async function runtimeEffects(on, count) {
  const store = await on.open('runtime-effects');
  const clockTool = {
    name: 'clock',
    description: 'Reads the clock many times.',
    parameters: { type: 'object' },
    sideEffect: 'read',
    run: async (_args, context) => {
      for (let index = 0; index < count; index++) await context.now();
      return { read: count };
    },
  };
  let calls = 0;
  const fetch = async () => {
    const message =
      calls++ === 0
        ? { role: 'assistant', content: null, tool_calls: [{ id: 'call_clock', type: 'function', function: { name: 'clock', arguments: '{}' } }] }
        : { role: 'assistant', content: 'ok' };
    return new Response(
      JSON.stringify({
        id: 'b',
        object: 'chat.completion',
        model: 'bench',
        choices: [{ index: 0, message, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }),
      { headers: { 'content-type': 'application/json' } },
    );
  };
  const runtime = Runtime.build({
    store,
    providers: { bench: { api: 'openai-chat', fetch } },
    agents: [{ name: 'clocks', provider: 'bench', model: 'bench', system: 's', tools: ['clock'] }],
    tools: [clockTool],
    clock: steppingClock(),
    ids: sequentialIds('run'),
    owner: 'bench',
  });
  const started = performance.now();
  const outcome = await runtime.run('clocks', 'go');
  const seconds = (performance.now() - started) / 1000;
  await store.close();
  if (outcome.status !== 'completed' || outcome.effects.length !== count + 4)
    throw new Error(`runtime effects: ${outcome.status}, ${outcome.effects.length} effects`);
  return count / seconds;
}

async function strictReplay(on) {
  const provider = instantProvider(STEPS);
  const recorder = await on.open('replay');
  const reopen = recorder instanceof PostgresJournalStore ? () => recorder.connect() : async () => SqliteJournalStore.open(recorder.path);
  let started = performance.now();
  const first = await runtimeOn(recorder, provider).run('ticker', 'Start counting.');
  const recordMs = performance.now() - started;
  if (first.status !== 'completed' || provider.calls() !== STEPS) throw new Error(`the ${STEPS}-step run: ${first.status} after ${provider.calls()} calls`);
  const times = [];
  let records = 0;
  for (let round = 0; round < REPLAYS; round++) {
    const store = await reopen();
    const replayer = runtimeOn(store, instantProvider(0));
    started = performance.now();
    const replayed = await replayer.replay(first.runId, 'strict');
    times.push(performance.now() - started);
    records = (await store.read(first.runId)).length;
    await store.close();
    if (replayed.output !== first.output || replayed.backstopHits !== 0 || replayed.effects.length !== first.effects.length)
      throw new Error('the strict replay did not reproduce the run');
    if (provider.calls() !== STEPS) throw new Error('the strict replay called the provider');
  }
  await recorder.close();
  times.sort((a, b) => a - b);
  return { recordMs, median: times[Math.floor(times.length / 2)], max: times[times.length - 1], min: times[0], records, effects: first.effects.length };
}

// How long after a dead holder's lease expires another runtime, asking every POLL ms, holds it.
async function leaseTakeover(on, rounds = 20, poll = 5) {
  const store = await on.open('leases');
  const other = await store.connect();
  const delays = [];
  for (let round = 0; round < rounds; round++) {
    const runId = `lease-${round}`;
    const expiresAt = Date.now() + 50;
    await store.acquireLease(runId, 'dead-worker', expiresAt, Date.now());
    for (;;) {
      const { acquired } = await other.acquireLease(runId, 'live-worker', Date.now() + 30_000, Date.now());
      if (acquired) break;
      await new Promise((resolve) => setTimeout(resolve, poll));
    }
    delays.push(Date.now() - expiresAt);
  }
  await other.close();
  await store.close();
  delays.sort((a, b) => a - b);
  return { median: delays[Math.floor(delays.length / 2)], max: delays[delays.length - 1], poll };
}

// Runs a second of N worker processes on one journal complete, TOTAL runs split between them,
// timed from "go" (each process opened, connected and ready) to the last "done".
async function workerThroughput(on, processes, total) {
  const schema = `bench_${process.pid}_workers_${processes}_${schemas++}`;
  await (await PostgresJournalStore.open({ connection: on.url, schema })).close();
  const children = Array.from({ length: processes }, (_, worker) =>
    spawn(process.execPath, [join(here, 'postgres-runs-worker.mjs'), on.url, schema, String(worker), String(Math.ceil(total / processes))], {
      stdio: ['pipe', 'pipe', 'inherit'],
    }),
  );
  const said = (child, word) =>
    new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
        if (out.includes(`${word}\n`)) resolve();
      });
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`a bench worker exited ${code}`))));
    });
  await Promise.all(children.map((child) => said(child, 'ready')));
  const started = performance.now();
  const done = Promise.all(children.map((child) => said(child, 'done')));
  for (const child of children) child.stdin.write('go\n');
  await done;
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(children.map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on('exit', resolve)))));
  return (Math.ceil(total / processes) * processes) / seconds;
}

let server;
try {
  let pgUrl = process.env.MODELTAPE_PG_URL;
  if (!pgUrl && postgresBin()) {
    server = await startLocalPostgres(postgresBin());
    pgUrl = server.url;
  }
  const postgres = pgUrl ? postgresOn(pgUrl) : undefined;
  process.stderr.write('runtime bench: appends …');
  const batched = await appendBatched(sqlite);
  const single = await appendOneByOne(sqlite, Math.min(5000, EFFECTS));
  process.stderr.write(' runtime effects …');
  const through = await runtimeEffects(sqlite, 5000);
  process.stderr.write(` ${STEPS}-step replay …`);
  const replay = await strictReplay(sqlite);
  let pg;
  if (postgres !== undefined) {
    process.stderr.write(' PostgreSQL …');
    pg = {
      batched: await appendBatched(postgres),
      single: await appendOneByOne(postgres, Math.min(2000, EFFECTS)),
      through: await runtimeEffects(postgres, 2000),
      replay: await strictReplay(postgres),
      lease: await leaseTakeover(postgres),
      workers: [],
    };
    for (const processes of [1, 2, 4]) pg.workers.push([processes, await workerThroughput(postgres, processes, 240)]);
  }
  process.stderr.write('\n');
  const rate = (value) => Math.round(value).toLocaleString('en-US');
  const lines = [
    `SQLite file journal (WAL, synchronous NORMAL) in ${tmpdir()}`,
    '',
    '| measure | value | target |',
    '|:--|--:|:--|',
    `| effects appended per second, batches of ${BATCH} (${rate(EFFECTS)} effects, a start and a completion each) | ${rate(batched)} | ≥ 20,000: ${batched >= 20_000 ? 'met' : 'MISSED'} |`,
    `| effects appended per second, one record per append (as the runtime writes) | ${rate(single)} | |`,
    `| ctx.now() effects per second through the runtime | ${rate(through)} | |`,
    `| strict replay of a ${STEPS}-step run (${replay.effects} effects, ${replay.records} records), median of ${REPLAYS} (min / max ${replay.min.toFixed(1)} / ${replay.max.toFixed(1)} ms) | ${replay.median.toFixed(1)} ms | ≤ 100 ms: ${replay.median <= 100 ? 'met' : 'MISSED'} |`,
    `| recording that run live (instant provider) | ${replay.recordMs.toFixed(0)} ms | |`,
    '',
    ...(pg === undefined
      ? ['PostgreSQL rows skipped: no server (set MODELTAPE_PG_URL, or install PostgreSQL).', '']
      : [
          `### PostgreSQL (\`PostgresJournalStore\`, pg, one server on loopback, fsync off as in CI)`,
          '',
          '| measure | PostgreSQL | × SQLite (same run) |',
          '|:--|--:|--:|',
          `| effects appended per second, batches of ${BATCH} | ${rate(pg.batched)} | ${(pg.batched / batched).toFixed(2)} |`,
          `| effects appended per second, one record per append | ${rate(pg.single)} | ${(pg.single / single).toFixed(2)} |`,
          `| ctx.now() effects per second through the runtime | ${rate(pg.through)} | ${(pg.through / through).toFixed(2)} |`,
          `| strict replay of a ${STEPS}-step run, median of ${REPLAYS} (min / max ${pg.replay.min.toFixed(1)} / ${pg.replay.max.toFixed(1)} ms) | ${pg.replay.median.toFixed(1)} ms | ${(pg.replay.median / replay.median).toFixed(2)} |`,
          `| recording that run live | ${pg.replay.recordMs.toFixed(0)} ms | ${(pg.replay.recordMs / replay.recordMs).toFixed(2)} |`,
          `| lease take-over after the holder's expiry, asking every ${pg.lease.poll} ms (median / max of 20) | ${pg.lease.median} / ${pg.lease.max} ms | |`,
          ...pg.workers.map(
            ([processes, perSecond]) =>
              `| runs completed per second by ${processes} worker process${processes === 1 ? '' : 'es'} on one journal (3-step runs) | ${rate(perSecond)} | × 1 process: ${(perSecond / pg.workers[0][1]).toFixed(2)} |`,
          ),
          '',
        ]),
  ];
  writeResults('runtime', { title: 'The runtime journal', command: 'npm run bench:runtime', body: lines.join('\n') });
} finally {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}
