import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, expect, test } from 'vitest';
import { loadTape } from 'modeltape/recordings';
import { AZURE_CONTENT_FILTER_ERROR, startAzureStandIn } from '../support/azure-upstream.js';
import { runMain } from '../support/cli.js';
import { fakeOpenAiKey } from '../support/fake-keys.js';
import type { StandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

const dir = tempDir({ inProject: true });
// An Azure key is 32 hex digits or 84 characters; this one says it is fake.
const FAKE_AZURE_KEY = fakeOpenAiKey('AZUREFAKE'.repeat(4));

// Unmodified application code: AzureOpenAI as its docs show it, reading everything from the
// environment. Under `modeltape run` it reads OPENAI_BASE_URL (the proxy's /openai/v1) first;
// the third client is built without it, as code that only reads AZURE_OPENAI_ENDPOINT would be.
const APP = `import { AzureOpenAI } from 'openai';
const apiVersion = '2024-10-21';
const byModel = new AzureOpenAI({ apiVersion, maxRetries: 0 });
const byDeployment = new AzureOpenAI({ apiVersion, deployment: process.env.DEPLOYMENT ?? 'gpt-4o-dev', maxRetries: 0 });
const out = {};
out.plain = await byModel.chat.completions.create({ model: 'gpt-4o-dev', messages: [{ role: 'user', content: process.env.PROMPT ?? 'Say hello' }] });
const stream = await byDeployment.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Count to three' }], stream: true, stream_options: { include_usage: true } });
out.chunks = [];
for await (const chunk of stream) out.chunks.push(chunk);
for (const [name, content] of [['blocked', 'Blocked: something hateful'], ['busy', 'Busy: one more']]) {
  try {
    await byDeployment.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }] });
    out[name] = 'answered';
  } catch (error) {
    out[name] = { status: error.status, code: error.code, error: error.error, retryAfterMs: error.headers?.get('retry-after-ms') ?? null };
  }
}
delete process.env.OPENAI_BASE_URL;
const byEndpoint = new AzureOpenAI({ apiVersion, deployment: 'gpt-4o-dev', maxRetries: 0 });
out.byEndpoint = await byEndpoint.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Say hello by endpoint' }] });
console.log(JSON.stringify(out));
`;

let standIn: StandInUpstream | undefined;
afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

function outputOf(stdout: string): Record<string, any> {
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, any>;
}

test('unmodified AzureOpenAI code records under modeltape run from the resource and replays offline with no endpoint or key', async () => {
  standIn = await startAzureStandIn();
  const port = new URL(standIn.url).port;
  const app = `${dir}/app.mjs`;
  writeFileSync(app, APP);
  const tape = `${dir}/azure.jsonl`;

  const recorded = await runMain(['run', '--tape', tape, '--mode', 'record', '--upstream', `azure=${standIn.url}`, '--', process.execPath, app], {
    env: { AZURE_OPENAI_API_KEY: FAKE_AZURE_KEY },
  });
  expect(recorded.code, recorded.stderr).toBe(0);
  const live = outputOf(recorded.stdout);

  // Each request reached the resource at Azure's own route, with its key in `api-key`, whichever
  // variable the client read (OPENAI_BASE_URL for the first four, AZURE_OPENAI_ENDPOINT for the last).
  expect(standIn.received.map((request) => `${request.method} ${request.url}`)).toEqual([
    'POST /openai/deployments/gpt-4o-dev/chat/completions?api-version=2024-10-21',
    'POST /openai/deployments/gpt-4o-dev/chat/completions?api-version=2024-10-21',
    'POST /openai/deployments/gpt-4o-dev/chat/completions?api-version=2024-10-21',
    'POST /openai/deployments/gpt-4o-dev/chat/completions?api-version=2024-10-21',
    'POST /openai/deployments/gpt-4o-dev/chat/completions?api-version=2024-10-21',
  ]);
  expect(standIn.received.map((request) => request.headers['api-key'])).toEqual(Array(5).fill(FAKE_AZURE_KEY));
  expect(live.plain.choices[0].message.content).toBe('Hello from deployment gpt-4o-dev: Say hello');
  expect(live.plain.prompt_filter_results[0].content_filter_results.jailbreak).toEqual({ filtered: false, detected: false });
  expect(live.plain.choices[0].content_filter_results.hate).toEqual({ filtered: false, severity: 'safe' });
  expect(live.chunks[0]).toMatchObject({ choices: [], prompt_filter_results: [{ prompt_index: 0 }] });
  expect(live.chunks.map((chunk: any) => chunk.choices[0]?.delta?.content ?? '').join('')).toBe('One, two, three.');
  expect(live.blocked).toEqual({ status: 400, code: 'content_filter', error: AZURE_CONTENT_FILTER_ERROR.error, retryAfterMs: null });
  expect(live.busy).toMatchObject({ status: 429, retryAfterMs: '6000' });
  expect(live.byEndpoint.choices[0].message.content).toBe('Hello from deployment gpt-4o-dev: Say hello by endpoint');
  await standIn.close();

  // The tape names the upstream `azure` and Azure's path; never the key, never the resource.
  const text = readFileSync(tape, 'utf8');
  const { exchanges } = loadTape(tape);
  expect(exchanges.map(({ exchange }) => [exchange.upstream, exchange.request.path, exchange.request.query, exchange.response.status])).toEqual([
    ['azure', '/openai/deployments/gpt-4o-dev/chat/completions', [['api-version', '2024-10-21']], 200],
    ['azure', '/openai/deployments/gpt-4o-dev/chat/completions', [['api-version', '2024-10-21']], 200],
    ['azure', '/openai/deployments/gpt-4o-dev/chat/completions', [['api-version', '2024-10-21']], 400],
    ['azure', '/openai/deployments/gpt-4o-dev/chat/completions', [['api-version', '2024-10-21']], 429],
    ['azure', '/openai/deployments/gpt-4o-dev/chat/completions', [['api-version', '2024-10-21']], 200],
  ]);
  expect(text).not.toContain(FAKE_AZURE_KEY);
  expect(text).not.toContain('AZUREFAKE');
  expect(text).not.toContain(`127.0.0.1:${port}`);
  expect(text).not.toContain(`:${port}`);

  // Replay: the resource is gone, no endpoint and no key is set (the run gives a placeholder).
  const replayed = await runMain(['run', '--tape', tape, '--', process.execPath, app]);
  expect(replayed.code, replayed.stderr).toBe(0);
  expect(outputOf(replayed.stdout)).toEqual(live);
  expect(replayed.stderr).toContain('5 hits, 0 misses');
  expect(replayed.stderr).toContain('0 upstream connections');
  expect(replayed.stderr).not.toContain(`:${port}`);
});

test('a changed prompt under replay misses and shows the nearest Azure recording it differs from', async () => {
  standIn = await startAzureStandIn();
  const app = `${dir}/app.mjs`;
  writeFileSync(app, APP);
  const tape = `${dir}/azure.jsonl`;
  const recorded = await runMain(['run', '--tape', tape, '--mode', 'record', '--', process.execPath, app], {
    env: { AZURE_OPENAI_API_KEY: FAKE_AZURE_KEY, AZURE_OPENAI_ENDPOINT: standIn.url },
  });
  expect(recorded.code, recorded.stderr).toBe(0);
  expect(standIn.received).toHaveLength(5);
  await standIn.close();

  const replayed = await runMain(['run', '--tape', tape, '--', process.execPath, app], { env: { PROMPT: 'Say goodbye' } });
  expect(replayed.code).not.toBe(0);
  expect(replayed.stderr).toContain('Failed to replay POST /openai/v1/deployments/gpt-4o-dev/chat/completions');
  expect(replayed.stderr).toContain('at .messages[0].content: recorded "Say hello" sent "Say goodbye"');
  expect(replayed.stderr).toContain('0 upstream connections');
});

test('without an endpoint, a request to record says which to set and sends nothing', async () => {
  const app = `${dir}/app.mjs`;
  writeFileSync(app, APP);
  const result = await runMain(['run', '--tape', `${dir}/none.jsonl`, '--mode', 'record', '--', process.execPath, app], {
    env: { AZURE_OPENAI_API_KEY: FAKE_AZURE_KEY },
  });
  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain('no Azure OpenAI endpoint is set: give the resource as --upstream azure=https://RESOURCE.openai.azure.com');
  expect(result.stderr).toContain('or set AZURE_OPENAI_ENDPOINT in the environment modeltape runs in');
  expect(result.stderr).not.toContain(FAKE_AZURE_KEY);
});

test('a resource that cannot be reached fails the recording without naming its host in the log or summary', async () => {
  const gone = await startAzureStandIn();
  const { url } = gone;
  const port = new URL(url).port;
  await gone.close();
  const app = `${dir}/app.mjs`;
  writeFileSync(app, APP);
  const result = await runMain(['run', '--tape', `${dir}/gone.jsonl`, '--mode', 'record', '--', process.execPath, app], {
    env: { AZURE_OPENAI_API_KEY: FAKE_AZURE_KEY, AZURE_OPENAI_ENDPOINT: url },
  });
  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain('Upstream "azure" (its Azure OpenAI resource) failed for POST /openai/deployments/gpt-4o-dev/chat/completions');
  expect(result.stderr).toContain('<azure resource>');
  expect(`${result.stdout}${result.stderr}`).not.toContain(`:${port}`);
  expect(`${result.stdout}${result.stderr}`).not.toContain(FAKE_AZURE_KEY);
});

test('rekey names the deployment rule as what changes each key, on the path', async () => {
  standIn = await startAzureStandIn();
  const app = `${dir}/app.mjs`;
  writeFileSync(app, APP);
  const tape = `${dir}/azure.jsonl`;
  const recorded = await runMain(['run', '--tape', tape, '--mode', 'record', '--upstream', `azure=${standIn.url}`, '--', process.execPath, app], {
    env: { AZURE_OPENAI_API_KEY: FAKE_AZURE_KEY },
  });
  expect(recorded.code, recorded.stderr).toBe(0);
  const config = `${dir}/modeltape.config.json`;
  writeFileSync(config, JSON.stringify({ normalizers: [{ pattern: '/deployments/[^/]+/', in: 'path', placeholder: '/deployments/<deployment>/' }] }));
  const rekeyed = await runMain(['rekey', '--dry-run', '--config', config, tape]);
  expect(rekeyed.code, rekeyed.stderr).toBe(0);
  const output = `${rekeyed.stdout}${rekeyed.stderr}`;
  expect(output.match(/\(added\) on the path \/openai\/deployments\/gpt-4o-dev\/chat\/completions/g)).toHaveLength(5);
});
