// Peers benchmark: modeltape strict replay beside aimock and talkback, in one run. A report, not a test.
//
// Run from the repo root after `npm run build` and `npm --prefix bench/peers ci` (`npm run bench:peers`
// does all three). The peers live in bench/peers/package.json, never in modeltape's dependencies.
// Every server runs in its own child process; autocannon (this process) drives each with the same
// OpenAI chat request, connections and duration, and every one answers the same ~1 KB JSON answer
// (then, in a second pass, the same SSE stream):
//   bare      node:http serving the bytes (bench/servers/bare.mjs), the baseline
//   modeltape modeltape --mode replay --repeat last, from a tape recorded from bare first
//   aimock    @copilotkit/aimock serving the same answer from a fixture (bench/peers/aimock.mjs)
//   talkback  talkback playback (RecordMode.DISABLED) from a tape it recorded from bare
//             (bench/peers/talkback.mjs)
// Before a target is measured, one request is checked: status 200 and the same assistant message,
// id, model and usage as bare's body. While measured, every body must carry that same content.
// The same for an SSE stream (11 chat.completion.chunk frames): the same text, id and model, however framed.
//
// Then, per payload, the in-process rows (no server; bench/servers/in-process.mjs, each in its own
// child, FETCH_CONCURRENCY calls outstanding, each body read whole and checked), against fake.fetch:
//   fake.fetch                 a FakeProvider with one sticky rule, the baseline
//   session.fetch              openTape(tape) in replay (modeltape/replay), a tape recorded from bare
//   FakeProvider.fromTape      FakeProvider.fromTape(tape).fetch (modeltape/fake-provider)
//   undici SnapshotAgent       undici's SnapshotAgent in mode 'playback' from a snapshot it recorded
//                              from bare (bench/peers/undici-snapshot.mjs): fetch(url, { dispatcher })
//                              with undici's own fetch, and again with Node's global fetch
// The tape and snapshot targets must answer bare's exact bytes.
//
// BENCH_SECONDS (default 5), BENCH_WARMUP (1.5), BENCH_CONNECTIONS (10), BENCH_FETCH_SECONDS (min(3, BENCH_SECONDS)),
// BENCH_FETCH_CONCURRENCY (10), BENCH_ROUNDS (1; the in-process rows only), as bench/run.mjs.
// Writes bench/results/peers.md (bench/results.mjs) and prints the same table.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { request } from 'undici';
import { runInProcess } from './in-process.mjs';
import { recordSnapshot, snapshotShape } from './peers/undici-snapshot.mjs';
import { cleanUpOnExit, startChild as startForked, stopChild } from './servers/children.mjs';
import { JSON_RESPONSE, REQUEST_PATH, SSE_FRAMES, SSE_RESPONSE, UPSTREAM_PATH, requestBody } from './payloads.mjs';
import { writeResults } from './results.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const SECONDS = positive('BENCH_SECONDS', 5);
const WARMUP = positive('BENCH_WARMUP', 1.5);
const CONNECTIONS = Math.round(positive('BENCH_CONNECTIONS', 10));
// The in-process rows, as bench/run.mjs's: BENCH_FETCH_SECONDS (default min(3, BENCH_SECONDS)),
// BENCH_FETCH_CONCURRENCY (calls outstanding, default 10).
const FETCH_SECONDS = positive('BENCH_FETCH_SECONDS', Math.min(3, SECONDS));
const FETCH_WARMUP = Math.min(1, WARMUP);
const FETCH_CONCURRENCY = Math.round(positive('BENCH_FETCH_CONCURRENCY', 10));
const ROUNDS = Math.round(positive('BENCH_ROUNDS', 1));
const PAYLOADS = ['json', 'sse'];

function median(values) {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function positive(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not ${JSON.stringify(raw)}`);
  return value;
}

// ---------------------------------------------------------------------------------------------
// Children (bench/servers/children.mjs, the protocol of bench/servers/child-ipc.mjs): started with fork, tracked, always stopped.

let tempDir;
cleanUpOnExit(() => tempDir);

/** Starts a server child of this folder (its script path relative to bench/). */
const startChild = (script, env, name) => startForked(join(here, script), env, { name });

// ---------------------------------------------------------------------------------------------
// What every target must answer: bare's body. aimock builds its own response object from a fixture,
// so the check is the content every peer is asked to serve, not the bytes; whether a target's bytes
// equal bare's is reported beside it.

const EXPECTED_BYTES = { json: JSON_RESPONSE.toString(), sse: SSE_RESPONSE.toString() };

/** What a JSON answer says: id, model, the assistant message, the finish reason, the usage. */
function jsonContent(answer) {
  const choice = answer?.choices?.[0];
  return JSON.stringify({
    id: answer?.id,
    model: answer?.model,
    message: { role: choice?.message?.role, content: choice?.message?.content },
    finish: choice?.finish_reason,
    usage: { prompt: answer?.usage?.prompt_tokens, completion: answer?.usage?.completion_tokens, total: answer?.usage?.total_tokens },
  });
}

/** What a stream says, however it is cut into frames: id, model, the text of the deltas, the finish reason, a final [DONE]. */
function sseContent(text) {
  const data = text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => frame.replace(/^data: /, ''));
  const done = data.at(-1) === '[DONE]';
  const chunks = data.filter((line) => line !== '[DONE]').map((line) => JSON.parse(line));
  const choices = chunks.map((chunk) => chunk.choices?.[0]).filter(Boolean);
  return JSON.stringify({
    id: [...new Set(chunks.map((chunk) => chunk.id))],
    model: [...new Set(chunks.map((chunk) => chunk.model))],
    text: choices.map((choice) => choice.delta?.content ?? '').join(''),
    finish: choices.map((choice) => choice.finish_reason).filter(Boolean),
    done,
  });
}

const contentOf = (payload, body) => (payload === 'json' ? jsonContent(JSON.parse(body)) : sseContent(body));
const EXPECTED_CONTENT = { json: contentOf('json', EXPECTED_BYTES.json), sse: contentOf('sse', EXPECTED_BYTES.sse) };

function sameContent(payload, body) {
  try {
    return contentOf(payload, body) === EXPECTED_CONTENT[payload];
  } catch {
    return false;
  }
}

async function checkOnce(url, payload) {
  const response = await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: requestBody(payload) });
  const body = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`${url} answered ${response.statusCode}: ${body.slice(0, 500)}`);
  if (!sameContent(payload, body)) throw new Error(`${url} answered other content than bare:\n${body.slice(0, 2000)}`);
  return { sameBytes: body === EXPECTED_BYTES[payload], bytes: Buffer.byteLength(body) };
}

// ---------------------------------------------------------------------------------------------
// Load.

function cannon(url, payload, seconds, extra = {}) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: requestBody(payload),
        connections: CONNECTIONS,
        pipelining: 1,
        duration: seconds,
        timeout: 10,
        verifyBody: (body) => sameContent(payload, body),
        ...extra,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

async function measure(url, payload) {
  const warm = await cannon(url, payload, WARMUP);
  const result = await cannon(url, payload, SECONDS);
  const problems = [];
  for (const [label, run] of [
    ['warm-up', warm],
    ['measured', result],
  ]) {
    if (run.errors) problems.push(`${label}: ${run.errors} errors`);
    if (run.timeouts) problems.push(`${label}: ${run.timeouts} timeouts`);
    if (run.non2xx) problems.push(`${label}: ${run.non2xx} non-2xx (${JSON.stringify(run.statusCodeStats)})`);
    if (run.mismatches) problems.push(`${label}: ${run.mismatches} responses with other content than bare's`);
  }
  if (result.requests.total === 0) problems.push('no request completed');
  return { rps: result.requests.total / result.duration, p50: result.latency.p50, p99: result.latency.p99, problems };
}

// ---------------------------------------------------------------------------------------------
// Targets. Each returns { url, children } with its server(s) started and checked.

const bareChild = (payload) => startChild('servers/bare.mjs', { PAYLOAD: payload }, 'bare');

/** A modeltape tape of one exchange, recorded from bare through the proxy (record mode). */
async function recordModeltapeTape(payload, file) {
  const tape = join(tempDir, file);
  const bare = await bareChild(payload);
  const recorder = await startChild('servers/proxy.mjs', { MODE: 'record', TAPE: tape, UPSTREAM: `http://127.0.0.1:${bare.port}` }, 'modeltape record');
  try {
    await checkOnce(`http://127.0.0.1:${recorder.port}${REQUEST_PATH}`, payload);
  } finally {
    const summary = await stopChild(recorder);
    await stopChild(bare);
    if (summary?.recorded !== 1) throw new Error(`modeltape recorded ${summary?.recorded} exchanges: ${JSON.stringify(summary)}\n${recorder.stderrText}`);
  }
  return tape;
}

async function modeltapeReplay(payload) {
  const tape = await recordModeltapeTape(payload, `modeltape-${payload}.jsonl`);
  const replay = await startChild('servers/proxy.mjs', { MODE: 'replay', TAPE: tape, UPSTREAM: '' }, 'modeltape replay');
  return { url: `http://127.0.0.1:${replay.port}${REQUEST_PATH}`, children: [replay], note: 'strict replay, `--repeat last`' };
}

async function talkbackPlayback(payload) {
  const tapes = join(tempDir, `talkback-${payload}`);
  mkdirSync(tapes);
  const bare = await bareChild(payload);
  const recorder = await startChild('peers/talkback.mjs', { MODE: 'record', TAPES: tapes, UPSTREAM: `http://127.0.0.1:${bare.port}` }, 'talkback record');
  try {
    // Recorded with autocannon itself, one request, so the tape holds exactly the headers it sends.
    const once = await cannon(`http://127.0.0.1:${recorder.port}${UPSTREAM_PATH}`, payload, 10, { amount: 1, connections: 1 });
    if (once.non2xx || once.errors || once.mismatches || once.requests.total !== 1)
      throw new Error(`recording through talkback failed: ${JSON.stringify(once.statusCodeStats)}`);
  } finally {
    await stopChild(recorder);
    await stopChild(bare);
  }
  const files = readdirSync(tapes);
  if (files.length !== 1) throw new Error(`talkback wrote ${files.length} tapes, expected 1: ${files.join(', ')}`);
  const playback = await startChild('peers/talkback.mjs', { MODE: 'playback', TAPES: tapes }, 'talkback playback');
  return { url: `http://127.0.0.1:${playback.port}${UPSTREAM_PATH}`, children: [playback], note: 'RecordMode.DISABLED, a tape it recorded from bare' };
}

async function aimock(payload) {
  const mock = await startChild('peers/aimock.mjs', { PAYLOAD: payload }, 'aimock');
  return { url: `http://127.0.0.1:${mock.port}${UPSTREAM_PATH}`, children: [mock], note: 'one `onMessage` fixture' };
}

async function bare(payload) {
  const server = await bareChild(payload);
  return { url: `http://127.0.0.1:${server.port}${UPSTREAM_PATH}`, children: [server], note: 'node:http, fixed bytes' };
}

const TARGETS = [
  ['bare', bare],
  ['modeltape replay', modeltapeReplay],
  ['aimock', aimock],
  ['talkback playback', talkbackPlayback],
];

// ---------------------------------------------------------------------------------------------
// In process: no server, each in its own child (bench/servers/in-process.mjs), calls per second of
// fetch with FETCH_CONCURRENCY calls outstanding, each body read whole and checked. Each returns
// the child's env and how the table describes it; fake.fetch is the baseline.

/** A SnapshotAgent snapshot of the same exchange, recorded from bare by the agent itself (mode 'record'). */
async function recordUndiciSnapshot(payload, fetchKind) {
  const file = join(tempDir, `undici-snapshot-${fetchKind}-${payload}.json`);
  const bare = await bareChild(payload);
  // The URL is part of what it keys on, so playback asks for bare's URL (bare is stopped by then).
  const url = `http://127.0.0.1:${bare.port}${UPSTREAM_PATH}`;
  try {
    const recorded = await recordSnapshot({ file, url, body: requestBody(payload), fetchKind });
    if (recorded.status !== 200 || recorded.body !== EXPECTED_BYTES[payload])
      throw new Error(`recording through SnapshotAgent (${fetchKind} fetch) got ${recorded.status}: ${recorded.body.slice(0, 300)}`);
  } finally {
    await stopChild(bare);
  }
  const shape = snapshotShape(file);
  if (shape.length !== 1 || shape[0] !== 1)
    throw new Error(`SnapshotAgent wrote ${JSON.stringify(shape)} (responses per snapshot), expected one snapshot of one response`);
  return { file, url };
}

async function undiciSnapshot(payload, fetchKind) {
  const { file, url } = await recordUndiciSnapshot(payload, fetchKind);
  return {
    env: { TARGET: 'snapshot', SNAPSHOT: file, SNAPSHOT_URL: url, FETCH: fetchKind },
    note: `mode 'playback', a snapshot it recorded from bare; ${fetchKind === 'undici' ? "undici's own fetch" : "Node's global fetch"} with \`dispatcher\``,
  };
}

const IN_PROCESS_TARGETS = [
  ['fake.fetch', async () => ({ env: { TARGET: 'fake' }, note: 'a FakeProvider with one sticky rule (its own answer, ids counting up): the baseline' })],
  [
    'modeltape session.fetch',
    async (payload) => ({
      env: { TARGET: 'session', TAPE: await recordModeltapeTape(payload, `session-${payload}.jsonl`) },
      note: "openTape(tape) in replay, `repeat: 'last'`, a tape recorded from bare",
    }),
  ],
  [
    'modeltape FakeProvider.fromTape',
    async (payload) => ({
      env: { TARGET: 'fromtape', TAPE: await recordModeltapeTape(payload, `fromtape-${payload}.jsonl`) },
      note: "FakeProvider.fromTape(tape, { repeat: 'last' }).fetch, the same kind of tape",
    }),
  ],
  ['undici SnapshotAgent', (payload) => undiciSnapshot(payload, 'undici')],
  ['undici SnapshotAgent, global fetch', (payload) => undiciSnapshot(payload, 'global')],
];

// ---------------------------------------------------------------------------------------------

function version(path) {
  return JSON.parse(readFileSync(join(here, path), 'utf8')).version;
}

async function main() {
  tempDir = mkdtempSync(join(tmpdir(), 'modeltape-peers-'));
  const rows = [];
  const inProcessRows = [];
  for (const payload of PAYLOADS) {
    for (const [name, start] of TARGETS) {
      const target = await start(payload);
      try {
        const check = await checkOnce(target.url, payload);
        const result = await measure(target.url, payload);
        rows.push({ name, payload, ...check, ...result, note: target.note });
        console.error(`${name} ${payload}: ${result.rps.toFixed(0)} req/s${result.problems.length ? ` PROBLEMS: ${result.problems.join('; ')}` : ''}`);
      } finally {
        for (const child of target.children) await stopChild(child);
      }
    }
    // BENCH_ROUNDS: every in-process target measured that many times, rounds interleaved, each
    // round with its own tape or snapshot; a row shows the medians, its ratio the median of the per-round ratios.
    const rounds = new Map();
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [name, prepare] of IN_PROCESS_TARGETS) {
        const target = await prepare(payload);
        const row = await runInProcess({
          name: `${name} ${payload}`,
          target: name,
          payload,
          env: { MEASURE: 'rate', ...target.env },
          seconds: FETCH_SECONDS,
          warmup: FETCH_WARMUP,
          concurrency: FETCH_CONCURRENCY,
        });
        if (!rounds.has(name)) rounds.set(name, []);
        rounds.get(name).push({ ...row, note: target.note });
        console.error(
          `${name} ${payload}${ROUNDS > 1 ? ` (round ${round}/${ROUNDS})` : ''}: ${row.rps.toFixed(0)} calls/s, ${row.cpuUs.toFixed(1)} CPU µs/call${row.problems.length ? ` PROBLEMS: ${row.problems.join('; ')}` : ''}${row.stderr ? ` (stderr: ${row.stderr})` : ''}`,
        );
      }
    }
    const fake = rounds.get('fake.fetch');
    for (const [name, measured] of rounds) {
      inProcessRows.push({
        name,
        payload,
        rps: median(measured.map((row) => row.rps)),
        ratio: median(measured.map((row, index) => row.rps / fake[index].rps)),
        // fake.fetch's CPU per call over the target's, per round: steadier than calls/s on a busy machine.
        cpuRatio: median(measured.map((row, index) => fake[index].cpuUs / row.cpuUs)),
        rounds: measured.map((row) => row.rps),
        usPerCall: median(measured.map((row) => row.usPerCall)),
        cpuUs: median(measured.map((row) => row.cpuUs)),
        foreignCores: Math.max(...measured.map((row) => row.foreignCores ?? NaN)),
        problems: [...new Set(measured.flatMap((row) => row.problems))],
        note: measured[0].note,
      });
    }
  }
  const bareRps = Object.fromEntries(rows.filter((row) => row.name === 'bare').map((row) => [row.payload, row.rps]));
  const versions = {
    modeltape: version('../package.json'),
    aimock: version('peers/node_modules/@copilotkit/aimock/package.json'),
    talkback: version('peers/node_modules/talkback/package.json'),
    undici: JSON.parse(readFileSync(fileURLToPath(new URL(import.meta.resolve('undici/package.json'))), 'utf8')).version,
    autocannon: JSON.parse(readFileSync(fileURLToPath(new URL(import.meta.resolve('autocannon/package.json'))), 'utf8')).version,
  };
  const lines = [
    `autocannon ${versions.autocannon}, ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${SECONDS} s measured per target · POST an OpenAI chat request, a ${JSON_RESPONSE.length}-byte JSON answer or ${SSE_FRAMES.length} SSE frames (${SSE_RESPONSE.length} bytes) · every server in its own process`,
    `modeltape ${versions.modeltape} · @copilotkit/aimock ${versions.aimock} · talkback ${versions.talkback} · undici ${versions.undici} (SnapshotAgent)`,
    '',
    '| Target | Payload | req/s | × bare | p50 ms | p99 ms | Same bytes as bare | How |',
    '| --- | --- | ---: | ---: | ---: | ---: | --- | --- |',
    ...rows.map(
      (row) =>
        `| ${row.name} | ${row.payload} | ${row.rps.toFixed(0)} | ${(row.rps / bareRps[row.payload]).toFixed(2)} | ${row.p50} | ${row.p99} | ${row.sameBytes ? 'yes' : `no (${row.bytes} bytes)`} | ${row.note}${row.problems.length ? ` **PROBLEMS: ${row.problems.join('; ')}**` : ''} |`,
    ),
    '',
    "Every target was checked before it was measured (status 200 and the same content as bare's body: for JSON the assistant message, id, model, finish reason and usage; for SSE the id, model, the deltas' text, the finish reason and a final data: [DONE], however the stream is cut into frames), and every measured response had to carry that content (autocannon verifyBody).",
    '',
    ...(inProcessRows.length > 0
      ? [
          '## In process',
          '',
          `No server: each target in its own child process, ${FETCH_CONCURRENCY} calls outstanding, ${FETCH_WARMUP} s warm-up + ${FETCH_SECONDS} s measured${ROUNDS > 1 ? `, ${ROUNDS} interleaved rounds (medians; × fake.fetch is the median of the per-round ratios)` : ''}; each call is a fetch of the same POST (the same request body) and reads the whole body. Ratios against fake.fetch in the same run.`,
          '',
          `| Target | Payload | calls/s | × fake.fetch |${ROUNDS > 1 ? ' calls/s by round |' : ''} µs/call | CPU µs/call | CPU efficiency | other load | Same bytes as bare | How |`,
          `| --- | --- | ---: | ---: |${ROUNDS > 1 ? ' ---: |' : ''} ---: | ---: | ---: | ---: | --- | --- |`,
          ...inProcessRows.map(
            (row) =>
              `| ${row.name} | ${row.payload} | ${Number.isFinite(row.rps) ? row.rps.toFixed(0) : 'n/a'} | ${row.ratio.toFixed(2)} |${ROUNDS > 1 ? ` ${row.rounds.map((rps) => rps.toFixed(0)).join(' · ')} |` : ''} ${row.usPerCall.toFixed(1)} | ${row.cpuUs.toFixed(1)} | ${row.cpuRatio.toFixed(2)} | ${Number.isFinite(row.foreignCores) ? row.foreignCores.toFixed(2) : 'n/a'} | ${row.name === 'fake.fetch' ? 'no: its own answer' : 'yes'} | ${row.note}${row.problems.length ? ` **PROBLEMS: ${row.problems.join('; ')}**` : ''} |`,
          ),
          '',
          "CPU efficiency: fake.fetch's CPU µs per call divided by the target's, per round (above 1: the target spends less CPU per call than fake.fetch); less sensitive to other load than calls/s. other load: cores used by processes outside the benchmark while the row was measured (above ~0.3 the row was disturbed).",
          '',
          "Every body was checked: the tape and snapshot targets' had to be bare's exact bytes, fake.fetch's its scripted answer (the first field by field, every later one equal to it, ids aside); every answer had to be counted by the target that gave it (the fake's calls, the session's and the tape fake's hits, the snapshot's callCount), and the session had to close with no miss, upstream connection or escape.",
          '',
        ]
      : []),
  ];
  writeResults('peers', { title: 'modeltape beside its peers', command: 'npm run bench:peers', body: lines.join('\n') });
  if ([...rows, ...inProcessRows].some((row) => row.problems.length)) process.exitCode = 1;
}

await main();
