// How long a large tape takes to open, what it costs in memory, and how soon a hit is answered
// and a miss explained: a report, not a test.
//
// Writes a realistic tape of BENCH_TAPE_EXCHANGES exchanges (default 100,000: chat requests with
// a system prompt and a growing conversation, JSON answers of ~1 KB, one in five a ~10-frame SSE
// stream), then opens it in a fresh child process as `modeltape run` does in replay (startProxy,
// listening and ready for the first request), sends one recorded request (a hit) and one that
// misses (a recorded one sent to another model) the moment the proxy listens, and reports the
// open time, the time to that hit's answer and to that miss's explanation (checked to name the
// recording it was drifted from), and the child's peak RSS over all of it against the tape's
// size. The baseline, measured in the same run in a child of its own: a bare line-by-line
// JSON.parse of the file. Targets (issue 36): open ≤ 2× the bare parse, peak RSS ≤ 1.5× the tape,
// first hit and first miss after load ≤ 50 ms each. BENCH_TAPE_ROUNDS (default 3) rounds, each an
// opening child and a bare child in turn; the medians are reported.
//
// Run alone: npm run build && node bench/tape-open.mjs   (npm run bench runs it after bench/run.mjs)
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
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
  const ordinals = new Map();
  for (let index = 0; index < exchanges; index++) {
    const streamed = index % 5 === 4;
    const body = benchRequestBody(index);
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

/** The request body the bench tape records at `index` (0-based; its line is index + 2). */
export function benchRequestBody(index) {
  const system = 'You are a helpful assistant for a parcel company. Answer briefly and cite the order number. ';
  const turns = 1 + (index % 4);
  const messages = [{ role: 'system', content: system.repeat(2) }];
  for (let turn = 0; turn < turns; turn++) {
    messages.push({ role: 'user', content: `Where is order ${index}-${turn}? It was due on day ${(index * 7 + turn) % 31}.` });
    if (turn < turns - 1) messages.push({ role: 'assistant', content: `Order ${index}-${turn} left the depot and arrives tomorrow.` });
  }
  return { model: 'gpt-4o-mini', messages, temperature: 0, ...(index % 5 === 4 ? { stream: true } : {}) };
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

/**
 * Opens the tape in a fresh child (`--open`): how long startProxy took to listen on it, how long
 * the hit and the miss sent right then took, the child's peak RSS. With `--bare`, the baseline:
 * how long a bare line-by-line JSON.parse of the file takes.
 */
function openInChild(file, exchanges, how = '--open') {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(import.meta.url), [how, file, String(exchanges)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('message', resolve);
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`the opening child exited with ${code}`))));
  });
}

// As a run opens it: a replay proxy listening, ready for the first request (startProxy reads the
// tape once, lazily; it once read it in full for its header first). The first request misses:
// a recorded one sent to another model, so its nearest recording is the one it came from.
async function openHere(file, exchanges) {
  const { startProxy } = await import(join(dist, 'proxy', 'index.js'));
  const drifted = Math.floor(exchanges * 0.4142);
  const body = benchRequestBody(drifted);
  // Another model: one leaf off its recording, two off every other (a changed message would tie
  // with hundreds of recordings of the same shape, more than the index shortlists).
  body.model = 'gpt-4o';
  const bodyText = JSON.stringify(body);
  // The first fetch() of a process loads undici's internals: not the proxy's time, so paid here.
  const warm = createServer((request, response) => response.end('ok'));
  await new Promise((resolve) => warm.listen(0, '127.0.0.1', resolve));
  await (await fetch(`http://127.0.0.1:${warm.address().port}/`, { method: 'POST', body: '{}' })).text();
  await new Promise((resolve) => warm.close(resolve));
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const proxy = await startProxy({ tape: file, mode: 'replay', log: () => undefined });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const used = process.cpuUsage(cpu);
  // How much of the miss is finding its nearest recording (the rest is the proxy's first request).
  let nearestMs = 0;
  const nearest = proxy.engine.nearest.bind(proxy.engine);
  proxy.engine.nearest = (...args) => {
    const nearestStarted = process.hrtime.bigint();
    try {
      return nearest(...args);
    } finally {
      nearestMs += Number(process.hrtime.bigint() - nearestStarted) / 1e6;
    }
  };
  // A hit first: a recorded request, as it was recorded.
  const hitStarted = process.hrtime.bigint();
  const hit = await fetch(`${proxy.baseUrls.openai}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-fake-bench' },
    body: JSON.stringify(benchRequestBody(Math.floor(exchanges * 0.7071))),
  });
  const hitText = await hit.text();
  const hitMs = Number(process.hrtime.bigint() - hitStarted) / 1e6;
  if (!hit.ok || !hitText.includes(`Order ${Math.floor(exchanges * 0.7071)} left the depot`))
    throw new Error(`the hit was not answered from its recording (status ${hit.status}): ${hitText.slice(0, 400)}`);
  const missStarted = process.hrtime.bigint();
  const response = await fetch(`${proxy.baseUrls.openai}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-fake-bench' },
    body: bodyText,
  });
  const explanation = await response.text();
  const missMs = Number(process.hrtime.bigint() - missStarted) / 1e6;
  const nearestLine = Number(/nearest at [^)]*:(\d+)\)/.exec(explanation)?.[1]);
  if (response.ok || nearestLine !== drifted + 2)
    throw new Error(`the miss was not explained by line ${drifted + 2} (status ${response.status}): ${explanation.slice(0, 400)}`);
  // Whatever the proxy does after listening (its warm-up) counts towards the peak too.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const size = proxy.engine.size;
  const rss = process.resourceUsage().maxRSS * 1024;
  await proxy.close();
  process.send({ ms, cpuMs: (used.user + used.system) / 1000, hitMs, missMs, nearestMs, size, rss });
}

// The baseline: every line of the file read and given to JSON.parse, nothing kept.
function bareParse(file) {
  const started = process.hrtime.bigint();
  const text = readFileSync(file, 'utf8');
  let lines = 0;
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (end > start) {
      JSON.parse(text.slice(start, end));
      lines++;
    }
    start = end + 1;
  }
  process.send({ ms: Number(process.hrtime.bigint() - started) / 1e6, lines });
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
    const bare = [];
    for (let round = 0; round < rounds; round++) {
      runs.push(await openInChild(file, exchanges));
      bare.push(await openInChild(file, exchanges, '--bare'));
    }
    for (const run of runs) if (run.size !== exchanges) throw new Error(`the engine holds ${run.size} exchanges, not ${exchanges}`);
    for (const run of bare) if (run.lines !== exchanges + 1) throw new Error(`the bare parse read ${run.lines} lines, not ${exchanges + 1}`);
    const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const ms = median(runs.map((run) => run.ms));
    const bareMs = median(bare.map((run) => run.ms));
    const rss = median(runs.map((run) => run.rss));
    return {
      exchanges,
      bytes,
      writeMs,
      ms,
      bareMs,
      openRatio: ms / bareMs,
      cpuMs: median(runs.map((run) => run.cpuMs)),
      hitMs: median(runs.map((run) => run.hitMs)),
      missMs: median(runs.map((run) => run.missMs)),
      nearestMs: median(runs.map((run) => run.nearestMs)),
      rss,
      rssRatio: rss / bytes,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The targets, each with its value and verdict. */
export function tapeOpenVerdicts(row) {
  const exchanges = row.exchanges.toLocaleString('en-US');
  return [
    { target: `open a ${exchanges}-exchange tape ≤ 2× a bare JSON.parse of its lines`, value: `${row.openRatio.toFixed(2)}×`, pass: row.openRatio <= 2 },
    { target: 'peak RSS ≤ 1.5× tape', value: `${row.rssRatio.toFixed(2)}×`, pass: row.rssRatio <= 1.5 },
    { target: 'first hit after load ≤ 50 ms', value: `${row.hitMs.toFixed(1)} ms`, pass: row.hitMs <= 50 },
    { target: 'first miss after load ≤ 50 ms', value: `${row.missMs.toFixed(1)} ms`, pass: row.missMs <= 50 },
  ];
}

/** The row as a markdown table, with the verdicts beneath it. */
export function tapeOpenReport(row) {
  const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  return [
    '### Opening a large tape (startProxy in replay mode, fresh child process)',
    '',
    '| exchanges | tape | open | bare JSON.parse | open / bare | CPU | first hit | first miss | of which nearest() | peak RSS | RSS / tape |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    `| ${row.exchanges.toLocaleString('en-US')} | ${mb(row.bytes)} | ${(row.ms / 1000).toFixed(2)} s | ${(row.bareMs / 1000).toFixed(2)} s | ${row.openRatio.toFixed(2)}× | ${(row.cpuMs / 1000).toFixed(2)} s | ${row.hitMs.toFixed(1)} ms | ${row.missMs.toFixed(1)} ms | ${row.nearestMs.toFixed(1)} ms | ${mb(row.rss)} | ${row.rssRatio.toFixed(2)}× |`,
    '',
    '| target | value | verdict |',
    '|:--|--:|:--|',
    ...tapeOpenVerdicts(row).map(({ target, value, pass }) => `| ${target} | ${value} | ${pass ? 'pass' : 'MISS'} |`),
    '',
    "open is wall time, CPU is the child's user + system time during the open: on a busy machine the first exceeds the second. bare JSON.parse: another child reads the file and parses each line, keeping nothing (the medians of rounds that alternate with the opening children). first hit: a recorded request sent the moment the proxy listens, until its answer is read; first miss: then a request that misses, until its explanation (naming the recording it was drifted from) is read; of which nearest(): the engine finding that recording. A tape over 32 MiB keeps none of its lines in memory: each is read again from the file when used. peak RSS: over the open, the hit, the miss and the half second after.",
    '',
  ].join('\n');
}

if (process.argv[2] === '--open') {
  await openHere(process.argv[3], Number(process.argv[4]));
} else if (process.argv[2] === '--bare') {
  bareParse(process.argv[3]);
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const exchanges = Number(process.env.BENCH_TAPE_EXCHANGES ?? 100_000);
  const rounds = Number(process.env.BENCH_TAPE_ROUNDS ?? 3);
  process.stderr.write(`bench: opening a ${exchanges.toLocaleString('en-US')}-exchange tape …`);
  const row = await measureTapeOpen({ exchanges, rounds });
  process.stderr.write(
    ` ${(row.ms / 1000).toFixed(2)} s (${row.openRatio.toFixed(2)}× a bare parse), first hit ${row.hitMs.toFixed(1)} ms, first miss ${row.missMs.toFixed(1)} ms, RSS ${row.rssRatio.toFixed(2)}× the tape (written in ${(row.writeMs / 1000).toFixed(1)} s)\n`,
  );
  process.stdout.write(`\n${tapeOpenReport(row)}`);
}
