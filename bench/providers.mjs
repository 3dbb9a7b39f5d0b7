// Each wire API the fake and replay speak, measured the same way in one process and one run (this
// machine's speed drifts between runs, so only ratios within a run mean anything):
//   fake     FakeProvider fake.fetch, one sticky rule, calls per second, JSON and streamed;
//   replay   openTape(tape).fetch in strict replay of a tape recorded from the fake (the session's
//            loopback proxy, the replay engine, the guard), calls per second, JSON and streamed.
// Each row is an API's rate against OpenAI chat's on the same path; the goal is at least 0.5×:
// no API the fake or replay speaks may be much slower than the one most suites use.
// Run after `npm run build`:  node bench/providers.mjs   (BENCH_PROVIDER_SECONDS, default 1.5)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeProvider } from '../dist/fake-provider/index.js';
import { openTape } from '../dist/replay/index.js';
import { writeResults } from './results.mjs';

const SECONDS = Number(process.env.BENCH_PROVIDER_SECONDS ?? 1.5);
const WARMUP = Math.round(Math.min(0.5, SECONDS / 3) * 100) / 100;
// Every cell is measured in each round and its best kept: the first cells would otherwise pay for
// the JIT warming up, and a busy machine slows one cell, not all of them alike.
const ROUNDS = Number(process.env.BENCH_PROVIDER_ROUNDS ?? 2);
const CONCURRENCY = 10;
const GOAL = 0.5;
const TEXT = 'Hello! How can I help you today? I can answer questions, draft text, or explain code. Ask me about the weather or a bug.';

/** One request per API, as its official client sends it (model, conversation, stream flag). */
const APIS = [
  {
    api: 'openai-chat',
    url: () => 'https://api.openai.com/v1/chat/completions',
    body: (stream) => ({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], ...(stream ? { stream: true } : {}) }),
  },
  {
    api: 'openai-responses',
    url: () => 'https://api.openai.com/v1/responses',
    body: (stream) => ({ model: 'gpt-4o', input: 'Hi', ...(stream ? { stream: true } : {}) }),
  },
  {
    api: 'anthropic-messages',
    url: () => 'https://api.anthropic.com/v1/messages',
    headers: { 'anthropic-version': '2023-06-01' },
    body: (stream) => ({ model: 'claude-sonnet-4-5', max_tokens: 256, messages: [{ role: 'user', content: 'Hi' }], ...(stream ? { stream: true } : {}) }),
  },
  {
    api: 'gemini-generate',
    url: (stream) => `https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
    body: () => ({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }),
  },
  {
    api: 'ollama-chat',
    url: () => 'http://127.0.0.1:11434/api/chat',
    body: (stream) => ({ model: 'llama3.2', messages: [{ role: 'user', content: 'Hi' }], stream }),
  },
];

function init(entry, stream) {
  return { method: 'POST', headers: { 'content-type': 'application/json', ...entry.headers }, body: JSON.stringify(entry.body(stream)) };
}

/** Calls per second of `send` with CONCURRENCY outstanding, each reading its whole body; a non-200 stops the run. */
async function rate(send) {
  const loop = async (seconds) => {
    let calls = 0;
    const deadline = performance.now() + seconds * 1000;
    const worker = async () => {
      while (performance.now() < deadline) {
        const response = await send();
        const text = await response.text();
        if (response.status !== 200) throw new Error(`answered ${response.status}: ${text.slice(0, 300)}`);
        calls++;
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return calls / ((performance.now() - started) / 1000);
  };
  await loop(WARMUP);
  return loop(SECONDS);
}

function scripted() {
  const fake = new FakeProvider({ historyLimit: 100 });
  fake.when(() => true, { always: true }).willSay(TEXT);
  return fake;
}

const dir = mkdtempSync(join(tmpdir(), 'modeltape-bench-providers-'));
const rows = [];
const best = (previous, value) => (Number.isFinite(previous) ? Math.max(previous, value) : value);
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const entry of APIS) {
      for (const stream of [false, true]) {
        const payload = stream ? 'stream' : 'json';
        let row = rows.find((candidate) => candidate.api === entry.api && candidate.payload === payload);
        if (row === undefined) {
          row = { api: entry.api, payload, fake: NaN, replay: NaN, problems: [] };
          rows.push(row);
        }
        if (row.problems.length > 0) continue;
        try {
          const fake = scripted();
          row.fake = best(row.fake, await rate(() => fake.fetch(entry.url(stream), init(entry, stream))));
        } catch (error) {
          row.problems.push(`fake: ${error.message}`);
        }
        // A tape recorded from the fake over HTTP, then replayed strictly, repeating its one exchange.
        // Each round records its own tape: a second recording into one tape would append.
        const tape = join(dir, `${entry.api}-${payload}-${round}.jsonl`);
        const server = await scripted().listen();
        try {
          const upstreams = { openai: server.url, anthropic: server.url, gemini: server.url, ollama: server.url };
          // session.fetch maps the providers' public hosts to their upstreams; Ollama's is a local
          // port, which the session does not take over, so its requests name the upstream itself.
          const url = (streamed) => entry.url(streamed).replace('http://127.0.0.1:11434', server.url);
          const recording = await openTape(tape, { mode: 'record', upstreams, config: false });
          const recorded = await recording.fetch(url(stream), init(entry, stream));
          await recorded.text();
          await recording.close();
          if (recorded.status !== 200) throw new Error(`recording answered ${recorded.status}`);
          const session = await openTape(tape, { upstreams, repeat: 'last', config: false });
          try {
            row.replay = best(row.replay, await rate(() => session.fetch(url(stream), init(entry, stream))));
          } finally {
            await session.close().catch(() => undefined);
          }
        } catch (error) {
          row.problems.push(`replay: ${error.message}`);
        } finally {
          await server.close();
        }
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const baseline = (payload) => rows.find((row) => row.api === 'openai-chat' && row.payload === payload);
const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
let failed = false;
const lines = [
  `${CONCURRENCY} calls outstanding, ${WARMUP} s warm-up + ${SECONDS} s measured per cell, best of ${ROUNDS} rounds · goal ≥ ${GOAL}× OpenAI chat`,
  '',
  '| API | payload | fake.fetch calls/s | × chat | replay calls/s | × chat | verdict |',
  '|---|---|---:|---:|---:|---:|---|',
];
for (const row of rows) {
  const base = baseline(row.payload);
  const fakeRatio = row.fake / base.fake;
  const replayRatio = row.replay / base.replay;
  const met = row.problems.length === 0 && fakeRatio >= GOAL && replayRatio >= GOAL;
  if (!met) failed = true;
  lines.push(
    `| ${row.api} | ${row.payload} | ${fixed(row.fake, 0)} | ${fixed(fakeRatio, 2)} | ${fixed(row.replay, 0)} | ${fixed(replayRatio, 2)} | ${met ? 'met' : `MISSED${row.problems.length > 0 ? `: ${row.problems.join('; ').slice(0, 200)}` : ''}`} |`,
  );
}
writeResults('providers', {
  title: 'Each wire API, fake and replay, against OpenAI chat in the same run',
  command: 'npm run bench:providers',
  body: lines.join('\n'),
});
if (failed) process.exitCode = 1;
