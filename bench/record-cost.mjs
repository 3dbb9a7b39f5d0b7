// What record mode costs per exchange, in one process (no sockets): the work the proxy does in
// ResponseRecording (as the response streams through) and ExchangeRecorder (after the client has
// its response), through those very classes, with the tape writer's batching.
//
//   npm run build && node --expose-gc bench/record-cost.mjs [--iterations N] [--rounds R] [--batch B] [--payload json|sse] [--no-steps] [DIST ...]
//
// DIST: one or more builds (a `dist/` folder; default this checkout's). With two or more, the
// rounds interleave the builds (A/B on a noisy machine: compare medians of one run), and the tapes
// each build recorded in a round must be byte-identical (the exit code says when they are not).
// --batch: exchanges recorded per turn of the event loop (the writer writes one batch per turn;
// a loaded proxy records several per turn). Each step is then timed alone, build beside build.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { JSON_RESPONSE, SSE_FRAMES, UPSTREAM_PATH, requestBody } from './payloads.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at < 0 ? fallback : Number(args.splice(at, 2)[1]);
};
const ITERATIONS = option('--iterations', 20_000);
const ROUNDS = option('--rounds', 5);
const BATCH = option('--batch', 4);
// --no-steps: only the whole recordings, so a --cpu-prof of the run shows the recording path alone.
const STEPS = !args.includes('--no-steps');
if (!STEPS) args.splice(args.indexOf('--no-steps'), 1);
const payloadAt = args.indexOf('--payload');
const PAYLOADS = payloadAt < 0 ? ['json', 'sse'] : [args.splice(payloadAt, 2)[1]];
const dists = (args.length > 0 ? args : [new URL('../dist', import.meta.url).pathname]).map((dist) => resolve(dist));

const requestHeaders = {
  host: '127.0.0.1:1',
  connection: 'keep-alive',
  'content-type': 'application/json',
  'content-length': '70',
  'user-agent': 'autocannon',
  authorization: 'Bearer sk-fake-bench-not-a-real-key-000000000000',
};
const DATE = 'Wed, 02 Dec 2026 03:00:00 GMT';
const responseHeaders = {
  json: {
    'content-type': 'application/json',
    'content-length': String(JSON_RESPONSE.length),
    'x-request-id': 'req_bench',
    date: DATE,
    connection: 'keep-alive',
    'keep-alive': 'timeout=5',
  },
  sse: {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-request-id': 'req_bench',
    date: DATE,
    connection: 'keep-alive',
    'keep-alive': 'timeout=5',
    'transfer-encoding': 'chunked',
  },
};
const chunks = { json: [JSON_RESPONSE], sse: SSE_FRAMES };

async function load(dist) {
  const url = (path) => pathToFileURL(join(dist, path)).href;
  const [recordings, lookup, recording, keys] = await Promise.all([
    import(url('recordings/internal.js')),
    import(url('lookup/internal.js')),
    import(url('proxy/core/response-recording.js')),
    import(url('proxy/core/request-keys.js')),
  ]);
  return { dist, recordings, lookup, ...recording, ...keys };
}

const upstream = { name: 'openai', provider: 'openai', baseUrl: 'http://127.0.0.1:1' };
const route = { upstream, path: UPSTREAM_PATH, query: '', forwardPath: UPSTREAM_PATH };
const clock = () => 0;
const turn = () => new Promise((done) => setImmediate(done));

// Records `count` exchanges through ExchangeRecorder into a fresh tape; CPU µs per exchange.
async function recordAll(build, payload, file, count) {
  const { recordings, lookup, ExchangeRecorder, ResponseRecording, RequestKeys } = build;
  const keyRules = recordings.compileKeyRules();
  const writer = recordings.TapeWriter.open(file, { keyRules });
  const engine = new lookup.ReplayEngine({ file, keyRules });
  let recorded = 0;
  const refused = [];
  const recorder = new ExchangeRecorder({
    mode: 'record',
    rerecord: 'replace',
    engine,
    writer,
    keys: new RequestKeys(keyRules),
    now: () => new Date(DATE),
    onRecorded: () => recorded++,
    onRefused: (message) => refused.push(message),
  });
  const request = { method: 'POST', url: `/openai${UPSTREAM_PATH}`, headers: requestHeaders, body: Buffer.from(requestBody(payload)) };
  const started = process.cpuUsage();
  for (let done = 0; done < count; ) {
    for (let index = 0; index < BATCH && done < count; index++, done++) {
      const response = new ResponseRecording(clock, 32 * 1024 * 1024);
      response.start(200, responseHeaders[payload]);
      for (const chunk of chunks[payload]) response.data(chunk);
      recorder.recordAfterSend(route, request, response);
    }
    // The recordings run at the next turn, the writer's batch at the one after.
    await turn();
    await turn();
  }
  await recorder.close();
  const used = process.cpuUsage(started);
  if (refused.length > 0 || recorded !== count) throw new Error(`${build.dist}: recorded ${recorded} of ${count}: ${refused[0]}`);
  return (used.user + used.system) / count;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

// The steps of one exchange, each timed alone: where the µs go.
function steps(build, payload, dir) {
  const { recordings, ResponseRecording } = build;
  const keyRules = recordings.compileKeyRules();
  const body = Buffer.from(requestBody(payload));
  const raw = { method: 'POST', path: UPSTREAM_PATH, query: '', headers: requestHeaders, body };
  const recordedRequest = recordings.captureRequest(raw, keyRules);
  const key = recordings.exchangeKey('openai', recordedRequest, keyRules);
  const finish = () => {
    const response = new ResponseRecording(clock, 32 * 1024 * 1024);
    response.start(200, responseHeaders[payload]);
    for (const chunk of chunks[payload]) response.data(chunk);
    return response.finish();
  };
  const exchange = { key, ordinal: 0, upstream: 'openai', source: 'live', recordedAt: '2026-12-02', request: recordedRequest, response: finish() };
  const writer = recordings.TapeWriter.open(join(dir, `steps-${payload}-${builds.indexOf(build)}.jsonl`), { keyRules });
  let appended = 0;
  return {
    captureRequest: () => recordings.captureRequest(raw, keyRules),
    exchangeKey: () => recordings.exchangeKey('openai', recordedRequest, keyRules),
    'ResponseRecording start + data + finish': finish,
    [`serializeLine (${recordings.serializeLine(exchange).length} B line)`]: () => recordings.serializeLine(exchange),
    'TapeWriter.append (serializeLine, secret scan, checks), a flush every 4': () => {
      writer.append(exchange);
      if (++appended % 4 === 0) writer.flush();
    },
    close: () => writer.close(),
  };
}

function timeStep(fn, iterations) {
  for (let i = 0; i < Math.min(500, iterations); i++) fn();
  const started = process.cpuUsage();
  for (let i = 0; i < iterations; i++) fn();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / iterations;
}

const builds = [];
for (const dist of dists) builds.push(await load(dist));
const dir = mkdtempSync(join(tmpdir(), 'modeltape-record-cost-'));
let differ = 0;
try {
  for (const payload of PAYLOADS) {
    const perBuild = builds.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      const tapes = [];
      // Alternate which build goes first, so neither always runs on a warmer or quieter machine.
      const order = builds.map((_, index) => index);
      if (round % 2 === 1) order.reverse();
      for (const index of order) {
        const file = join(dir, `${payload}-${round}-${index}.jsonl`);
        perBuild[index].push(await recordAll(builds[index], payload, file, ITERATIONS));
        tapes[index] = file;
      }
      // The header names the version that wrote it: compare the exchange lines.
      const exchanges = (file) => readFileSync(file, 'utf8').split('\n').slice(1).join('\n');
      const first = exchanges(tapes[0]);
      for (let index = 1; index < tapes.length; index++) if (exchanges(tapes[index]) !== first) differ++;
      for (const file of tapes) rmSync(file);
    }
    console.log(`\n${payload}: CPU µs per recorded exchange, ${ITERATIONS} exchanges a round, ${BATCH} per turn; median of ${ROUNDS} rounds (each round)`);
    builds.forEach((build, index) => {
      const rounds = perBuild[index];
      console.log(`${median(rounds).toFixed(1).padStart(8)}  ${build.dist}   (${rounds.map((value) => value.toFixed(1)).join(' · ')})`);
    });
    if (builds.length > 1) console.log(`          ${differ === 0 ? 'tapes byte-identical across builds' : `${differ} tapes DIFFER across builds`}`);
    if (!STEPS) continue;
    const stepsOf = builds.map((build) => steps(build, payload, dir));
    const labels = Object.keys(stepsOf[0]).filter((label) => label !== 'close');
    console.log('  each step alone, median µs of the rounds:');
    for (const label of labels) {
      const times = builds.map(() => []);
      for (let round = 0; round < ROUNDS; round++) {
        const order = builds.map((_, index) => index);
        if (round % 2 === 1) order.reverse();
        for (const index of order) times[index].push(timeStep(stepsOf[index][label], Math.ceil(ITERATIONS / 4)));
      }
      console.log(`${times.map((values) => median(values).toFixed(1).padStart(8)).join('')}  ${label}`);
    }
    for (const built of stepsOf) built.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (differ > 0) process.exitCode = 1;
