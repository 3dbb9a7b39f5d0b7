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
// Targets (issue 5): ≥ 20,000 effects/s with batching; a 1,000-step strict replay in ≤ 100 ms.
// Env: BENCH_EFFECTS (default 50000), BENCH_BATCH (default 100), BENCH_STEPS (default 1000),
// BENCH_REPLAYS (default 7). Run after `npm run build`: node bench/runtime.mjs
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Runtime, SqliteJournalStore, sequentialIds, steppingClock } from '../dist/runtime/index.js';

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

async function appendBatched() {
  const store = SqliteJournalStore.open(join(dir, 'batched.sqlite'));
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

async function appendOneByOne(count) {
  const store = SqliteJournalStore.open(join(dir, 'single.sqlite'));
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

async function runtimeEffects(count) {
  const store = SqliteJournalStore.open(join(dir, 'runtime-effects.sqlite'));
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

async function strictReplay() {
  const file = join(dir, 'replay.sqlite');
  const provider = instantProvider(STEPS);
  const recorder = SqliteJournalStore.open(file);
  let started = performance.now();
  const first = await runtimeOn(recorder, provider).run('ticker', 'Start counting.');
  const recordMs = performance.now() - started;
  await recorder.close();
  if (first.status !== 'completed' || provider.calls() !== STEPS) throw new Error(`the ${STEPS}-step run: ${first.status} after ${provider.calls()} calls`);
  const times = [];
  let records = 0;
  for (let round = 0; round < REPLAYS; round++) {
    const store = SqliteJournalStore.open(file);
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
  times.sort((a, b) => a - b);
  return { recordMs, median: times[Math.floor(times.length / 2)], max: times[times.length - 1], min: times[0], records, effects: first.effects.length };
}

try {
  process.stderr.write('runtime bench: appends …');
  const batched = await appendBatched();
  const single = await appendOneByOne(Math.min(5000, EFFECTS));
  process.stderr.write(' runtime effects …');
  const through = await runtimeEffects(5000);
  process.stderr.write(` ${STEPS}-step replay …\n`);
  const replay = await strictReplay();
  const rate = (value) => Math.round(value).toLocaleString('en-US');
  const lines = [
    '## Runtime journal',
    '',
    `${new Date().toISOString().replace(/\.\d+Z$/, 'Z')} · Node ${process.version} · SQLite file journal (WAL, synchronous NORMAL) in ${tmpdir()}`,
    '',
    '| measure | value | target |',
    '|:--|--:|:--|',
    `| effects appended per second, batches of ${BATCH} (${rate(EFFECTS)} effects, a start and a completion each) | ${rate(batched)} | ≥ 20,000: ${batched >= 20_000 ? 'met' : 'MISSED'} |`,
    `| effects appended per second, one record per append (as the runtime writes) | ${rate(single)} | |`,
    `| ctx.now() effects per second through the runtime | ${rate(through)} | |`,
    `| strict replay of a ${STEPS}-step run (${replay.effects} effects, ${replay.records} records), median of ${REPLAYS} (min / max ${replay.min.toFixed(1)} / ${replay.max.toFixed(1)} ms) | ${replay.median.toFixed(1)} ms | ≤ 100 ms: ${replay.median <= 100 ? 'met' : 'MISSED'} |`,
    `| recording that run live (instant provider) | ${replay.recordMs.toFixed(0)} ms | |`,
    '',
  ];
  const text = lines.join('\n');
  mkdirSync(join(here, 'results'), { recursive: true });
  writeFileSync(join(here, 'results', 'runtime.md'), text);
  process.stdout.write(`${text}\nWritten to bench/results/runtime.md\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
