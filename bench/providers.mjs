// Each wire API the fake and replay speak, measured the same way in one process and one run (this
// machine's speed drifts between runs, so only ratios within a run mean anything):
//   fake     FakeProvider fake.fetch, one sticky rule, calls per second, JSON and streamed;
//   replay   openTape(tape).fetch in strict replay of a tape recorded from the fake (the session's
//            loopback proxy, the replay engine, the guard), calls per second, JSON and streamed.
// Each row is an API's rate against OpenAI chat's on the same path; the goal is at least 0.5×:
// no API the fake or replay speaks may be much slower than the one most suites use. Bedrock's rows
// record through a proxy that signs each request again with AWS credentials: placeholders, set
// below (the upstream is the fake, which checks no signature). Azure OpenAI's row has a replay
// column only while the fake does not answer Azure's deployment routes: its tape is recorded from
// the fake's chat completions through a small server here that takes Azure's route.
// Run after `npm run build`:  node bench/providers.mjs   (BENCH_PROVIDER_SECONDS, default 1.5)
// To measure some rows only: BENCH_ONLY (comma list of row labels, as the table names them: `azure
// (chat completions)`, `bedrock-invoke (Nova)`; OpenAI chat, the baseline, is always measured),
// BENCH_PAYLOADS (json,stream), BENCH_PATHS (fake,replay). A filtered run prints its table and
// leaves bench/results/providers.md alone: that page is a full run's.
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
const BASELINE = 'openai-chat';
// Placeholder AWS credentials for the recording proxy's SigV4 signer, never real ones: nothing here reaches AWS.
process.env.AWS_ACCESS_KEY_ID = 'AKIDBENCHPLACEHOLDER';
process.env.AWS_SECRET_ACCESS_KEY = 'modeltape-bench-placeholder-secret';
delete process.env.AWS_SESSION_TOKEN;
delete process.env.AWS_PROFILE;
process.env.AWS_EC2_METADATA_DISABLED = 'true';

const CLAUDE_ON_BEDROCK = encodeURIComponent('anthropic.claude-3-5-haiku-20241022-v1:0');
const NOVA = encodeURIComponent('us.amazon.nova-micro-v1:0');
const BEDROCK = 'https://bedrock-runtime.us-east-1.amazonaws.com';
const AZURE = 'https://modeltape-bench.openai.azure.com';
const VERTEX = 'https://us-central1-aiplatform.googleapis.com/v1/projects/modeltape-bench/locations/us-central1';
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
  {
    api: 'bedrock-converse',
    url: (stream) => `${BEDROCK}/model/${CLAUDE_ON_BEDROCK}/${stream ? 'converse-stream' : 'converse'}`,
    body: () => ({ messages: [{ role: 'user', content: [{ text: 'Hi' }] }], inferenceConfig: { maxTokens: 256 } }),
  },
  {
    api: 'bedrock-invoke',
    label: 'bedrock-invoke (Claude)',
    url: (stream) => `${BEDROCK}/model/${CLAUDE_ON_BEDROCK}/${stream ? 'invoke-with-response-stream' : 'invoke'}`,
    body: () => ({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 256, messages: [{ role: 'user', content: 'Hi' }] }),
  },
  {
    api: 'bedrock-invoke',
    label: 'bedrock-invoke (Nova)',
    url: (stream) => `${BEDROCK}/model/${NOVA}/${stream ? 'invoke-with-response-stream' : 'invoke'}`,
    body: () => ({ messages: [{ role: 'user', content: [{ text: 'Hi' }] }], inferenceConfig: { max_new_tokens: 256 } }),
  },
  {
    // Azure OpenAI's deployment route, as AzureOpenAI sends it: the deployment in the path, api-version in the query, the api-key header.
    api: 'azure',
    label: 'azure (chat completions)',
    url: () => `${AZURE}/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21`,
    headers: { 'api-key': 'fake-key' },
    body: (stream) => ({ messages: [{ role: 'user', content: 'Hi' }], ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}) }),
  },
  {
    // Gemini on Vertex AI, at a location's own host, with the bearer token Google's auth library gets.
    api: 'vertex',
    label: 'vertex (Gemini generateContent)',
    url: (stream) => `${VERTEX}/publishers/google/models/gemini-2.5-flash:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
    headers: { authorization: 'Bearer modeltape-bench-placeholder-token' },
    body: () => ({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }),
  },
  {
    // Claude on Vertex AI: the model in the path, the API version in the body.
    api: 'vertex',
    label: 'vertex (Claude rawPredict)',
    url: (stream) => `${VERTEX}/publishers/anthropic/models/claude-sonnet-4-5@20250929:${stream ? 'streamRawPredict' : 'rawPredict'}`,
    headers: { authorization: 'Bearer modeltape-bench-placeholder-token' },
    body: (stream) => ({
      anthropic_version: 'vertex-2023-10-16',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Hi' }],
      ...(stream ? { stream: true } : {}),
    }),
  },
];

const LABELS = APIS.map((entry) => entry.label ?? entry.api);
const ONLY = list('BENCH_ONLY', LABELS);
const PAYLOADS = list('BENCH_PAYLOADS', ['json', 'stream']);
const PATHS = list('BENCH_PATHS', ['fake', 'replay']);
const FILTERED = ONLY.length < LABELS.length || PAYLOADS.length < 2 || PATHS.length < 2;
const MEASURED = APIS.filter((entry) => (entry.label ?? entry.api) === BASELINE || ONLY.includes(entry.label ?? entry.api));

/** The items of a comma list in env variable `name`, each one of `all` (all of them when unset). */
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

/** The fake over HTTP: every upstream of the tapes. */
function upstream() {
  return scripted().listen();
}

const dir = mkdtempSync(join(tmpdir(), 'modeltape-bench-providers-'));
const rows = [];
const best = (previous, value) => (Number.isFinite(previous) ? Math.max(previous, value) : value);
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const entry of MEASURED) {
      for (const stream of [false, true]) {
        const payload = stream ? 'stream' : 'json';
        if (!PAYLOADS.includes(payload)) continue;
        const label = entry.label ?? entry.api;
        let row = rows.find((candidate) => candidate.label === label && candidate.payload === payload);
        if (row === undefined) {
          row = { label, api: entry.api, payload, fake: NaN, replay: NaN, problems: [] };
          rows.push(row);
        }
        if (row.problems.length > 0) continue;
        if (PATHS.includes('fake'))
          try {
            const fake = scripted();
            row.fake = best(row.fake, await rate(() => fake.fetch(entry.url(stream), init(entry, stream))));
          } catch (error) {
            row.problems.push(`fake: ${error.message}`);
          }
        if (!PATHS.includes('replay')) continue;
        // A tape recorded from the fake over HTTP, then replayed strictly, repeating its one exchange.
        // Each round records its own tape: a second recording into one tape would append.
        const tape = join(dir, `${label.replace(/\W+/g, '-')}-${payload}-${round}.jsonl`);
        const server = await upstream();
        try {
          const upstreams = {
            openai: server.url,
            anthropic: server.url,
            gemini: server.url,
            ollama: server.url,
            bedrock: server.url,
            azure: `${server.url}/azure`,
            vertex: server.url,
          };
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

const baseline = (payload) => rows.find((row) => row.label === BASELINE && row.payload === payload);
// A path a filtered run does not measure counts against no row.
const meets = (path, ratio) => !PATHS.includes(path) || ratio >= GOAL;
const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
let failed = false;
const lines = [
  `${CONCURRENCY} calls outstanding, ${WARMUP} s warm-up + ${SECONDS} s measured per cell, best of ${ROUNDS} rounds · goal ≥ ${GOAL}× OpenAI chat`,
  '',
  '| API | payload | fake.fetch calls/s | × chat | replay calls/s | × chat | verdict |',
  '|---|---|---:|---:|---:|---:|---|',
];
const notes = ['', 'Bedrock rows record through the proxy, which signs each request again (SigV4) with placeholder credentials; replay signs nothing.'];
for (const row of rows) {
  const base = baseline(row.payload);
  const fakeRatio = row.fake / base.fake;
  const replayRatio = row.replay / base.replay;
  const met = row.problems.length === 0 && meets('fake', fakeRatio) && meets('replay', replayRatio);
  if (!met) failed = true;
  lines.push(
    `| ${row.label} | ${row.payload} | ${fixed(row.fake, 0)} | ${fixed(fakeRatio, 2)} | ${fixed(row.replay, 0)} | ${fixed(replayRatio, 2)} | ${met ? 'met' : `MISSED${row.problems.length > 0 ? `: ${row.problems.join('; ').slice(0, 200)}` : ''}`} |`,
  );
}
if (FILTERED)
  console.log(`Only ${ONLY.join(', ')} · ${PAYLOADS.join(', ')} · ${PATHS.join(', ')} (not written to bench/results/providers.md)\n\n${lines.join('\n')}`);
else
  writeResults('providers', {
    title: 'Each wire API, fake and replay, against OpenAI chat in the same run',
    command: 'npm run bench:providers',
    body: [...lines, ...notes].join('\n'),
  });
if (failed) process.exitCode = 1;
