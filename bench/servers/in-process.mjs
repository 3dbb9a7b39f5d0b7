// One in-process target, no server of its own, in its own child: bench/in-process.mjs starts it,
// and it reports one result message. TARGET picks who answers the bench's OpenAI chat request:
//   fake      a FakeProvider with one sticky rule (bench/fake-script.mjs): fake.fetch
//   session   openTape(TAPE) in replay (modeltape/replay): session.fetch
//   fromtape  FakeProvider.fromTape(TAPE) (modeltape/fake-provider): its .fetch
//   snapshot  undici's SnapshotAgent in playback from SNAPSHOT (bench/peers/undici-snapshot.mjs),
//             fetch(SNAPSHOT_URL, { dispatcher }) with FETCH=undici|global
// MEASURE=rate: calls per second with CONCURRENCY calls outstanding, each reading its whole body
// (for SSE, the whole stream), WARMUP seconds, then SECONDS measured.
// MEASURE=cycle (session, fromtape): what a test pays per tape, sequentially: open the tape, one
// request, close (session.close(); for fromtape, assertConsumed()), beside a bare fake.fetch call
// and the tape's load time (FakeProvider.fromTape(TAPE), the replay engine reading the tape), and
// for session beside FakeProvider.fromTape(TAPE) + one request (issue 36's baseline), all in
// slices taken in turn so drift hits them alike; the medians of the slices.
// Every body is checked: the tape targets and the snapshot must answer bare's exact bytes, the fake
// its scripted answer (ids aside); at the end every answer must be counted by who gave it.
// PAYLOAD=json|sse picks the request (bench/payloads.mjs). BENCH_FAKE_MODULE: another build of
// dist/fake-provider/index.js for the fake (A/B a patch).
import { pathToFileURL } from 'node:url';
import { checkFakeResponse, normalizeFakeBody, sameAsTemplate, scriptFake } from '../fake-script.mjs';
import { expectedBody, requestBody } from '../payloads.mjs';

const payload = process.env.PAYLOAD;
if (payload !== 'json' && payload !== 'sse') throw new Error(`PAYLOAD must be json or sse, not ${payload}`);
const TARGET = process.env.TARGET;
const MEASURE = process.env.MEASURE ?? 'rate';
const SECONDS = Number(process.env.SECONDS);
const WARMUP = Number(process.env.WARMUP);
const CONCURRENCY = Number(process.env.CONCURRENCY);
const TAPE = process.env.TAPE;
// The provider's own host: session.fetch routes it to the tape's openai upstream, fromTape to its only one.
const URL = TARGET === 'fake' ? 'http://fake.local/v1/chat/completions' : 'https://api.openai.com/v1/chat/completions';
const INIT = { method: 'POST', headers: { 'content-type': 'application/json' }, body: requestBody(payload) };
const EXPECTED = expectedBody(payload);

const fakeModule = () => import(process.env.BENCH_FAKE_MODULE ? pathToFileURL(process.env.BENCH_FAKE_MODULE).href : '../../dist/fake-provider/index.js');
const { FakeProvider } = await fakeModule();

/** Problems with the first answer of a target that must serve bare's bytes. */
function exactProblems(first) {
  if (first.status !== 200) return [`status ${first.status}: ${first.body.slice(0, 300)}`];
  if (first.body !== EXPECTED) return [`other bytes than bare's (${first.body.length} bytes): ${first.body.slice(0, 200)}`];
  return [];
}

const exactly = (body) => body === EXPECTED;

/**
 * The target: `send()` makes one request; `check(first)` lists the problems of the first answer
 * and returns the check every later body must pass; `answered()` is how many answers the target
 * itself counted; `close()` ends it and lists what it reports wrong.
 */
async function openTarget() {
  if (TARGET === 'fake') {
    const fake = scriptFake(new FakeProvider({ historyLimit: 1000 }));
    return {
      send: () => fake.fetch(URL, INIT),
      check: (first) => ({ problems: checkFakeResponse(payload, first), verify: sameAsTemplate(normalizeFakeBody(first.body)) }),
      answered: () => fake.callCount,
      close: async () => [],
    };
  }
  if (TARGET === 'session') {
    const { openTape } = await import('../../dist/replay/index.js');
    const session = await openTape(TAPE, { repeat: 'last', config: false, env: {} });
    return {
      send: () => session.fetch(URL, INIT),
      check: (first) => ({ problems: exactProblems(first), verify: exactly }),
      answered: () => session.summary().hits,
      close: async () => sessionProblems(await session.close()),
    };
  }
  if (TARGET === 'fromtape') {
    const tapeFake = FakeProvider.fromTape(TAPE, { repeat: 'last' });
    return {
      send: () => tapeFake.fetch(URL, INIT),
      check: (first) => ({ problems: exactProblems(first), verify: exactly }),
      answered: () => tapeFake.summary().hits,
      close: async () => (tapeFake.summary().misses > 0 ? [`${tapeFake.summary().misses} misses: ${tapeFake.summary().problems[0]}`] : []),
    };
  }
  if (TARGET === 'snapshot') {
    const { playbackSnapshot } = await import('../peers/undici-snapshot.mjs');
    const agent = await playbackSnapshot({ file: process.env.SNAPSHOT, url: process.env.SNAPSHOT_URL, body: INIT.body, fetchKind: process.env.FETCH });
    return {
      send: agent.send,
      check: (first) => ({ problems: exactProblems(first), verify: exactly }),
      answered: agent.calls,
      close: async () => {
        await agent.close();
        return [];
      },
    };
  }
  throw new Error(`TARGET must be fake, session, fromtape or snapshot, not ${JSON.stringify(TARGET)}`);
}

/** What a session's close() reports wrong in a replay that must answer everything from the tape. */
function sessionProblems(summary) {
  const problems = [];
  if (summary.misses > 0) problems.push(`${summary.misses} misses`);
  if (summary.upstreamConnections !== 0) problems.push(`${summary.upstreamConnections} upstream connections`);
  if (summary.escapes.length > 0) problems.push(`${summary.escapes.length} escapes`);
  if (summary.problems.length > 0) problems.push(`problems: ${summary.problems.slice(0, 3).join(' | ')}`);
  return problems;
}

async function read(response) {
  const body = await response.text();
  return { status: response.status, headers: Object.fromEntries(response.headers), body };
}

function report(message) {
  process.send({ type: 'result', ...message }, () => process.exit(0));
}

/** MEASURE=rate. */
async function measureRate() {
  const target = await openTarget();
  const first = await read(await target.send());
  const { problems, verify } = target.check(first);
  if (problems.length > 0) return { error: `the first response: ${problems.join('; ')}` };
  const run = async (seconds, measured) => {
    const stats = { calls: 0, bad: 0, firstBad: undefined, latencyMs: 0 };
    const deadline = performance.now() + seconds * 1000;
    const worker = async () => {
      while (performance.now() < deadline) {
        const started = performance.now();
        const response = await target.send();
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
    if (measured) process.send({ type: 'measured' });
    return { ...stats, wallMs, cpuUs: cpu.user + cpu.system };
  };
  const warm = await run(WARMUP, false);
  const measured = await run(SECONDS, true);
  const last = await read(await target.send());
  const lastCheck = target.check(last);
  const answered = target.answered();
  const closeProblems = await target.close();
  const { heapUsed, rss } = process.memoryUsage();
  return {
    warmupCalls: warm.calls,
    bad: warm.bad + measured.bad,
    firstBad: warm.firstBad ?? measured.firstBad,
    calls: measured.calls,
    seconds: measured.wallMs / 1000,
    cpuUs: measured.cpuUs,
    meanLatencyUs: (measured.latencyMs * 1000) / measured.calls,
    lastProblems: [...lastCheck.problems, ...(verify(last.body) ? [] : ['other bytes than the first'])],
    closeProblems,
    bodyBytes: first.body.length,
    // Every answer, the first and last included, must be one the target counted.
    answered,
    sent: warm.calls + measured.calls + 2,
    heapUsedMb: heapUsed / 2 ** 20,
    rssMb: rss / 2 ** 20,
  };
}

/**
 * MEASURE=cycle: µs of one open + request + close, of one bare fake.fetch call, of loading the
 * tape, and (TARGET=session) of one FakeProvider.fromTape(tape) + request.
 */
async function measureCycle() {
  if (TARGET !== 'session' && TARGET !== 'fromtape') throw new Error(`MEASURE=cycle is for TARGET session or fromtape, not ${TARGET}`);
  const { openTape } = await import('../../dist/replay/index.js');
  const fake = scriptFake(new FakeProvider({ historyLimit: 1000 }));
  const fakeFirst = await read(await fake.fetch('http://fake.local/v1/chat/completions', INIT));
  const fakeProblems = checkFakeResponse(payload, fakeFirst);
  if (fakeProblems.length > 0) return { error: `the bare fake.fetch: ${fakeProblems.join('; ')}` };
  const fakeVerify = sameAsTemplate(normalizeFakeBody(fakeFirst.body));
  const problems = [];
  const note = (problem) => {
    if (problems.length < 5) problems.push(problem);
  };
  let fakeCalls = 1;
  const fromTapeCycle = async () => {
    const tapeFake = FakeProvider.fromTape(TAPE);
    const response = await tapeFake.fetch(URL, INIT);
    const body = await response.text();
    if (response.status !== 200 || !exactly(body)) note(`fromTape(tape).fetch answered ${response.status}: ${body.slice(0, 200)}`);
    tapeFake.assertConsumed();
  };
  const operations = {
    fake: async () => {
      const response = await fake.fetch('http://fake.local/v1/chat/completions', INIT);
      const body = await response.text();
      fakeCalls++;
      if (response.status !== 200 || !fakeVerify(body)) note(`fake.fetch answered ${response.status}: ${body.slice(0, 200)}`);
    },
    load: async () => {
      const tapeFake = FakeProvider.fromTape(TAPE);
      if (tapeFake.engine.size !== 1) note(`the tape loaded ${tapeFake.engine.size} exchanges`);
    },
    cycle:
      TARGET === 'session'
        ? async () => {
            const session = await openTape(TAPE, { config: false, env: {} });
            let summary;
            try {
              const response = await session.fetch(URL, INIT);
              const body = await response.text();
              if (response.status !== 200 || !exactly(body)) note(`session.fetch answered ${response.status}: ${body.slice(0, 200)}`);
            } finally {
              summary = await session.close();
            }
            if (summary.hits !== 1) note(`a session counted ${summary.hits} hits for its one request`);
            for (const problem of sessionProblems(summary)) note(problem);
          }
        : fromTapeCycle,
    // What issue 36 measures a session's cycle against, in the same child.
    ...(TARGET === 'session' ? { fromtape: fromTapeCycle } : {}),
  };
  /** Runs one operation sequentially for `seconds`; wall and CPU µs per operation. */
  const slice = async (operation, seconds) => {
    let count = 0;
    const cpuBefore = process.cpuUsage();
    const startedAt = performance.now();
    const deadline = startedAt + seconds * 1000;
    while (performance.now() < deadline) {
      await operation();
      count++;
    }
    const wallUs = (performance.now() - startedAt) * 1000;
    const cpu = process.cpuUsage(cpuBefore);
    return { count, us: wallUs / count, cpuUs: (cpu.user + cpu.system) / count };
  };
  const names = Object.keys(operations);
  for (const name of names) await slice(operations[name], WARMUP / names.length);
  process.send({ type: 'measuring' });
  const SLICES = 5;
  const slices = Object.fromEntries(names.map((name) => [name, []]));
  for (let index = 0; index < SLICES; index++) {
    for (const name of names) slices[name].push(await slice(operations[name], SECONDS / SLICES / names.length));
  }
  process.send({ type: 'measured' });
  const median = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    const middle = sorted.length >> 1;
    return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  };
  const summary = (name) => ({
    us: median(slices[name].map((entry) => entry.us)),
    cpuUs: median(slices[name].map((entry) => entry.cpuUs)),
    count: slices[name].reduce((sum, entry) => sum + entry.count, 0),
  });
  if (fake.callCount !== fakeCalls) problems.push(`the fake counted ${fake.callCount} calls for ${fakeCalls}`);
  return { cycle: summary('cycle'), fake: summary('fake'), load: summary('load'), ...(operations.fromtape ? { fromtape: summary('fromtape') } : {}), problems };
}

try {
  report(MEASURE === 'cycle' ? await measureCycle() : await measureRate());
} catch (error) {
  report({ error: String(error?.stack ?? error) });
}
