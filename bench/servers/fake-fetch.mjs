// The FakeProvider in process: no sockets, a tight loop of fake.fetch calls with CONCURRENCY
// calls outstanding, each reading its whole body (for SSE, the whole stream). Runs WARMUP seconds,
// then SECONDS measured, and reports to the parent: calls, CPU time, latency, checked bodies.
// PAYLOAD=json|sse picks the request (bench/payloads.mjs).
import { pathToFileURL } from 'node:url';
import { checkFakeResponse, normalizeFakeBody, sameAsTemplate, scriptFake } from '../fake-script.mjs';
import { requestBody } from '../payloads.mjs';

// BENCH_FAKE_MODULE: another build of dist/fake-provider/index.js to load instead (A/B a patched copy).
const { FakeProvider } = await import(process.env.BENCH_FAKE_MODULE ? pathToFileURL(process.env.BENCH_FAKE_MODULE).href : '../../dist/fake-provider/index.js');

const payload = process.env.PAYLOAD;
if (payload !== 'json' && payload !== 'sse') throw new Error(`PAYLOAD must be json or sse, not ${payload}`);
const SECONDS = Number(process.env.SECONDS);
const WARMUP = Number(process.env.WARMUP);
const CONCURRENCY = Number(process.env.CONCURRENCY);
const URL = 'http://fake.local/v1/chat/completions';
const INIT = { method: 'POST', headers: { 'content-type': 'application/json' }, body: requestBody(payload) };

const fake = scriptFake(new FakeProvider({ historyLimit: 1000 }));

async function call() {
  const response = await fake.fetch(URL, INIT);
  const body = await response.text();
  return { status: response.status, headers: Object.fromEntries(response.headers), body };
}

function report(message) {
  process.send(message, () => process.exit(0));
}

try {
  // One call checked field by field; every later body must be its bytes, ids aside.
  const first = await call();
  const firstProblems = checkFakeResponse(payload, first);
  if (firstProblems.length > 0) {
    report({ type: 'result', error: `the first response: ${firstProblems.join('; ')}` });
  } else {
    const verify = sameAsTemplate(normalizeFakeBody(first.body));
    const run = async (seconds, measured) => {
      const stats = { calls: 0, bad: 0, firstBad: undefined, latencyMs: 0 };
      const deadline = performance.now() + seconds * 1000;
      const worker = async () => {
        while (performance.now() < deadline) {
          const started = performance.now();
          const response = await fake.fetch(URL, INIT);
          const body = await response.text();
          if (measured) stats.latencyMs += performance.now() - started;
          stats.calls++;
          if (response.status !== 200 || !verify(body)) {
            stats.bad++;
            stats.firstBad ??= `status ${response.status}: ${body.slice(0, 200)}`;
          }
        }
      };
      if (measured) process.send({ type: 'measuring' });
      const cpuBefore = process.cpuUsage();
      const startedAt = performance.now();
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      const wallMs = performance.now() - startedAt;
      const cpu = process.cpuUsage(cpuBefore);
      return { ...stats, wallMs, cpuUs: cpu.user + cpu.system };
    };
    const warm = await run(WARMUP, false);
    const measured = await run(SECONDS, true);
    const last = await call();
    const lastProblems = checkFakeResponse(payload, last);
    const { heapUsed, rss } = process.memoryUsage();
    report({
      type: 'result',
      warmupCalls: warm.calls,
      bad: warm.bad + measured.bad,
      firstBad: warm.firstBad ?? measured.firstBad,
      calls: measured.calls,
      seconds: measured.wallMs / 1000,
      cpuUs: measured.cpuUs,
      meanLatencyUs: (measured.latencyMs * 1000) / measured.calls,
      lastProblems,
      lastSameAsFirst: verify(last.body),
      bodyBytes: first.body.length,
      fakeCalls: fake.callCount,
      heapUsedMb: heapUsed / 2 ** 20,
      rssMb: rss / 2 ** 20,
    });
  }
} catch (error) {
  report({ type: 'result', error: String(error?.stack ?? error) });
}
