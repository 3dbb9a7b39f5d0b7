// How long a large tape takes to open, and what it costs in memory: a report, not a test.
//
// Writes a realistic tape of BENCH_TAPE_EXCHANGES exchanges (default 100,000: chat requests with
// a system prompt and a growing conversation, JSON answers of ~1 KB, one in five a ~10-frame SSE
// stream), then opens it in a fresh child process as `modeltape run` does in replay (startProxy,
// listening and ready for the first request) and reports the open time and the child's peak RSS
// against the tape's size. Budget (issue 11): ≤ 1.5 s, RSS ≤ 2× the tape. BENCH_TAPE_ROUNDS (default 3) children;
// the median is reported.
//
// Run alone: npm run build && node bench/tape-open.mjs   (npm run bench runs it after bench/run.mjs)
import { fork } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'dist');

/** Writes the bench tape to `file`; returns how many exchanges it holds. */
export async function writeBenchTape(file, exchanges) {
  const { compileKeyRules, createHeader, exchangeKey, serializeLine, sha256Hex } = await import(join(dist, 'recordings', 'index.js'));
  const rules = compileKeyRules();
  const descriptor = openSync(file, 'w');
  let pending = serializeLine(createHeader(rules.rules));
  const flush = () => {
    writeSync(descriptor, pending);
    pending = '';
  };
  const system = 'You are a helpful assistant for a parcel company. Answer briefly and cite the order number. ';
  const ordinals = new Map();
  for (let index = 0; index < exchanges; index++) {
    const streamed = index % 5 === 4;
    const turns = 1 + (index % 4);
    const messages = [{ role: 'system', content: system.repeat(2) }];
    for (let turn = 0; turn < turns; turn++) {
      messages.push({ role: 'user', content: `Where is order ${index}-${turn}? It was due on day ${(index * 7 + turn) % 31}.` });
      if (turn < turns - 1) messages.push({ role: 'assistant', content: `Order ${index}-${turn} left the depot and arrives tomorrow.` });
    }
    const body = { model: 'gpt-4o-mini', messages, temperature: 0, ...(streamed ? { stream: true } : {}) };
    const bodyText = JSON.stringify(body);
    const request = {
      method: 'POST',
      path: '/v1/chat/completions',
      query: [],
      headers: { 'content-type': 'application/json' },
      body: { json: body },
      bodySha256: sha256Hex(bodyText),
    };
    const key = exchangeKey('openai', request, rules);
    const ordinal = ordinals.get(key) ?? 0;
    ordinals.set(key, ordinal + 1);
    const answer = `Order ${index} left the depot at 09:${String(index % 60).padStart(2, '0')} and is on its way. `.repeat(6);
    const response = streamed ? streamedResponse(index, answer) : jsonResponse(index, answer, sha256Hex);
    pending += serializeLine({ key, ordinal, upstream: 'openai', source: 'live', request, response });
    if (pending.length > 1 << 20) flush();
  }
  flush();
  closeSync(descriptor);
  return exchanges;
}

function jsonResponse(index, content, sha256Hex) {
  const json = {
    id: `chatcmpl-bench${index}`,
    object: 'chat.completion',
    created: 1730000000 + index,
    model: 'gpt-4o-mini-2024-07-18',
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null, annotations: [] }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 80, completion_tokens: 120, total_tokens: 200, prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 } },
    service_tier: 'default',
    system_fingerprint: 'fp_0ba0d124f1',
  };
  return { status: 200, headers: { 'content-type': 'application/json' }, body: { json, sha256: sha256Hex(JSON.stringify(json)) } };
}

function streamedResponse(index, content) {
  const chunk = (delta, finish = null) =>
    `data: ${JSON.stringify({ id: `chatcmpl-bench${index}`, object: 'chat.completion.chunk', created: 1730000000 + index, model: 'gpt-4o-mini', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`;
  const words = content.split(' ').slice(0, 8);
  const frames = [chunk({ role: 'assistant', content: '' }), ...words.map((word) => chunk({ content: `${word} ` })), chunk({}, 'stop'), 'data: [DONE]\n\n'];
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
    stream: { format: 'sse', frames: frames.map((text, at) => ({ atMs: at * 20, text })) },
  };
}

/** Opens the tape in a fresh child: how long startProxy took to listen on it, the child's peak RSS. */
function openInChild(file) {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), ['--open', file], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('message', resolve);
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`the opening child exited with ${code}`))));
  });
}

// As a run opens it: a replay proxy listening, ready for the first request (startProxy reads the
// tape once, lazily; it once read it in full for its header first).
async function openHere(file) {
  const { startProxy } = await import(join(dist, 'proxy', 'index.js'));
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const proxy = await startProxy({ tape: file, mode: 'replay', log: () => undefined });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const used = process.cpuUsage(cpu);
  const size = proxy.engine.size;
  const rss = process.resourceUsage().maxRSS * 1024;
  await proxy.close();
  process.send({ ms, cpuMs: (used.user + used.system) / 1000, size, rss });
}

/** Writes the tape, opens it `rounds` times, and returns the median row. */
export async function measureTapeOpen({ exchanges = 100_000, rounds = 3 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'modeltape-tape-open-'));
  try {
    const file = join(dir, 'large.jsonl');
    const writeStarted = Date.now();
    await writeBenchTape(file, exchanges);
    const writeMs = Date.now() - writeStarted;
    const bytes = statSync(file).size;
    const runs = [];
    for (let round = 0; round < rounds; round++) runs.push(await openInChild(file));
    for (const run of runs) if (run.size !== exchanges) throw new Error(`the engine holds ${run.size} exchanges, not ${exchanges}`);
    const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const ms = median(runs.map((run) => run.ms));
    const rss = median(runs.map((run) => run.rss));
    return { exchanges, bytes, writeMs, ms, cpuMs: median(runs.map((run) => run.cpuMs)), rss, rssRatio: rss / bytes };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The row as a markdown table, with the budget beside it. */
export function tapeOpenReport(row) {
  const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return [
    '### Opening a large tape (startProxy in replay mode, fresh child process)',
    '',
    '| exchanges | tape | open | CPU | peak RSS | RSS / tape | budget |',
    '|---:|---:|---:|---:|---:|---:|---|',
    `| ${row.exchanges.toLocaleString('en-US')} | ${mb(row.bytes)} | ${(row.ms / 1000).toFixed(2)} s | ${(row.cpuMs / 1000).toFixed(2)} s | ${mb(row.rss)} | ${row.rssRatio.toFixed(2)}× | ≤ 1.5 s, ≤ 2× ${row.ms <= 1500 && row.rssRatio <= 2 ? 'met' : 'MISSED'} |`,
    '',
    "open is wall time, CPU is the child's user + system time during the open: on a busy machine the first exceeds the second.",
    '',
  ].join('\n');
}

if (process.argv[2] === '--open') {
  await openHere(process.argv[3]);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const exchanges = Number(process.env.BENCH_TAPE_EXCHANGES ?? 100_000);
  const rounds = Number(process.env.BENCH_TAPE_ROUNDS ?? 3);
  process.stderr.write(`bench: opening a ${exchanges.toLocaleString('en-US')}-exchange tape …`);
  const row = await measureTapeOpen({ exchanges, rounds });
  process.stderr.write(` ${(row.ms / 1000).toFixed(2)} s, RSS ${row.rssRatio.toFixed(2)}× the tape (written in ${(row.writeMs / 1000).toFixed(1)} s)\n`);
  process.stdout.write(`\n${tapeOpenReport(row)}`);
}
