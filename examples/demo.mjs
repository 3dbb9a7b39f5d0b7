// `npm start`: the whole loop, with no key and no network.
//   1. a FakeProvider stands in for OpenAI on a local port;
//   2. the recording proxy sits in front of it and records a tape while a small agent
//      (examples/weather.mjs: the official `openai` package and one tool) runs through it;
//   3. the fake is shut down, and the proxy replays the tape strictly and offline while the same
//      agent runs again: the answers must be identical, with no upstream connection.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import OpenAI from 'openai';
import { FakeProvider } from 'modeltape/fake-provider';
import { formatSummary, startProxy } from 'modeltape/proxy';
import { askForWeather } from './weather.mjs';

const tape = join(mkdtempSync(join(tmpdir(), 'modeltape-demo-')), 'weather.jsonl');
const quiet = () => {};

async function runAgent(baseURL, label) {
  const client = new OpenAI({ apiKey: 'demo-needs-no-key', baseURL, maxRetries: 0 });
  const result = await askForWeather(client, 'Paris');
  console.log(`${label}: ${result.toolCall.name}(${JSON.stringify(result.toolCall.arguments)}) → "${result.answer}" (${result.usage.total_tokens} tokens)`);
  return result;
}

// 1. The fake, scripted like the model would answer this agent: a tool call, then the answer.
const fake = new FakeProvider().willCallTool('get_weather', { city: 'Paris' }).willSay('It is 14°C with light rain in Paris.');
const server = await fake.listen({ port: 0 });

// 2. Record through the proxy. Recording is refused where CI is set unless allowed; this records
//    from the local fake only, never from a real model.
const recorder = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { openai: server.url }, log: quiet });
const recorded = await runAgent(recorder.baseUrls.openai, 'recorded');
const recordSummary = await recorder.close();
fake.assertConsumed();
await server.close();

// 3. Replay strictly, with the fake gone.
const replayer = await startProxy({ tape, mode: 'replay', log: quiet });
const replayed = await runAgent(replayer.baseUrls.openai, 'replayed');
const replaySummary = await replayer.close();

console.log();
console.log(formatSummary(recordSummary));
console.log(formatSummary(replaySummary));
console.log(`tape: ${tape} (source "fake": recorded from the FakeProvider)`);

const identical = isDeepStrictEqual(recorded, replayed);
const offline = replaySummary.upstreamConnections === 0 && replaySummary.misses === 0 && replaySummary.hits === recordSummary.recorded;
console.log(identical && offline ? 'replay: identical answers, 0 upstream connections' : 'replay: FAILED (answers differ or the replay was not offline)');
process.exitCode = identical && offline ? 0 : 1;
