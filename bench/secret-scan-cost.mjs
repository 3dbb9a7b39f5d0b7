// What the secret scan costs per recorded exchange, beside the record path without it, in one
// process and one run (this machine's speed drifts between runs). The record path is what
// proxy/http/proxy-server.ts does after the client has its answer: captureRequest, exchangeKey,
// encodeBody or FrameSplitter, redactResponseHeaders, then TapeWriter.append (serializeLine, the
// scan, the schema check) and the write. Run after `npm run build`:
//   node bench/secret-scan-cost.mjs [iterations]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  FrameSplitter,
  TapeWriter,
  captureRequest,
  compileKeyRules,
  encodeBody,
  exchangeKey,
  redactResponseHeaders,
  serializeLine,
} from '../dist/recordings/internal.js';
import { findSecrets } from '../dist/core/internal.js';
import { JSON_RESPONSE, SSE_FRAMES, UPSTREAM_PATH, requestBody } from './payloads.mjs';
import { writeResults } from './results.mjs';

const ITERATIONS = Number(process.argv[2] ?? 5_000);
const BUDGET = 0.1;
const keyRules = compileKeyRules();
const requestHeaders = { host: '127.0.0.1:1', 'content-type': 'application/json', 'user-agent': 'bench' };

function perCall(fn) {
  for (let i = 0; i < Math.min(1000, ITERATIONS); i++) fn();
  const started = process.hrtime.bigint();
  for (let i = 0; i < ITERATIONS; i++) fn();
  return Number(process.hrtime.bigint() - started) / 1e3 / ITERATIONS;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const dir = mkdtempSync(join(tmpdir(), 'modeltape-scan-cost-'));
const rows = [];
try {
  for (const payload of ['json', 'sse']) {
    const body = Buffer.from(requestBody(payload));
    const responseHeaders =
      payload === 'json'
        ? { 'content-type': 'application/json', 'x-request-id': 'req_bench' }
        : { 'content-type': 'text/event-stream', 'x-request-id': 'req_bench' };
    const writer = TapeWriter.open(join(dir, `${payload}.jsonl`), { keyRules });
    let exchange;
    const record = () => {
      const request = captureRequest({ method: 'POST', path: UPSTREAM_PATH, query: '', headers: requestHeaders, body }, keyRules);
      const response = { status: 200, headers: redactResponseHeaders(responseHeaders) };
      if (payload === 'json') response.body = encodeBody(JSON_RESPONSE, 'application/json', { exact: true });
      else {
        const splitter = new FrameSplitter('sse');
        for (const frame of SSE_FRAMES) splitter.push(frame, 0);
        response.stream = { format: 'sse', frames: splitter.finish(0) };
      }
      exchange = { key: exchangeKey('openai', request, keyRules), ordinal: 0, upstream: 'openai', source: 'live', request, response };
      writer.append(exchange);
      writer.flush();
    };
    // As TapeWriter.append scans: the exchange, with the line it serialized anyway as the pre-filter.
    const lines = new WeakMap();
    const lineOf = (value) => lines.get(value) ?? (lines.set(value, serializeLine(value)), lines.get(value));
    const scan = () => findSecrets(exchange, '', lineOf(exchange));
    // Interleaved rounds, medians: each ratio compares runs made moments apart.
    const recordTimes = [];
    const scanTimes = [];
    for (let round = 0; round < 5; round++) {
      recordTimes.push(perCall(record));
      scanTimes.push(perCall(scan));
    }
    writer.close();
    const recordMicros = median(recordTimes);
    const scanMicros = median(scanTimes);
    // append() scans itself: the path without the scan is the path minus the scan.
    const without = recordMicros - scanMicros;
    const share = scanMicros / without;
    rows.push([payload, serializeLine(exchange).length, without, scanMicros, share]);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
writeResults('secret-scan', {
  title: 'The secret scan per recorded exchange',
  command: 'npm run bench',
  body: [
    `${ITERATIONS} iterations × 5 rounds, medians; µs`,
    '',
    '| payload | line bytes | record path without scan | scan (findSecrets) | scan / record | target | verdict |',
    '|---|---:|---:|---:|---:|---:|---|',
    ...rows.map(
      ([payload, bytes, without, scan, share]) =>
        `| ${payload} | ${bytes} | ${without.toFixed(1)} | ${scan.toFixed(1)} | ${(share * 100).toFixed(1)} % | ≤ ${BUDGET * 100} % | ${share <= BUDGET ? 'pass' : 'MISS'} |`,
    ),
  ].join('\n'),
});
