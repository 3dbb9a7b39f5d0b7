// modeltape proxy benchmark: a report, not a test.
//
// Every server under test runs in its own child process (bench/servers/*.mjs); autocannon runs
// here. For each payload (a ~1 KB JSON body, a ~2 KB SSE stream) it measures:
//   bare         node:http serving the bytes itself (the limit)
//   hop          a minimal undici streaming proxy in front of bare (the forwarding baseline)
//   passthrough  modeltape --mode passthrough in front of bare
//   record       modeltape --mode record in front of bare (tape in a temp dir)
//   replay       modeltape --mode replay --repeat last, from a tape recorded here first
//
// Env: BENCH_SECONDS (measured seconds per run, default 5), BENCH_WARMUP (default 1.5),
// BENCH_CONNECTIONS (default 10), BENCH_ONLY (comma list of targets), BENCH_PAYLOADS (json,sse),
// BENCH_PROFILE=1 (run the modeltape and hop children with --cpu-prof into bench/results/profiles/).
import { fork } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { request } from 'undici';
import { REQUEST_PATH, expectedBody, requestBody } from './payloads.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const SECONDS = positive('BENCH_SECONDS', 5);
const WARMUP = positive('BENCH_WARMUP', 1.5);
const CONNECTIONS = Math.round(positive('BENCH_CONNECTIONS', 10));
const PROFILE = process.env.BENCH_PROFILE === '1';
const ALL_TARGETS = ['bare', 'hop', 'passthrough', 'record', 'replay'];
const TARGETS = list('BENCH_ONLY', ALL_TARGETS);
const PAYLOADS = list('BENCH_PAYLOADS', ['json', 'sse']);
const RESULTS_DIR = join(here, 'results');
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
  const picked = raw.split(',').map((item) => item.trim()).filter(Boolean);
  for (const item of picked) if (!all.includes(item)) throw new Error(`${name}: unknown ${JSON.stringify(item)}; expected some of ${all.join(', ')}`);
  return all.filter((item) => picked.includes(item));
}

// ---------------------------------------------------------------------------------------------
// Children: started with fork, tracked, always stopped.

const children = new Set();
let tempDir;

function startChild(script, env, { name, profile = false } = {}) {
  const execArgv = [];
  if (profile) {
    mkdirSync(PROFILE_DIR, { recursive: true });
    execArgv.push('--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${name}.cpuprofile`);
  }
  const child = fork(join(here, 'servers', script), [], {
    env: { ...process.env, ...env },
    execArgv,
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  children.add(child);
  child.stderrText = '';
  child.stderr.on('data', (chunk) => {
    if (child.stderrText.length < 20_000) child.stderrText += chunk;
  });
  child.once('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name ?? script} did not start within 10 s\n${child.stderrText}`)), 10_000);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name ?? script} exited before it was ready (code ${code}, signal ${signal})\n${child.stderrText}`));
    });
    child.on('message', (message) => {
      if (message?.type === 'ready') {
        clearTimeout(timer);
        child.port = message.port;
        resolve(child);
      }
    });
  });
}

/** Asks a child to stop (it closes its server, reports, exits); kills it if it does not. */
function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    let summary;
    const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('message', (message) => {
      if (message?.type === 'stopped') summary = message.summary;
    });
    child.once('exit', () => {
      clearTimeout(kill);
      resolve(summary);
    });
    try {
      child.send({ type: 'stop' });
    } catch {
      child.kill('SIGKILL');
    }
  });
}

function cleanupSync() {
  for (const child of children) {
    try {
      child.kill('SIGKILL');
    } catch {}
  }
  children.clear();
  if (tempDir) {
    rmSync(tempDir, { recursive: true, force: true });
    tempDir = undefined;
  }
}

process.on('exit', cleanupSync);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    cleanupSync();
    process.exit(130);
  });
}

// ---------------------------------------------------------------------------------------------
// Load.

function cannon(port, payload, target, seconds) {
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
        expectBody: expectedBody(payload, target),
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

async function measure(port, payload, target) {
  const warm = await cannon(port, payload, target, WARMUP);
  const { result, latencies } = await cannon(port, payload, target, SECONDS);
  latencies.sort((a, b) => a - b);
  const codes = Object.keys(result.statusCodeStats ?? {});
  const problems = [];
  for (const [label, run] of [['warm-up', warm.result], ['measured', result]]) {
    if (run.errors) problems.push(`${label}: ${run.errors} errors`);
    if (run.timeouts) problems.push(`${label}: ${run.timeouts} timeouts`);
    if (run.non2xx) problems.push(`${label}: ${run.non2xx} non-2xx (${JSON.stringify(run.statusCodeStats)})`);
    if (run.mismatches) problems.push(`${label}: ${run.mismatches} responses with a body other than the expected bytes`);
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
    problems,
  };
}

// ---------------------------------------------------------------------------------------------
// Targets.

const proxyChild = (mode, tape, upstreamPort, name) =>
  startChild('proxy.mjs', { MODE: mode, TAPE: tape, UPSTREAM: upstreamPort ? `http://127.0.0.1:${upstreamPort}` : '' }, { name, profile: PROFILE });

/** Records the one exchange the replay target serves: record proxy in front of bare, one request. */
async function recordReplayTape(payload, barePort) {
  const tape = join(tempDir, `replay-${payload}.jsonl`);
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
    if (summary?.recorded !== 1) throw new Error(`recording the replay tape (${payload}) recorded ${summary?.recorded} exchanges: ${JSON.stringify(summary)}\n${proxy.stderrText}`);
  }
  if (body !== expectedBody(payload)) throw new Error(`recording the replay tape (${payload}): the proxy returned other bytes than the upstream sent`);
  const lines = readFileSync(tape, 'utf8').trimEnd().split('\n').length;
  if (lines !== 2) throw new Error(`replay tape ${tape} has ${lines} lines, expected a header and one exchange`);
  return tape;
}

async function runTarget(target, payload) {
  const started = [];
  const name = `${target}-${payload}`;
  let tape;
  try {
    let port;
    let bare;
    if (target !== 'replay') {
      bare = await startChild('bare.mjs', { PAYLOAD: payload }, { name: `bare-${payload}` });
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
    const row = { target, payload, ...(await measure(port, payload, target)) };
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
          row.note = `tape grew to ${summary.recorded} exchanges, ${(bytes / 1e6).toFixed(1)} MB`;
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

const RATIOS = [
  { name: 'replay/bare', target: 'replay', base: 'bare', goal: 0.8 },
  { name: 'record/hop', target: 'record', base: 'hop', goal: 1.0 },
  { name: 'passthrough/hop', target: 'passthrough', base: 'hop', goal: 1.0 },
];

const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const thousands = (value) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a');

function markdownTable(headers, rows, align) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(align.map((a) => (a === 'r' ? '---:' : ':---'))), ...rows.map(line)].join('\n');
}

function report(rows, meta) {
  const byKey = new Map(rows.map((row) => [`${row.target}/${row.payload}`, row]));
  const resultRows = rows.map((row) => [
    row.target,
    row.payload,
    thousands(row.rps),
    fixed(row.p50, 2),
    fixed(row.p99, 2),
    thousands(row.requests),
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
      const value = target.rps / base.rps;
      const verdict = !valid ? 'invalid' : value >= ratio.goal ? 'pass' : 'MISS';
      verdicts.push(verdict);
      ratioRows.push([ratio.name, payload, fixed(value, 2), `≥ ${ratio.goal.toFixed(1)}`, verdict, `${fixed(target.p50 / base.p50, 2)} / ${fixed(target.p99 / base.p99, 2)}`]);
    }
  }
  const notes = rows.filter((row) => row.note || row.stderr).map((row) => `- ${row.target}/${row.payload}: ${[row.note, row.stderr && `stderr: ${row.stderr}`].filter(Boolean).join('; ')}`);
  const text = [
    '# modeltape proxy benchmark',
    '',
    `${meta.date} · Node ${process.version} · ${meta.cpus} · autocannon ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${SECONDS} s measured per run · POST ${REQUEST_PATH} · every server in its own process`,
    '',
    markdownTable(['target', 'payload', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'check'], resultRows, ['l', 'l', 'r', 'r', 'r', 'r', 'l']),
    '',
    markdownTable(['ratio (req/s)', 'payload', 'value', 'target', 'verdict', 'latency ratio p50 / p99'], ratioRows, ['l', 'l', 'r', 'r', 'l', 'r']),
    '',
    ...(notes.length > 0 ? [...notes, ''] : []),
    'Every row is checked: all responses 200, no errors or timeouts, and every body byte-identical to the expected one (autocannon expectBody). Replay serves a JSON body as the tape stores it, with keys sorted (canonical JSON), so its expected body is the same value in that order.',
    '',
    `Overall: ${verdicts.length === 0 ? 'no ratios measured' : verdicts.every((v) => v === 'pass') ? 'all targets met' : `${verdicts.filter((v) => v !== 'pass').length} of ${verdicts.length} ratios missed or invalid`}.`,
    '',
  ].join('\n');
  return text;
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const { cpus } = await import('node:os');
  const cpuList = cpus();
  const meta = { date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), cpus: `${cpuList.length} × ${cpuList[0]?.model.trim() ?? 'cpu'}` };
  tempDir = mkdtempSync(join(tmpdir(), 'modeltape-bench-'));
  const rows = [];
  const startedAt = Date.now();
  for (const payload of PAYLOADS) {
    for (const target of TARGETS) {
      process.stderr.write(`bench: ${target}/${payload} …`);
      const row = await runTarget(target, payload);
      rows.push(row);
      process.stderr.write(` ${thousands(row.rps)} req/s, p50 ${fixed(row.p50, 2)} ms, p99 ${fixed(row.p99, 2)} ms${row.problems.length ? ` INVALID: ${row.problems.join('; ')}` : ''}\n`);
    }
  }
  const text = report(rows, meta);
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, 'latest.md'), text);
  process.stdout.write(`\n${text}\nWritten to bench/results/latest.md (${((Date.now() - startedAt) / 1000).toFixed(0)} s).${PROFILE ? ` CPU profiles in ${PROFILE_DIR}.` : ''}\n`);
}

try {
  await main();
} catch (error) {
  process.stderr.write(`\nbench failed: ${error?.stack ?? error}\n`);
  process.exitCode = 1;
} finally {
  for (const child of [...children]) await stopChild(child);
  cleanupSync();
}
