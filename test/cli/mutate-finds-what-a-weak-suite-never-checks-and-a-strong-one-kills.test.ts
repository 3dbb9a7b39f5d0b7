import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import OpenAI from 'openai';
import { chromium } from 'playwright-core';
import { beforeAll, describe, expect, test } from 'vitest';
import { findChromium } from '../support/find-chromium.js';
import { recordTape } from '../support/record-tape.js';
import { runCli, runMain } from '../support/cli.js';
import type { ReceivedRequest, StandInReply } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// modeltape mutate: the suite runs once per mutant (one recorded answer changed), and a mutant the
// suite passes on is a place it does not look. A suite that checks nothing about the answers gets
// survivors; one that checks them kills every mutant it reaches.

const TOOLS = [
  { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
  { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
];

// What the stand-in provider answered when the tape was recorded: a plain answer, a tool call, and a stream.
function reply(request: ReceivedRequest): StandInReply {
  const body = JSON.parse(request.body) as { messages: Array<{ content: string }>; stream?: boolean };
  const asked = body.messages[0]!.content;
  const completion = (message: Record<string, unknown>, finish: string) =>
    JSON.stringify({
      id: `chatcmpl-${asked.length}`,
      object: 'chat.completion',
      created: 1770000000,
      model: 'gpt-4.1-mini',
      choices: [{ index: 0, message: { role: 'assistant', refusal: null, ...message }, finish_reason: finish, logprobs: null }],
      usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 },
    });
  if (body.stream === true) {
    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-story', object: 'chat.completion.chunk', created: 1770000000, model: 'gpt-4.1-mini', choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }] })}\n\n`;
    return {
      headers: { 'content-type': 'text/event-stream; charset=utf-8' },
      frames: [
        chunk({ role: 'assistant', content: '' }, null),
        ...['The fox', ' is quick', ' and 3 years old.'].map((content) => chunk({ content }, null)),
        chunk({}, 'stop'),
        'data: [DONE]\n\n',
      ],
    };
  }
  if (asked.startsWith('Weather')) {
    return {
      headers: { 'content-type': 'application/json' },
      body: completion(
        { content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        'tool_calls',
      ),
    };
  }
  return { headers: { 'content-type': 'application/json' }, body: completion({ content: 'Paris is the capital of France.' }, 'stop') };
}

// The code under test: three calls through the official SDK, which reads OPENAI_BASE_URL (the proxy)
// or takes a session's fetch.
const APP = `import OpenAI from 'openai';
const TOOLS = ${JSON.stringify(TOOLS)};
export async function answers(client) {
  const capital = await client.chat.completions.create({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'Capital of France?' }] });
  const weather = await client.chat.completions.create({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: TOOLS });
  const stream = await client.chat.completions.create({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'A story' }], stream: true });
  let story = '';
  let storyFinish;
  for await (const chunk of stream) {
    story += chunk.choices[0]?.delta.content ?? '';
    storyFinish = chunk.choices[0]?.finish_reason ?? storyFinish;
  }
  const call = weather.choices[0].message.tool_calls?.[0];
  return {
    capital: capital.choices[0].message.content,
    capitalFinish: capital.choices[0].finish_reason,
    calls: weather.choices[0].message.tool_calls?.length ?? 0,
    call: call && { name: call.function.name, args: JSON.parse(call.function.arguments) },
    weatherFinish: weather.choices[0].finish_reason,
    story,
    storyFinish,
  };
}
export const client = () => new OpenAI({ apiKey: 'sk-fake-mutate', maxRetries: 0 });
`;

const EXPECTED = {
  capital: 'Paris is the capital of France.',
  capitalFinish: 'stop',
  calls: 1,
  call: { name: 'get_weather', args: { city: 'Paris' } },
  weatherFinish: 'tool_calls',
  story: 'The fox is quick and 3 years old.',
  storyFinish: 'stop',
};

// Runs the code and checks nothing about what it got; not even that it got anything.
const WEAK = `import { answers, client } from './app.mjs';
await answers(client()).catch(() => undefined);
`;

// Checks every part of every answer.
const STRONG = `import assert from 'node:assert/strict';
import { answers, client } from './app.mjs';
assert.deepEqual(await answers(client()), ${JSON.stringify(EXPECTED)});
`;

describe('modeltape mutate', () => {
  const dir = tempDir({ inProject: true, scope: 'file' });
  const tape = `${dir}/suite.jsonl`;

  beforeAll(async () => {
    await recordTape(
      tape,
      async ({ openai }) => {
        const app = (await import(pathToFileURL(`${dir}/app.mjs`).href)) as { answers: (client: OpenAI) => Promise<unknown> };
        expect(await app.answers(new OpenAI({ apiKey: 'sk-fake-mutate', baseURL: openai, maxRetries: 0 }))).toEqual(EXPECTED);
      },
      { reply },
    );
  }, 30_000);
  writeFileSync(`${dir}/app.mjs`, APP);
  writeFileSync(`${dir}/weak.mjs`, WEAK);
  writeFileSync(`${dir}/strong.mjs`, STRONG);

  const mutate = (args: string[], suite: string) =>
    runMain(['mutate', '--tape', tape, '--jobs', '2', ...args, '--', process.execPath, `${dir}/${suite}`], { cwd: dir });
  interface Report {
    score: number | null;
    counts: Record<string, number>;
    candidates: number;
    mutants: Array<{ id: string; line: number; operator: string; variant: string; outcome: string; before: string; after: string; detail: string }>;
  }

  test('a suite that checks nothing gets survivors, each with its exchange, operator and the diff of the answer; the tape is untouched', async () => {
    const before = readFileSync(tape);
    const weak = await mutate(['--json', '--operators', 'text-negated,tool-argument-changed,finish-length,stream-truncated,rate-limited'], 'weak.mjs');
    expect(weak.code, weak.stderr).toBe(0);
    const report = JSON.parse(weak.stdout) as Report;
    const byOperator = Object.fromEntries(report.mutants.map((mutant) => [`${mutant.line}:${mutant.operator}`, mutant]));
    // The plain answer's text, negated: nothing read it.
    expect(byOperator['2:text-negated']).toMatchObject({ outcome: 'survived', before: 'Paris is the capital of France.' });
    expect(byOperator['2:text-negated']!.after).not.toBe('Paris is the capital of France.');
    expect(byOperator['2:finish-length']).toMatchObject({ outcome: 'survived' });
    expect(byOperator['4:stream-truncated']).toMatchObject({ outcome: 'survived' });
    // A 429 the code swallowed: survived too.
    expect(byOperator['2:rate-limited']).toMatchObject({ outcome: 'survived' });
    expect(report.counts.survived).toBeGreaterThanOrEqual(5);
    expect(report.score).toBeLessThan(50);
    expect(readFileSync(tape)).toEqual(before);

    // The built command, as a user runs it: its mutants' copies and folders are gone after.
    const temp = mkdtempSync(join(tmpdir(), 'modeltape-test-tmp-'));
    try {
      const spawned = await runCli(['mutate', '--tape', tape, '--max', '3', '--', process.execPath, `${dir}/weak.mjs`], { cwd: dir, env: { TMPDIR: temp } });
      expect(spawned.code, spawned.stderr).toBe(0);
      expect(spawned.stdout).toContain('3 mutants of');
      expect(readdirSync(temp).filter((name) => name.startsWith('modeltape-'))).toEqual([]);
    } finally {
      rmSync(temp, { recursive: true, force: true });
    }
    expect(readFileSync(tape)).toEqual(before);
  }, 120_000);

  test('a suite that checks the answers kills every mutant it reaches, and the terminal report says so', async () => {
    const strong = await mutate(['--max', '14', '--seed', 'strong'], 'strong.mjs');
    expect(strong.code, strong.stderr).toBe(0);
    expect(strong.stdout).toMatch(/mutation score 100% \((\d+) of \1 detected\)/);
    expect(strong.stdout).not.toContain('Survivors');
    expect(strong.stderr).toMatch(/the suite passed on the real tapes in [\d.]+ s; 14 mutants of \d+ \(seed strong\), 2 at a time/);
    expect(strong.stderr).toMatch(/\[14\/14\] m\d+ killed/);
    expect(strong.stderr).toMatch(/14 mutants in [\d.]+ s \([\d.]+ a minute\)/);
  }, 120_000);

  test('the same seed gives the same mutants and the same report, byte for byte; another seed others', async () => {
    const args = ['--json', '--max', '6', '--seed', '7'];
    const first = await mutate(args, 'weak.mjs');
    const again = await mutate(args, 'weak.mjs');
    expect(first.code, first.stderr).toBe(0);
    expect(again.stdout).toBe(first.stdout);
    const chosen = (JSON.parse(first.stdout) as Report).mutants.map((mutant) => `${mutant.line}:${mutant.operator}:${mutant.variant}`);
    // Under --max each operator is taken in turn: six mutants, six operators.
    expect(new Set(chosen.map((id) => id.split(':')[1])).size).toBe(6);
    const other = await mutate(['--json', '--max', '6', '--seed', '8'], 'weak.mjs');
    expect((JSON.parse(other.stdout) as Report).mutants.map((mutant) => `${mutant.line}:${mutant.operator}:${mutant.variant}`)).not.toEqual(chosen);
  }, 120_000);

  test('a suite that opens the tape itself (openTape in the test) replays each mutant in its place', async () => {
    writeFileSync(
      `${dir}/in-process.mjs`,
      `import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { openTape } from 'modeltape/replay';
import { answers } from './app.mjs';
const session = await openTape(${JSON.stringify(tape)}, { config: false });
try {
  const client = new OpenAI({ apiKey: 'sk-fake-mutate', baseURL: 'https://api.openai.com/v1', fetch: session.fetch, maxRetries: 0 });
  assert.deepEqual(await answers(client), ${JSON.stringify(EXPECTED)});
} finally {
  await session.close();
}
`,
    );
    const result = await mutate(['--json', '--operators', 'text-emptied,tool-renamed,number-changed,server-error'], 'in-process.mjs');
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.mutants.length).toBeGreaterThanOrEqual(4);
    expect(report.counts['not-reached']).toBe(0);
    expect(report.counts.killed).toBe(report.mutants.length);
    expect(report.score).toBe(100);
  }, 120_000);

  test('a mutant the suite hangs on is killed at --timeout; a suite that fails on the real tapes is refused; bad flags are usage errors', async () => {
    writeFileSync(
      `${dir}/hangs.mjs`,
      `import { answers, client } from './app.mjs';
const got = await answers(client()).catch(() => ({}));
if (got.capital !== ${JSON.stringify(EXPECTED.capital)}) setInterval(() => undefined, 1000);
`,
    );
    const hung = await mutate(['--json', '--operators', 'text-emptied', '--timeout', '3s'], 'hangs.mjs');
    expect(hung.code, hung.stderr).toBe(0);
    const report = JSON.parse(hung.stdout) as Report;
    expect(report.mutants.find((mutant) => mutant.line === 2)).toMatchObject({ outcome: 'timeout', detail: 'killed after 3.0 s' });

    writeFileSync(`${dir}/fails.mjs`, 'process.exit(3);\n');
    const refused = await mutate([], 'fails.mjs');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('the suite does not pass on the real tapes');

    const noTape = await runMain(['mutate', '--', process.execPath, `${dir}/weak.mjs`], { cwd: dir });
    expect(noTape.code).toBe(2);
    expect(noTape.stderr).toContain('needs the tapes to mutate');
    const badOperator = await mutate(['--operators', 'text-negated,teleport'], 'weak.mjs');
    expect(badOperator.code).toBe(2);
    expect(badOperator.stderr).toMatch(/teleport[\s\S]*text-negated/);
  }, 120_000);

  test('--html writes a page that reads in a real browser: the score, and each survivor with its diff', async () => {
    const page = `${dir}/mutants.html`;
    const weak = await mutate(['--html', page, '--operators', 'text-negated,finish-length'], 'weak.mjs');
    expect(weak.code, weak.stderr).toBe(0);
    const { executablePath } = await findChromium();
    const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'], headless: true });
    try {
      const tab = await browser.newPage();
      await tab.goto(pathToFileURL(page).href);
      expect(await tab.locator('#score').textContent()).toBe('0%');
      const survivors = tab.locator('section.survivor');
      expect(await survivors.count()).toBeGreaterThanOrEqual(2);
      const negated = survivors.filter({ hasText: 'text-negated' }).first();
      expect(await negated.locator('.del').first().textContent()).toBe('- Paris is the capital of France.');
      expect(await negated.locator('.ins').count()).toBeGreaterThan(0);
      expect(await tab.locator('#mutants tbody tr.survived').count()).toBe(await survivors.count());
    } finally {
      await browser.close();
    }
  }, 120_000);
});
