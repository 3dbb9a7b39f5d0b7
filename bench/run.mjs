// modeltape proxy benchmark: a report, not a test.
//
// Every server under test runs in its own child process (bench/servers/*.mjs); autocannon runs
// here. For each payload (a ~1 KB JSON body, a ~2 KB SSE stream) it measures:
//   bare         node:http serving the bytes itself (the limit)
//   hop          a minimal undici streaming proxy in front of bare (the forwarding baseline)
//   passthrough  modeltape --mode passthrough in front of bare
//   record       modeltape --mode record in front of bare (tape in a temp dir)
//   replay       modeltape --mode replay --repeat last, from a tape recorded here first
//   fake         the FakeProvider over HTTP (fake.listen), one sticky rule answering every request
//                the same text (bench/fake-script.mjs); its ids count up per call, so its bodies are
//                checked ids aside against a sampled response that was checked field by field
//   fake-fetch   the FakeProvider in process: fake.fetch calls per second, no sockets (own table)
//   session-fetch   openTape(tape) in replay, session.fetch calls per second (in process, own table;
//                   the tape: one exchange recorded from bare through the proxy)
//   fromtape-fetch  FakeProvider.fromTape(tape).fetch calls per second, the same tape
//   session-cycle   openTape(tape) + one request + close(), sequential, µs per cycle, beside
//                   FakeProvider.fromTape(tape) + one request (its ratio's base), a bare fake.fetch
//                   call and the tape's load time, all measured in the same child
//   fromtape-cycle  FakeProvider.fromTape(tape) + one request + assertConsumed(), the same way
//   (all five in-process targets: bench/servers/in-process.mjs, each in its own child)
//
// Env: BENCH_SECONDS (measured seconds per run, default 5), BENCH_WARMUP (default 1.5),
// BENCH_CONNECTIONS (default 10), BENCH_ONLY (comma list of targets), BENCH_PAYLOADS (json,sse),
// BENCH_PROFILE=1 (run the modeltape, hop, fake, in-process and bare-target children with --cpu-prof into
// bench/results/profiles/; summarize with `node bench/profile-summary.mjs`), BENCH_ROUNDS,
// BENCH_RATE, BENCH_PIN, BENCH_PROXY_MODULE (see below and bench/servers/proxy.mjs),
// BENCH_FETCH_SECONDS (each in-process target's measured seconds, default min(3, BENCH_SECONDS)),
// BENCH_FETCH_CONCURRENCY (in-process calls outstanding, default 10), BENCH_FAKE_CHUNKS=words
// (stream the fake's answer a word a frame instead of in bare's 11 frames; bench/fake-script.mjs),
// BENCH_FAKE_MODULE (another build of dist/fake-provider/index.js for the fake targets: A/B a patch),
// BENCH_TAPE_OPEN=0 (skip the large-tape open row; bench/tape-open.mjs, BENCH_TAPE_EXCHANGES, BENCH_TAPE_ROUNDS).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { request } from 'undici';
import { children, cleanUpOnExit, startChild as startForked, stopChild } from './servers/children.mjs';
import { CLOCK_TICKS, readJiffies, readMachineBusy } from './cpu-time.mjs';
import { runInProcess } from './in-process.mjs';
import { checkFakeResponse, frameCount, normalizeFakeBody, sameAsTemplate } from './fake-script.mjs';
import { REQUEST_PATH, expectedBody, requestBody } from './payloads.mjs';
import { measureTapeOpen, tapeOpenReport } from './tape-open.mjs';
import { writeResults } from './results.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const SECONDS = positive('BENCH_SECONDS', 5);
const WARMUP = positive('BENCH_WARMUP', 1.5);
const CONNECTIONS = Math.round(positive('BENCH_CONNECTIONS', 10));
const PROFILE = process.env.BENCH_PROFILE === '1';
// BENCH_PIN=1: autocannon on CPU 0, every server child on CPU 1 (taskset), so the load generator
// never competes with the servers; a proxy and its upstream then share CPU 1.
const PIN = process.env.BENCH_PIN === '1';
// Measured in this order, so each ratio's two sides run back to back: this machine's speed drifts.
// The in-process targets (no server, no autocannon) have their own tables, measured last.
const ALL_TARGETS = [
  'fake',
  'bare',
  'replay',
  'hop',
  'passthrough',
  'record',
  'fake-fetch',
  'session-fetch',
  'fromtape-fetch',
  'session-cycle',
  'fromtape-cycle',
];
/** The in-process targets: bench/servers/in-process.mjs's TARGET and MEASURE, and how the tables name them. */
const IN_PROCESS = {
  'fake-fetch': { TARGET: 'fake', MEASURE: 'rate', label: 'fake.fetch' },
  'session-fetch': { TARGET: 'session', MEASURE: 'rate', label: 'session.fetch' },
  'fromtape-fetch': { TARGET: 'fromtape', MEASURE: 'rate', label: 'FakeProvider.fromTape(tape).fetch' },
  'session-cycle': { TARGET: 'session', MEASURE: 'cycle', label: 'openTape(tape) + 1 request + close()' },
  'fromtape-cycle': { TARGET: 'fromtape', MEASURE: 'cycle', label: 'FakeProvider.fromTape(tape) + 1 request + assertConsumed()' },
};
const isRate = (target) => IN_PROCESS[target]?.MEASURE === 'rate';
const isCycle = (target) => IN_PROCESS[target]?.MEASURE === 'cycle';
const TARGETS = list('BENCH_ONLY', ALL_TARGETS);
const PAYLOADS = list('BENCH_PAYLOADS', ['json', 'sse']);
// BENCH_RATE=N: a fixed offered load (req/s over all connections) instead of as fast as possible;
// at a rate every target sustains, CPU µs/req compares targets without CPU contention.
const RATE = process.env.BENCH_RATE ? Math.round(positive('BENCH_RATE', 0)) : undefined;
// BENCH_ROUNDS=N: measure every target N times, rounds interleaved, and report medians.
const ROUNDS = Math.round(positive('BENCH_ROUNDS', 1));
const FETCH_SECONDS = positive('BENCH_FETCH_SECONDS', Math.min(3, SECONDS));
const FETCH_WARMUP = Math.min(1, WARMUP);
const FETCH_CONCURRENCY = Math.round(positive('BENCH_FETCH_CONCURRENCY', 10));
// BENCH_RESULTS_DIR: where the report goes (bench/on-node.mjs gives each Node its own folder).
const RESULTS_DIR = process.env.BENCH_RESULTS_DIR ?? join(here, 'results');
const PROFILE_DIR = join(RESULTS_DIR, 'profiles');

function positive(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not ${JSON.stringify(raw)}`);
  return value;
}

function list(name, all) {
  const raw = process.env[name];
  if (!raw) return all;
  const picked = raw
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  for (const item of picked) if (!all.includes(item)) throw new Error(`${name}: unknown ${JSON.stringify(item)}; expected some of ${all.join(', ')}`);
  return all.filter((item) => picked.includes(item));
}

// ---------------------------------------------------------------------------------------------
// Children: started with fork, tracked, always stopped.

let tempDir;
cleanUpOnExit(() => tempDir);

function profileArgs(name) {
  mkdirSync(PROFILE_DIR, { recursive: true });
  return ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${name}.cpuprofile`];
}

function startChild(script, env, { name, profile = false } = {}) {
  return startForked(join(here, 'servers', script), env, {
    name: name ?? script,
    execArgv: profile ? profileArgs(name) : [],
    onReady: (child) => PIN && pin(child.pid, 1),
  });
}

/** Pins every thread of a process to one CPU. */
function pin(pid, cpu) {
  execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
}

// ---------------------------------------------------------------------------------------------
// Load.

/** check: { expectBody } or { verifyBody }; by default the payload's exact bytes. */
function cannon(port, payload, check, seconds) {
  const latencies = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${port}${REQUEST_PATH}`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: requestBody(payload),
        connections: CONNECTIONS,
        pipelining: 1,
        duration: seconds,
        timeout: 10,
        ...check,
        ...(RATE ? { overallRate: RATE } : {}),
      },
      (error, result) => (error ? reject(error) : resolve({ result, latencies })),
    );
    // autocannon's own histogram keeps whole milliseconds; keep the exact times for p50/p99.
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode === 200) latencies.push(responseTime);
    });
  });
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

// CPU accounting (bench/cpu-time.mjs): the CPU time each of our processes used during the
// measured run, and what the rest of the machine used meanwhile.
function cpuSnapshot(pids) {
  return { busy: readMachineBusy(), own: pids.map(readJiffies), parent: readJiffies(process.pid) };
}

function cpuDelta(before, after, pids, requests, seconds) {
  const delta = (a, b) => (a === undefined || b === undefined ? undefined : b - a);
  const perProcess = pids.map((_, index) => delta(before.own[index], after.own[index]));
  const parent = delta(before.parent, after.parent);
  const busy = delta(before.busy, after.busy);
  const ours = [parent, ...perProcess].reduce((sum, value) => (sum === undefined || value === undefined ? undefined : sum + value), 0);
  const toMicrosPerRequest = (jiffies) => (jiffies === undefined || requests === 0 ? undefined : (jiffies / CLOCK_TICKS / requests) * 1e6);
  return {
    // µs of CPU per request: the server under test, and every server child together.
    serverUs: toMicrosPerRequest(perProcess[0]),
    allServersUs: toMicrosPerRequest(perProcess.reduce((sum, value) => (sum === undefined || value === undefined ? undefined : sum + value), 0)),
    loadGeneratorCores: parent === undefined ? undefined : parent / CLOCK_TICKS / seconds,
    // Cores' worth of CPU the rest of the machine used while we measured (includes some loopback softirq).
    foreignCores: busy === undefined || ours === undefined ? undefined : Math.max(0, busy - ours) / CLOCK_TICKS / seconds,
  };
}

/** pids: the server under test first, then its upstream if any. */
async function measure(port, payload, pids, check = { expectBody: expectedBody(payload) }) {
  const warm = await cannon(port, payload, check, WARMUP);
  const before = cpuSnapshot(pids);
  const startedAt = performance.now();
  const { result, latencies } = await cannon(port, payload, check, SECONDS);
  const cpu = cpuDelta(before, cpuSnapshot(pids), pids, result.requests.total, (performance.now() - startedAt) / 1000);
  latencies.sort((a, b) => a - b);
  const codes = Object.keys(result.statusCodeStats ?? {});
  const problems = [];
  for (const [label, run] of [
    ['warm-up', warm.result],
    ['measured', result],
  ]) {
    if (run.errors) problems.push(`${label}: ${run.errors} errors`);
    if (run.timeouts) problems.push(`${label}: ${run.timeouts} timeouts`);
    if (run.non2xx) problems.push(`${label}: ${run.non2xx} non-2xx (${JSON.stringify(run.statusCodeStats)})`);
    if (run.mismatches)
      problems.push(`${label}: ${run.mismatches} responses with a body other than the expected bytes${check.verifyBody ? ' (ids aside)' : ''}`);
  }
  if (codes.some((code) => code !== '200')) problems.push(`status codes ${codes.join(', ')}`);
  if (result.requests.total === 0) problems.push('no request completed');
  return {
    requests: result.requests.total,
    warmupRequests: warm.result.requests.total,
    seconds: result.duration,
    rps: result.requests.total / result.duration,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpu,
    problems,
  };
}

// ---------------------------------------------------------------------------------------------
// Targets.

const proxyChild = (mode, tape, upstreamPort, name) =>
  startChild('proxy.mjs', { MODE: mode, TAPE: tape, UPSTREAM: upstreamPort ? `http://127.0.0.1:${upstreamPort}` : '' }, { name, profile: PROFILE });

/** Records the one exchange the replay target serves: record proxy in front of bare, one request. */
async function recordReplayTape(payload, barePort, file = `replay-${payload}.jsonl`) {
  const tape = join(tempDir, file);
  const proxy = await proxyChild('record', tape, barePort, `record-once-${payload}`);
  let body;
  try {
    const response = await request(`http://127.0.0.1:${proxy.port}${REQUEST_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: requestBody(payload),
    });
    body = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`recording the replay tape (${payload}) got ${response.statusCode}: ${body}`);
  } finally {
    const summary = await stopChild(proxy);
    if (summary?.recorded !== 1)
      throw new Error(`recording the replay tape (${payload}) recorded ${summary?.recorded} exchanges: ${JSON.stringify(summary)}\n${proxy.stderrText}`);
  }
  if (body !== expectedBody(payload)) throw new Error(`recording the replay tape (${payload}): the proxy returned other bytes than the upstream sent`);
  const lines = readFileSync(tape, 'utf8').trimEnd().split('\n').length;
  if (lines !== 2) throw new Error(`replay tape ${tape} has ${lines} lines, expected a header and one exchange`);
  return tape;
}

/** One request to the fake, as the bench sends it: status, headers, body. */
async function sampleFake(port, payload) {
  const response = await request(`http://127.0.0.1:${port}${REQUEST_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: requestBody(payload),
  });
  return { status: response.statusCode, headers: response.headers, body: await response.body.text() };
}

/**
 * The FakeProvider over HTTP. Its bodies differ per request only in their counting ids: one
 * response before the run is checked field by field and becomes the template every measured
 * body must equal ids aside; one after the run is checked the same way; the fake reports every
 * call it answered and its own errors.
 */
async function runFake(payload) {
  const fake = await startChild('fake.mjs', { PAYLOAD: payload }, { name: `fake-${payload}`, profile: PROFILE });
  try {
    const first = await sampleFake(fake.port, payload);
    const firstProblems = checkFakeResponse(payload, first);
    const template = normalizeFakeBody(first.body);
    const verifyBody = sameAsTemplate(template);
    const row = { target: 'fake', payload, ...(await measure(fake.port, payload, [fake.pid], { verifyBody })) };
    row.problems.unshift(...firstProblems.map((problem) => `sample before the run: ${problem}`));
    const last = await sampleFake(fake.port, payload);
    const lastProblems = checkFakeResponse(payload, last);
    if (lastProblems.length === 0 && !verifyBody(last.body)) lastProblems.push('other bytes than the sample before, ids aside');
    row.problems.push(...lastProblems.map((problem) => `sample after the run: ${problem}`));
    const summary = await stopChild(fake);
    if (summary === undefined || summary.error) row.problems.push(`the fake did not report a summary: ${summary?.error ?? ''}`);
    else {
      // autocannon counts the responses it read; a run's last requests (one a connection) may be
      // answered after it stopped counting.
      const served = row.requests + row.warmupRequests + 2;
      if (summary.calls < served || summary.calls > served + 2 * CONNECTIONS)
        row.problems.push(`the fake answered ${summary.calls} calls for ${served} requests`);
      const others = Object.entries(summary.statuses).filter(([status]) => status !== '200');
      if (others.length > 0) row.problems.push(`the fake answered statuses ${JSON.stringify(summary.statuses)}`);
      if (summary.problemCount > 0) row.problems.push(`the fake's own errors: ${summary.problemCount} (${summary.problems.join(' | ').slice(0, 300)})`);
      row.note = `body ${first.body.length} bytes${payload === 'sse' ? ` in ${frameCount(first.body)} frames` : ''} (bare: ${expectedBody(payload).length}${payload === 'sse' ? ` in ${frameCount(expectedBody(payload))}` : ''}); the fake answered ${summary.calls} calls, heap ${summary.heapUsedMb.toFixed(0)} MB, RSS ${summary.rssMb.toFixed(0)} MB at the end`;
    }
    if (fake.stderrText.trim() !== '') row.stderr = fake.stderrText.trim().split('\n').slice(0, 3).join(' | ');
    return row;
  } finally {
    await stopChild(fake);
  }
}

// The one-exchange tape every in-process tape target reads, per payload: recorded from bare
// through the proxy once, then only read (replay never writes it).
const inProcessTapes = new Map();

async function inProcessTape(payload) {
  if (!inProcessTapes.has(payload)) {
    const upstream = await startChild('bare.mjs', { PAYLOAD: payload }, { name: `bare-${payload}` });
    try {
      inProcessTapes.set(payload, await recordReplayTape(payload, upstream.port, `in-process-${payload}.jsonl`));
    } finally {
      await stopChild(upstream);
    }
  }
  return inProcessTapes.get(payload);
}

/**
 * An in-process target in its own child (bench/servers/in-process.mjs through bench/in-process.mjs):
 * calls per second with FETCH_CONCURRENCY calls outstanding, or µs per sequential cycle.
 */
async function runInProcessTarget(target, payload) {
  const { TARGET, MEASURE } = IN_PROCESS[target];
  const name = `${target}-${payload}`;
  const tape = TARGET === 'fake' ? undefined : await inProcessTape(payload);
  return runInProcess({
    name,
    target,
    payload,
    env: { TARGET, MEASURE, ...(tape ? { TAPE: tape } : {}) },
    seconds: FETCH_SECONDS,
    warmup: FETCH_WARMUP,
    concurrency: FETCH_CONCURRENCY,
    execArgv: PROFILE ? profileArgs(name) : [],
    onSpawn: (child) => PIN && pin(child.pid, 1),
  });
}

async function runTarget(target, payload) {
  if (target === 'fake') return runFake(payload);
  if (IN_PROCESS[target]) return runInProcessTarget(target, payload);
  const started = [];
  const name = `${target}-${payload}`;
  let tape;
  try {
    let port;
    let bare;
    if (target !== 'replay') {
      // Profiled only when it is the target; as an upstream it is not what is being measured.
      bare = await startChild('bare.mjs', { PAYLOAD: payload }, { name: `bare-${payload}`, profile: PROFILE && target === 'bare' });
      started.push(bare);
    }
    if (target === 'bare') {
      port = bare.port;
    } else if (target === 'hop') {
      const hop = await startChild('hop.mjs', { UPSTREAM: `http://127.0.0.1:${bare.port}` }, { name, profile: PROFILE });
      started.push(hop);
      port = hop.port;
    } else if (target === 'replay') {
      // Recording needs the upstream once; replay itself never opens a socket to it.
      const upstream = await startChild('bare.mjs', { PAYLOAD: payload }, { name: `bare-${payload}` });
      try {
        tape = await recordReplayTape(payload, upstream.port);
      } finally {
        await stopChild(upstream);
      }
      const proxy = await proxyChild('replay', tape, undefined, name);
      started.push(proxy);
      port = proxy.port;
    } else {
      tape = target === 'record' ? join(tempDir, `record-${payload}.jsonl`) : join(tempDir, `passthrough-${payload}.jsonl`);
      const proxy = await proxyChild(target, tape, bare.port, name);
      started.push(proxy);
      port = proxy.port;
    }
    const pids = [...started].reverse().map((child) => child.pid);
    const row = { target, payload, ...(await measure(port, payload, pids)) };
    const proxyChildProcess = target === 'bare' || target === 'hop' ? undefined : started[started.length - 1];
    // Stop the server under test first (a proxy flushes its tape and reports), then the upstream.
    const summaries = [];
    for (const child of started.reverse()) summaries.push({ child, summary: await stopChild(child) });
    started.length = 0;
    if (proxyChildProcess) {
      const summary = summaries.find((entry) => entry.child === proxyChildProcess)?.summary;
      row.summary = summary;
      if (summary === undefined || summary.error) row.problems.push(`proxy did not report a summary: ${summary?.error ?? ''}`);
      else {
        const served = row.requests + row.warmupRequests;
        if (summary.problems.length > 0) row.problems.push(`proxy problems: ${summary.problems.slice(0, 3).join(' | ')}`);
        if (summary.upstreamErrors > 0) row.problems.push(`${summary.upstreamErrors} upstream errors`);
        if (target === 'replay' && summary.upstreamConnections !== 0) row.problems.push(`replay opened ${summary.upstreamConnections} upstream connections`);
        if (target === 'replay' && summary.hits < served) row.problems.push(`replay answered ${summary.hits} from the tape for ${served} requests`);
        if (target === 'passthrough' && summary.passthrough < served) row.problems.push(`passthrough forwarded ${summary.passthrough} for ${served} requests`);
        if (target === 'record') {
          if (summary.recorded < served) row.problems.push(`record wrote ${summary.recorded} exchanges for ${served} requests`);
          const bytes = statSync(tape).size;
          const text = readFileSync(tape);
          let lines = 0;
          for (let at = text.indexOf(10); at >= 0; at = text.indexOf(10, at + 1)) lines++;
          if (lines !== summary.recorded + 1) row.problems.push(`the tape has ${lines} lines for a header and ${summary.recorded} exchanges`);
          row.note = `tape grew to ${summary.recorded} exchanges, ${(bytes / 1e6).toFixed(1)} MB; proxy heap ${summary.heapUsedMb.toFixed(0)} MB, RSS ${summary.rssMb.toFixed(0)} MB at the end`;
        }
        if (target === 'passthrough') {
          let exists = true;
          try {
            statSync(tape);
          } catch {
            exists = false;
          }
          if (exists) row.problems.push('passthrough wrote a tape');
        }
      }
      if (proxyChildProcess.stderrText.trim() !== '') row.stderr = proxyChildProcess.stderrText.trim().split('\n').slice(0, 3).join(' | ');
    }
    return row;
  } finally {
    for (const child of started.reverse()) await stopChild(child);
    if (tape) rmSync(tape, { force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Report.

function median(values) {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** One in-process row from its rounds: medians, every problem, the most other load seen. */
function combineFetch(rounds) {
  const pick = (get) => median(rounds.map(get));
  const last = rounds[rounds.length - 1];
  return {
    target: last.target,
    payload: last.payload,
    rounds: rounds.map((round) => round.rps),
    rps: pick((round) => round.rps),
    usPerCall: pick((round) => round.usPerCall),
    cpuUs: pick((round) => round.cpuUs),
    meanLatencyUs: pick((round) => round.meanLatencyUs),
    requests: rounds.reduce((sum, round) => sum + round.requests, 0),
    foreignCores: Math.max(...rounds.map((round) => round.foreignCores ?? NaN)),
    problems: [...new Set(rounds.flatMap((round) => round.problems))],
    note: last.note,
    stderr: rounds.map((round) => round.stderr).find(Boolean),
  };
}

/** One in-process cycle row from its rounds: medians, the ratio per round, every problem. */
function combineCycle(rounds) {
  const pick = (get) => median(rounds.map(get));
  const last = rounds[rounds.length - 1];
  return {
    target: last.target,
    payload: last.payload,
    ratios: rounds.map((round) => round.ratio),
    ratio: pick((round) => round.ratio),
    cycleUs: pick((round) => round.cycleUs),
    cycleCpuUs: pick((round) => round.cycleCpuUs),
    fakeUs: pick((round) => round.fakeUs),
    loadUs: pick((round) => round.loadUs),
    fromTapeUs: pick((round) => round.fromTapeUs),
    cycles: rounds.reduce((sum, round) => sum + round.cycles, 0),
    foreignCores: Math.max(...rounds.map((round) => round.foreignCores ?? NaN)),
    problems: [...new Set(rounds.flatMap((round) => round.problems))],
    note: last.note,
    stderr: rounds.map((round) => round.stderr).find(Boolean),
  };
}

/** One row from a target's rounds: medians, every problem, the most other load seen. */
function combine(rounds) {
  const pick = (get) => median(rounds.map(get));
  const last = rounds[rounds.length - 1];
  return {
    target: last.target,
    payload: last.payload,
    rounds: rounds.map((round) => round.rps),
    cpuRounds: rounds.map((round) => round.cpu.serverUs),
    rps: pick((round) => round.rps),
    p50: pick((round) => round.p50),
    p99: pick((round) => round.p99),
    requests: rounds.reduce((sum, round) => sum + round.requests, 0),
    cpu: {
      serverUs: pick((round) => round.cpu.serverUs),
      allServersUs: pick((round) => round.cpu.allServersUs),
      foreignCores: Math.max(...rounds.map((round) => round.cpu.foreignCores ?? NaN)),
    },
    problems: [...new Set(rounds.flatMap((round) => round.problems))],
    note: last.note,
    stderr: rounds.map((round) => round.stderr).find(Boolean),
  };
}

// Issue 14's targets. A ratio of req/s per round (`at least`), or `cpu`: the target's CPU µs/req
// minus the base's, per round (`at most`, in µs).
const RATIOS = [
  { name: 'fake/bare', target: 'fake', base: 'bare', goal: 0.5 },
  { name: 'replay/bare', target: 'replay', base: 'bare', goal: 0.8 },
  { name: 'record/hop', target: 'record', base: 'hop', goal: 0.8 },
  { name: 'record CPU − hop CPU', target: 'record', base: 'hop', cpu: true, goal: 15 },
  { name: 'passthrough/hop', target: 'passthrough', base: 'hop', goal: 1.0 },
];

// In process: calls per second against fake.fetch's (at least), and a sequential cycle (at most):
// a session's against FakeProvider.fromTape(tape) + 1 request as issue 36 §4 states it, fromTape's
// against a bare fake.fetch call plus the tape's load time, each measured in the cycle's own child.
const IN_PROCESS_RATIOS = [
  { name: 'session.fetch / fake.fetch (calls/s)', target: 'session-fetch', base: 'fake-fetch', goal: 0.5 },
  { name: 'fromTape(tape).fetch / fake.fetch (calls/s)', target: 'fromtape-fetch', base: 'fake-fetch', goal: 0.5 },
  { name: 'openTape + 1 request + close() / (fromTape(tape) + 1 request)', target: 'session-cycle', goal: 2 },
  { name: 'fromTape(tape) + 1 request / (fake.fetch call + tape load)', target: 'fromtape-cycle', goal: 2 },
];

// Other load (cores) above which a row counts as disturbed by processes outside the benchmark.
const DISTURBED_CORES = 0.3;

const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const thousands = (value) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a');

function markdownTable(headers, rows, align) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(align.map((a) => (a === 'r' ? '---:' : ':---'))), ...rows.map(line)].join('\n');
}

function report(rows, fetchRows) {
  const byKey = new Map(rows.map((row) => [`${row.target}/${row.payload}`, row]));
  const resultRows = rows.map((row) => [
    row.target,
    row.payload,
    thousands(row.rps),
    ...(ROUNDS > 1 ? [row.rounds.map(thousands).join(' · ')] : []),
    fixed(row.p50, 2),
    fixed(row.p99, 2),
    thousands(row.requests),
    fixed(row.cpu.serverUs, 1),
    row.target === 'bare' || row.target === 'replay' || row.target === 'fake' ? '' : fixed(row.cpu.allServersUs, 1),
    fixed(row.cpu.foreignCores, 2),
    row.problems.length === 0 ? 'valid' : `INVALID: ${row.problems.join('; ')}`,
  ]);
  const ratioRows = [];
  const verdicts = [];
  for (const payload of PAYLOADS) {
    for (const ratio of RATIOS) {
      const target = byKey.get(`${ratio.target}/${payload}`);
      const base = byKey.get(`${ratio.base}/${payload}`);
      if (!target || !base) continue;
      const valid = target.problems.length === 0 && base.problems.length === 0;
      // Per round, then the median: a ratio of runs made seconds apart, not of medians made minutes apart.
      const value = ratio.cpu
        ? median(target.cpuRounds.map((us, index) => us - base.cpuRounds[index]))
        : median(target.rounds.map((rps, index) => rps / base.rounds[index]));
      const disturbed = Math.max(target.cpu.foreignCores ?? 0, base.cpu.foreignCores ?? 0) > DISTURBED_CORES;
      const met = ratio.cpu ? value <= ratio.goal : value >= ratio.goal;
      const verdict = (!valid || !Number.isFinite(value) ? 'invalid' : met ? 'pass' : 'MISS') + (disturbed ? ' (disturbed)' : '');
      verdicts.push(verdict);
      ratioRows.push([
        ratio.name,
        payload,
        ratio.cpu ? `${fixed(value, 1)} µs` : fixed(value, 2),
        ratio.cpu ? `≤ ${ratio.goal} µs` : `≥ ${ratio.goal.toFixed(1)}`,
        verdict,
        ...(ratio.cpu
          ? ['', `${fixed(target.cpu.serverUs, 1)} − ${fixed(base.cpu.serverUs, 1)} µs (medians)`]
          : [`${fixed(target.p50 / base.p50, 2)} / ${fixed(target.p99 / base.p99, 2)}`, fixed(base.cpu.serverUs / target.cpu.serverUs, 2)]),
      ]);
    }
  }
  const rateRows = fetchRows.filter((row) => isRate(row.target));
  const cycleRows = fetchRows.filter((row) => isCycle(row.target));
  const fetchByKey = new Map(fetchRows.map((row) => [`${row.target}/${row.payload}`, row]));
  const fetchTable = rateRows.map((row) => [
    IN_PROCESS[row.target].label,
    row.payload,
    thousands(row.rps),
    ...(ROUNDS > 1 ? [row.rounds.map(thousands).join(' · ')] : []),
    fixed(row.usPerCall, 1),
    fixed(row.cpuUs, 1),
    fixed(row.meanLatencyUs, 0),
    thousands(row.requests),
    fixed(row.foreignCores, 2),
    row.problems.length === 0 ? 'valid' : `INVALID: ${row.problems.join('; ')}`,
  ]);
  const cycleTable = cycleRows.map((row) => [
    IN_PROCESS[row.target].label,
    row.payload,
    fixed(row.cycleUs, 0),
    fixed(row.cycleCpuUs, 0),
    fixed(row.fakeUs, 1),
    fixed(row.loadUs, 1),
    fixed(row.fromTapeUs, 0),
    thousands(row.cycles),
    fixed(row.foreignCores, 2),
    row.problems.length === 0 ? 'valid' : `INVALID: ${row.problems.join('; ')}`,
  ]);
  const inProcessRatioRows = [];
  for (const payload of PAYLOADS) {
    for (const ratio of IN_PROCESS_RATIOS) {
      const target = fetchByKey.get(`${ratio.target}/${payload}`);
      const base = ratio.base ? fetchByKey.get(`${ratio.base}/${payload}`) : undefined;
      if (!target || (ratio.base && !base)) continue;
      const valid = target.problems.length === 0 && (base?.problems.length ?? 0) === 0;
      // Per round, then the median, as above; a cycle's ratio is per round already (one child).
      const value = base ? median(target.rounds.map((rps, index) => rps / base.rounds[index])) : median(target.ratios);
      const disturbed = Math.max(target.foreignCores ?? 0, base?.foreignCores ?? 0) > DISTURBED_CORES;
      const met = base ? value >= ratio.goal : value <= ratio.goal;
      const verdict = (!valid || !Number.isFinite(value) ? 'invalid' : met ? 'pass' : 'MISS') + (disturbed ? ' (disturbed)' : '');
      verdicts.push(verdict);
      inProcessRatioRows.push([
        ratio.name,
        payload,
        fixed(value, 2),
        base ? `≥ ${ratio.goal.toFixed(1)}` : `≤ ${ratio.goal.toFixed(1)}`,
        verdict,
        base
          ? `${fixed(target.usPerCall, 1)} µs / ${fixed(base.usPerCall, 1)} µs a call`
          : Number.isFinite(target.fromTapeUs)
            ? `${fixed(target.cycleUs, 0)} µs / ${fixed(target.fromTapeUs, 0)} µs`
            : `${fixed(target.cycleUs, 0)} µs / (${fixed(target.fakeUs, 1)} + ${fixed(target.loadUs, 1)}) µs`,
      ]);
    }
  }
  const notes = [...rows, ...fetchRows]
    .filter((row) => row.note || row.stderr)
    .map((row) => `- ${row.target}/${row.payload}: ${[row.note, row.stderr && `stderr: ${row.stderr}`].filter(Boolean).join('; ')}`);
  const text = [
    `autocannon ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${SECONDS} s measured per run${ROUNDS > 1 ? `, ${ROUNDS} interleaved rounds (medians)` : ''} · POST ${REQUEST_PATH} · every server in its own process${RATE ? ` · fixed offered load ${RATE} req/s` : ''}${process.env.BENCH_PROXY_MODULE ? ` · proxy from ${process.env.BENCH_PROXY_MODULE}` : ''}${process.env.BENCH_FAKE_MODULE ? ` · fake from ${process.env.BENCH_FAKE_MODULE}` : ''}${process.env.BENCH_FAKE_CHUNKS === 'words' ? ' · fake streams a word a frame' : ''}${PIN ? ' · pinned: autocannon CPU 0, servers CPU 1' : ''}`,
    '',
    markdownTable(
      [
        'target',
        'payload',
        'req/s',
        ...(ROUNDS > 1 ? ['req/s by round'] : []),
        'p50 ms',
        'p99 ms',
        'requests',
        'CPU µs/req',
        '+ upstream',
        'other load',
        'check',
      ],
      resultRows,
      ['l', 'l', 'r', ...(ROUNDS > 1 ? ['r'] : []), 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
    ),
    '',
    'CPU µs/req: CPU time of the server under test per measured request; + upstream: with the bare upstream behind it; other load: cores used by processes outside this benchmark during the run (some loopback kernel work lands here too; above ~0.3 the row was disturbed).',
    '',
    markdownTable(['ratio (req/s)', 'payload', 'value', 'target', 'verdict', 'latency ratio p50 / p99', 'CPU efficiency'], ratioRows, [
      'l',
      'l',
      'r',
      'r',
      'l',
      'r',
      'r',
    ]),
    '',
    'CPU efficiency: CPU µs/req of the baseline divided by that of the target (above 1: the target spends less CPU per request than its baseline). Less sensitive to other load than req/s. record CPU − hop CPU: the CPU µs/req column, record minus hop, per round (what recording an exchange costs above forwarding it).',
    '',
    ...(notes.length > 0 ? [...notes, ''] : []),
    'Every row is checked: all responses 200, no errors or timeouts, and every body byte-identical to the expected one (autocannon expectBody). Replay serves a JSON body compact, in the key order it was recorded in: here, the exact bytes the upstream sent.',
    'The fake (FakeProvider over HTTP, one sticky rule) numbers its ids per call, so its bodies differ: one response before and one after the run are checked field by field (status 200, content type, the fake marker, the scripted text; for SSE every frame, the deltas, the final data: [DONE]), and every measured body must equal the first, ids aside (autocannon verifyBody); the fake must report every call answered 200 and none of its own errors.',
    '',
    ...(fetchRows.length > 0
      ? [
          `## In process (no sockets of their own)`,
          '',
          `Each row in its own child process. Calls per second: ${FETCH_CONCURRENCY} calls outstanding, ${FETCH_WARMUP} s warm-up + ${FETCH_SECONDS} s measured; each call is fetch(POST /v1/chat/completions) and reads its whole body (SSE: the whole stream): fake.fetch from a FakeProvider with one sticky rule, session.fetch from openTape(tape) in replay (\`repeat: 'last'\`), FakeProvider.fromTape(tape).fetch, the tape one exchange recorded from bare through the proxy.`,
          '',
          ...(fetchTable.length > 0
            ? [
                markdownTable(
                  [
                    'target',
                    'payload',
                    'calls/s',
                    ...(ROUNDS > 1 ? ['calls/s by round'] : []),
                    'µs/call',
                    'CPU µs/call',
                    `mean latency µs (${FETCH_CONCURRENCY} in flight)`,
                    'calls',
                    'other load',
                    'check',
                  ],
                  fetchTable,
                  ['l', 'l', 'r', ...(ROUNDS > 1 ? ['r'] : []), 'r', 'r', 'r', 'r', 'r', 'l'],
                ),
                '',
                "µs/call: wall time per call at that rate (1 / calls/s); CPU µs/call: the child's CPU time per call. The fake's bodies are checked as the fake row's are (the first call field by field, every later one equal to it ids aside, the last one field by field again); the tape targets' must be bare's exact bytes; every answer must be counted by the target (the fake's calls, the session's and the tape fake's hits), and a session must close with no miss, upstream connection or escape.",
                '',
              ]
            : []),
          ...(cycleTable.length > 0
            ? [
                `Per tape, sequentially (what a test pays to open a tape for one call): one child runs, in turn, slices of the cycle, of a bare fake.fetch call (the sticky fake), of loading the tape (FakeProvider.fromTape(tape), the replay engine reading it) and, beside a session's cycle, of FakeProvider.fromTape(tape) + 1 request (the base of its ratio, issue 36 §4), five of each (${fixed(FETCH_SECONDS / 5, 2)} s a round, shared among them) after ${FETCH_WARMUP} s of warm-up; the medians.`,
                '',
                markdownTable(
                  [
                    'cycle',
                    'payload',
                    'µs/cycle',
                    'CPU µs/cycle',
                    'fake.fetch µs/call',
                    'tape load µs',
                    'fromTape + 1 request µs',
                    'cycles',
                    'other load',
                    'check',
                  ],
                  cycleTable,
                  ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
                ),
                '',
              ]
            : []),
          ...(inProcessRatioRows.length > 0
            ? [markdownTable(['ratio', 'payload', 'value', 'target', 'verdict', 'from'], inProcessRatioRows, ['l', 'l', 'r', 'r', 'l', 'r']), '']
            : []),
        ]
      : []),
    `Overall: ${verdicts.length === 0 ? 'no ratios measured' : verdicts.every((v) => v.startsWith('pass')) ? 'all targets met' : `${verdicts.filter((v) => !v.startsWith('pass')).length} of ${verdicts.length} ratios missed or invalid`}.`,
    ...(rows.some((row) => (row.cpu.foreignCores ?? 0) > DISTURBED_CORES)
      ? [
          '',
          `Warning: processes outside the benchmark used more than ${DISTURBED_CORES} cores during some runs ("other load"); verdicts marked (disturbed) rest on those runs. Rerun on a quiet machine, or with BENCH_ROUNDS=3 for medians.`,
        ]
      : []),
    '',
  ].join('\n');
  return text;
}

// ---------------------------------------------------------------------------------------------

async function main() {
  if (PIN) pin(process.pid, 0);
  tempDir = mkdtempSync(join(tmpdir(), 'modeltape-bench-'));
  const runs = new Map();
  const startedAt = Date.now();
  for (let round = 1; round <= ROUNDS; round++) {
    for (const payload of PAYLOADS) {
      for (const target of TARGETS) {
        process.stderr.write(`bench:${ROUNDS > 1 ? ` round ${round}/${ROUNDS}` : ''} ${target}/${payload} …`);
        const row = await runTarget(target, payload);
        const key = `${target}/${payload}`;
        if (!runs.has(key)) runs.set(key, []);
        runs.get(key).push(row);
        if (isCycle(target)) {
          process.stderr.write(
            ` ${fixed(row.cycleUs, 0)} µs/cycle, fake.fetch ${fixed(row.fakeUs, 1)} µs, load ${fixed(row.loadUs, 1)} µs${Number.isFinite(row.fromTapeUs) ? `, fromTape + 1 request ${fixed(row.fromTapeUs, 0)} µs` : ''}, ${fixed(row.ratio, 2)}×, other load ${fixed(row.foreignCores, 2)}${row.problems.length ? ` INVALID: ${row.problems.join('; ')}` : ''}\n`,
          );
          continue;
        }
        if (isRate(target)) {
          process.stderr.write(
            ` ${thousands(row.rps)} calls/s, ${fixed(row.usPerCall, 1)} µs/call, ${fixed(row.cpuUs, 1)} CPU µs/call, other load ${fixed(row.foreignCores, 2)}${row.problems.length ? ` INVALID: ${row.problems.join('; ')}` : ''}\n`,
          );
          continue;
        }
        process.stderr.write(
          ` ${thousands(row.rps)} req/s, p50 ${fixed(row.p50, 2)} ms, p99 ${fixed(row.p99, 2)} ms, ${fixed(row.cpu.serverUs, 1)} CPU µs/req, other load ${fixed(row.cpu.foreignCores, 2)}${row.problems.length ? ` INVALID: ${row.problems.join('; ')}` : ''}\n`,
        );
      }
    }
  }
  const rows = [...runs.values()].filter((rounds) => !IN_PROCESS[rounds[0].target]).map(combine);
  const fetchRows = [...runs.values()]
    .filter((rounds) => IN_PROCESS[rounds[0].target])
    .map((rounds) => (isCycle(rounds[0].target) ? combineCycle(rounds) : combineFetch(rounds)));
  let text = report(rows, fetchRows);
  // Opening a large tape (bench/tape-open.mjs): a fresh child per round, after the proxies.
  if (process.env.BENCH_TAPE_OPEN !== '0') {
    const exchanges = Math.round(positive('BENCH_TAPE_EXCHANGES', 100_000));
    process.stderr.write(`bench: opening a ${thousands(exchanges)}-exchange tape …`);
    const row = await measureTapeOpen({ exchanges, rounds: Math.round(positive('BENCH_TAPE_ROUNDS', 3)) });
    process.stderr.write(` ${fixed(row.ms / 1000, 2)} s, RSS ${fixed(row.rssRatio, 2)}× the tape\n`);
    text += `\n${tapeOpenReport(row)}`;
  }
  writeResults('proxy', { title: 'The proxy, the FakeProvider and replay in process', command: 'npm run bench', body: text });
  process.stdout.write(`(${((Date.now() - startedAt) / 1000).toFixed(0)} s)${PROFILE ? ` CPU profiles in ${PROFILE_DIR}.` : ''}\n`);
}

try {
  await main();
} catch (error) {
  process.stderr.write(`\nbench failed: ${error?.stack ?? error}\n`);
  process.exitCode = 1;
} finally {
  // The children left are stopped here; the temp dir goes on exit (cleanUpOnExit).
  for (const child of [...children]) await stopChild(child);
}
