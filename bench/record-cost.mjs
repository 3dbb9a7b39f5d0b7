// What record mode does per exchange, step by step, timed in one process (no sockets): the work
// proxy/proxy-server.ts does in ResponseRecording and onResponseEnd after the client has its
// response. Run after `npm run build`:  node --expose-gc bench/record-cost.mjs [iterations]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FrameSplitter,
  TapeWriter,
  canonicalJson,
  captureRequest,
  compileKeyRules,
  encodeBody,
  exchangeKey,
  redactResponseHeaders,
  serializeLine,
} from '../dist/recordings/internal.js';
import { mayHoldSecret } from '../dist/core/internal.js';
import { ReplayEngine } from '../dist/lookup/internal.js';
import { JSON_RESPONSE, SSE_FRAMES, UPSTREAM_PATH, requestBody } from './payloads.mjs';

const ITERATIONS = Number(process.argv[2] ?? 20_000);
const keyRules = compileKeyRules();
const requestHeaders = {
  host: '127.0.0.1:1',
  connection: 'keep-alive',
  'content-type': 'application/json',
  'content-length': '70',
  'user-agent': 'autocannon',
};
const responseHeaders = {
  json: {
    'content-type': 'application/json',
    'content-length': String(JSON_RESPONSE.length),
    'x-request-id': 'req_bench',
    date: new Date().toUTCString(),
    connection: 'keep-alive',
    'keep-alive': 'timeout=5',
  },
  sse: {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-request-id': 'req_bench',
    date: new Date().toUTCString(),
    connection: 'keep-alive',
    'keep-alive': 'timeout=5',
    'transfer-encoding': 'chunked',
  },
};

// A faster canonical JSON to compare with fast-json-stable-stringify: copy with sorted keys, then
// let V8's native JSON.stringify write it. Same output for plain JSON data.
function sortedCopy(value) {
  if (Array.isArray(value)) return value.map(sortedCopy);
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const name of Object.keys(value).sort()) if (value[name] !== undefined) out[name] = sortedCopy(value[name]);
  return out;
}
const nativeCanonical = (value) => JSON.stringify(sortedCopy(value));

function time(label, fn, results) {
  for (let i = 0; i < Math.min(2000, ITERATIONS); i++) fn(i); // warm up the JIT
  const started = process.hrtime.bigint();
  for (let i = 0; i < ITERATIONS; i++) fn(i);
  const micros = Number(process.hrtime.bigint() - started) / 1e3 / ITERATIONS;
  results.push([label, micros]);
  return micros;
}

const dir = mkdtempSync(join(tmpdir(), 'modeltape-record-cost-'));
try {
  for (const payload of ['json', 'sse']) {
    const body = Buffer.from(requestBody(payload));
    const results = [];
    const raw = { method: 'POST', path: UPSTREAM_PATH, query: '', headers: requestHeaders, body };
    const recordedRequest = captureRequest(raw, keyRules);
    const key = exchangeKey('openai', recordedRequest, keyRules);

    time('captureRequest (sha256 + JSON.parse of the request body)', () => captureRequest(raw, keyRules), results);
    time('exchangeKey (canonical JSON of key inputs + sha256)', () => exchangeKey('openai', recordedRequest, keyRules), results);

    let response;
    if (payload === 'json') {
      time('response: Buffer.concat + encodeBody (utf8 check + JSON.parse)', () => encodeBody(Buffer.concat([JSON_RESPONSE]), 'application/json'), results);
      response = { status: 200, headers: redactResponseHeaders(responseHeaders.json), body: encodeBody(JSON_RESPONSE, 'application/json') };
    } else {
      const split = () => {
        const splitter = new FrameSplitter('sse');
        for (const frame of SSE_FRAMES) splitter.push(frame, 0);
        return splitter.finish(0);
      };
      time('response: FrameSplitter push ×11 + finish', split, results);
      response = { status: 200, headers: redactResponseHeaders(responseHeaders.sse), stream: { format: 'sse', frames: split() } };
    }
    time('redactResponseHeaders', () => redactResponseHeaders(responseHeaders[payload]), results);
    const exchange = { key, ordinal: 0, upstream: 'openai', source: 'live', request: recordedRequest, response };
    const line = serializeLine(exchange);
    const serializeMicros = time(`serializeLine (fast-json-stable-stringify, ${line.length} B line)`, () => serializeLine(exchange), results);
    if (nativeCanonical(exchange) + '\n' !== line) throw new Error('native canonical JSON differs from canonicalJson');
    const nativeMicros = time('  for comparison: sorted copy + native JSON.stringify (same bytes)', () => nativeCanonical(exchange), results);
    time('mayHoldSecret over the line (one regex pass)', () => mayHoldSecret(line), results);

    const writer = TapeWriter.open(join(dir, `${payload}.jsonl`), { keyRules });
    time(
      'TapeWriter.append + flush (serializeLine + mayHoldSecret again, the schema check if any, writeSync)',
      () => {
        writer.append(exchange);
        writer.flush();
      },
      results,
    );
    writer.close();

    const engine = new ReplayEngine({ file: 'x', keyRules });
    globalThis.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    // Newer builds count record-mode exchanges without keeping them (countRecorded).
    const counts = typeof engine.countRecorded === 'function';
    time(
      counts ? 'engine.nextOrdinal + countRecorded' : 'engine.nextOrdinal + addRecorded (keeps every exchange)',
      () => {
        const copy = { ...exchange, ordinal: engine.nextOrdinal(key) };
        if (counts) engine.countRecorded(copy);
        else engine.addRecorded(copy);
      },
      results,
    );
    globalThis.gc?.();
    const retained = (process.memoryUsage().heapUsed - heapBefore) / ITERATIONS;

    // serializeLine and mayHoldSecret are timed alone too, but append does them itself.
    const counted = (label) => !label.startsWith('  ') && !label.startsWith('serializeLine') && !label.startsWith('mayHoldSecret');
    const total = results.filter(([label]) => counted(label)).reduce((sum, [, micros]) => sum + micros, 0);
    console.log(`\n${payload}: record-mode work per exchange (${ITERATIONS} iterations; µs)`);
    for (const [label, micros] of results) console.log(`${micros.toFixed(1).padStart(8)}  ${label}`);
    console.log(`${total.toFixed(1).padStart(8)}  total (append counted once)`);
    console.log(
      `          sorted copy + native JSON.stringify is ${(serializeMicros / nativeMicros).toFixed(1)}× faster than serializeLine` +
        (globalThis.gc
          ? `; heap kept per recorded exchange by the engine: ~${(retained / 1024).toFixed(2)} KB (this loop shares one exchange's objects; a live proxy keeps each exchange's own)`
          : ' (run with --expose-gc to see the heap the engine retains)'),
    );
    void canonicalJson;
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
