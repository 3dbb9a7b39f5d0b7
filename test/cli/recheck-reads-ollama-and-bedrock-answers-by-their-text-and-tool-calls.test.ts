import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeProvider } from 'modeltape/fake-provider';
import { startProxy } from 'modeltape/proxy';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runMain, type CliResult } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

// Ollama's /api/chat and /api/generate, and Bedrock's Converse and InvokeModel (a Claude and a
// Nova body), streamed and not, recorded from one FakeProvider script and rechecked against a
// changed one: each answer is read for its text and its tool calls, not only its status and finish.

// Placeholder credentials the proxy signs Bedrock requests with; built at runtime so no file holds
// an access-key-shaped literal.
const AWS = { AWS_ACCESS_KEY_ID: ['AKIA', 'FAKE'.repeat(4)].join(''), AWS_SECRET_ACCESS_KEY: `fake-secret-${'S'.repeat(28)}`, AWS_REGION: 'us-east-1' };
const CLAUDE = encodeURIComponent('anthropic.claude-3-5-haiku-20241022-v1:0');
const NOVA = encodeURIComponent('amazon.nova-lite-v1:0');
const SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

interface Request {
  upstream: 'ollama' | 'bedrock';
  path: string;
  body: unknown;
}
const converse = (text: string, tools = false): unknown => ({
  messages: [{ role: 'user', content: [{ text }] }],
  ...(tools ? { toolConfig: { tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: SCHEMA } } }] } } : {}),
});
const REQUESTS: Request[] = [
  { upstream: 'ollama', path: '/api/chat', body: { model: 'llama3.2', stream: false, messages: [{ role: 'user', content: 'Say hello' }] } },
  {
    upstream: 'ollama',
    path: '/api/chat',
    body: {
      model: 'llama3.2',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: SCHEMA } }],
    },
  },
  { upstream: 'ollama', path: '/api/generate', body: { model: 'llama3.2', prompt: 'Write a haiku' } },
  { upstream: 'bedrock', path: `/model/${CLAUDE}/converse`, body: converse('Greet me') },
  { upstream: 'bedrock', path: `/model/${CLAUDE}/converse-stream`, body: converse('Weather in Oslo?', true) },
  {
    upstream: 'bedrock',
    path: `/model/${CLAUDE}/invoke`,
    body: {
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 128,
      messages: [{ role: 'user', content: 'Weather in Rome?' }],
      tools: [{ name: 'get_weather', input_schema: SCHEMA }],
    },
  },
  { upstream: 'bedrock', path: `/model/${NOVA}/invoke-with-response-stream`, body: { ...(converse('Say hi') as object), inferenceConfig: { maxTokens: 64 } } },
  { upstream: 'bedrock', path: `/model/${NOVA}/invoke`, body: converse('Weather in Nice?', true) },
];

function script(fake: FakeProvider, now: boolean): FakeProvider {
  fake.when({ lastMessage: 'Say hello' }).willSay(now ? 'Hi there!' : 'Hello there.');
  fake.when({ lastMessage: '*Paris*' }).willCallTool('get_weather', { city: now ? 'Lyon' : 'Paris' });
  fake.when({ lastMessage: '*haiku*' }).willSay(now ? 'Autumn moonlight, a worm digs silently' : 'An old silent pond, a frog jumps in');
  fake.when({ lastMessage: 'Greet me' }).willSay(now ? 'Good day.' : 'Hello.');
  if (now) fake.when({ lastMessage: '*Oslo?' }).willSay('I cannot check the weather.');
  else fake.when({ lastMessage: '*Oslo?' }).willCallTool('get_weather', { city: 'Oslo' });
  fake.when({ lastMessage: '*Rome*' }).willCallTool('get_weather', { city: now ? 'Milan' : 'Rome' });
  fake.when({ lastMessage: 'Say hi' }).willSay(now ? 'Hi!' : 'Hello!');
  fake.when({ lastMessage: '*Nice*' }).willCallTool('get_weather', { city: 'Nice' });
  return fake;
}

async function record(tape: string, url: string): Promise<void> {
  const proxy = await startProxy({ tape, mode: 'record', allowRecordInCi: true, upstreams: { ollama: url, bedrock: url }, env: AWS, log: () => {} });
  try {
    for (const request of REQUESTS) {
      const response = await fetch(`${proxy.url}/${request.upstream}${request.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request.body),
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`recording ${request.path} got ${response.status}`);
    }
  } finally {
    await proxy.close();
  }
}

describe('modeltape recheck on Ollama and Bedrock answers', () => {
  const dir = tempDir({ scope: 'file' });
  const closers: Array<() => Promise<unknown>> = [];
  let result: CliResult & { code: number };

  beforeAll(async () => {
    const then = await script(new FakeProvider(), false).listen();
    closers.push(() => then.close());
    await record(join(dir, 'tapes', 'local-and-aws.jsonl'), then.url);
    const now = await script(new FakeProvider(), true).listen();
    closers.push(() => now.close());
    result = await runMain(
      ['recheck', 'tapes/local-and-aws.jsonl', '--upstream', `ollama=${now.url}`, '--upstream', `bedrock=${now.url}`, '--json', 'recheck.json'],
      { cwd: dir, env: AWS },
    );
  }, 60_000);
  afterAll(async () => {
    for (const close of closers.splice(0)) await close();
  });

  test('sorts their text into equivalent, a tool argument into changed, a tool call turned text into regression', () => {
    expect(result.stdout).toContain('modeltape recheck: 8 checked: 1 identical, 4 equivalent, 2 changed, 1 regression; 0 not checked.');
    const report = JSON.parse(readFileSync(join(dir, 'recheck.json'), 'utf8')) as { checked: Array<{ line: number; verdict: string; reasons: string[] }> };
    expect(report.checked.map((entry) => [entry.line, entry.verdict, entry.reasons])).toEqual([
      [2, 'equivalent', ['.text: "Hello there." → "Hi there!"']],
      [3, 'changed', ['.toolCalls[0].args.city: "Paris" → "Lyon"']],
      [4, 'equivalent', ['.text: "An old silent pond, a frog jumps in" → "Autumn moonlight, a worm digs silently"']],
      [5, 'equivalent', ['.text: "Hello." → "Good day."']],
      [6, 'regression', ['.finish: "tool_use" → "end_turn"', '.toolCalls: get_weather → text', '.text: none → "I cannot check the weather."']],
      [7, 'changed', ['.toolCalls[0].args.city: "Rome" → "Milan"']],
      [8, 'equivalent', ['.text: "Hello!" → "Hi!"']],
      [9, 'identical', []],
    ]);
  });
});
