import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FakeProvider } from 'modeltape/fake-provider';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runMain, type CliResult } from '../support/cli.js';
import { findChromium } from '../support/find-chromium.js';
import { RECHECK_KEYS, recordRequests, type TapeRequest } from '../support/recheck-tapes.js';
import { startStandInUpstream, type StandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// The FakeProvider stands in for the live provider: one script records the tape, a changed
// script answers the recheck. Eight model turns over four wire APIs, streamed and not.

const WEATHER_TOOL = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};
const REPORT_SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, celsius: { type: 'number' } },
  required: ['city', 'celsius'],
  additionalProperties: false,
};
const chat = (content: string, extra: Record<string, unknown> = {}): TapeRequest => ({
  upstream: 'openai',
  path: '/v1/chat/completions',
  body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content }], ...extra },
});

const REQUESTS: TapeRequest[] = [
  chat('Say hello'),
  chat('Weather in Paris?', { tools: [WEATHER_TOOL] }),
  chat('Weather in Oslo?', { tools: [WEATHER_TOOL] }),
  chat('Report on Oslo', { response_format: { type: 'json_schema', json_schema: { name: 'report', strict: true, schema: REPORT_SCHEMA } } }),
  {
    upstream: 'anthropic',
    path: '/v1/messages',
    body: {
      model: 'claude-sonnet-4-5',
      max_tokens: 256,
      stream: true,
      tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
      messages: [{ role: 'user', content: 'Weather in Rome?' }],
    },
  },
  {
    upstream: 'gemini',
    path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    body: { contents: [{ role: 'user', parts: [{ text: 'Is it sunny in Nice?' }] }] },
  },
  {
    upstream: 'openai',
    path: '/v1/responses',
    body: {
      model: 'gpt-4.1-mini',
      input: 'Time in Tokyo?',
      tools: [{ type: 'function', name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } } } }],
    },
  },
  { upstream: 'legacy', path: '/v1/chat/completions', body: { model: 'gpt-4-0314', messages: [{ role: 'user', content: 'Still there?' }] } },
];

function script(fake: FakeProvider, now: boolean): FakeProvider {
  fake.when({ lastMessage: 'Say hello' }).willSay(now ? 'Hi there!' : 'Hello there.');
  fake.when({ lastMessage: '*Paris*' }).willCallTool('get_weather', { city: now ? 'Lyon' : 'Paris' });
  if (now) fake.when({ lastMessage: '*Oslo?' }).willSay('I cannot check the weather.');
  else fake.when({ lastMessage: '*Oslo?' }).willCallTool('get_weather', { city: 'Oslo' });
  fake.when({ lastMessage: 'Report on Oslo' }).willAnswer(now ? { city: 'Oslo', celsius: 'cold' } : { city: 'Oslo', celsius: 4 });
  fake.when({ lastMessage: '*Rome*' }).willCallTool('get_weather', { city: 'Rome' });
  fake.when({ lastMessage: '*Nice*' }).willSay(now ? 'Yes, sunny today.' : 'Yes, sunny.');
  fake.when({ lastMessage: '*Tokyo*' }).willCallTool('get_time', { zone: 'Asia/Tokyo' });
  fake.when({ lastMessage: 'Still there?' }).willSay('Yes.');
  return now ? fake.withoutConstrainedDecoding() : fake;
}

describe('modeltape recheck against the FakeProvider with a changed script', () => {
  const dir = tempDir({ scope: 'file' });
  const closers: Array<() => Promise<unknown>> = [];
  const tape = join(dir, 'tapes', 'weather.jsonl');
  const json = join(dir, 'recheck.json');
  const html = join(dir, 'recheck.html');
  let result: CliResult & { code: number };
  let gone: StandInUpstream;

  beforeAll(async () => {
    const then = await script(new FakeProvider(), false).listen();
    closers.push(() => then.close());
    await recordRequests(tape, { openai: then.url, anthropic: then.url, gemini: then.url, legacy: then.url }, REQUESTS);

    const now = await script(new FakeProvider(), true).listen();
    closers.push(() => now.close());
    // The model the legacy upstream answered with is gone.
    gone = await startStandInUpstream(() => ({
      status: 404,
      body: JSON.stringify({
        error: { message: 'The model `gpt-4-0314` does not exist or you do not have access to it.', type: 'invalid_request_error', code: 'model_not_found' },
      }),
    }));
    closers.push(() => gone.close());
    result = await runMain(
      [
        'recheck',
        'tapes/weather.jsonl',
        '--upstream',
        `openai=${now.url}`,
        '--upstream',
        `anthropic=${now.url}`,
        '--upstream',
        `gemini=${now.url}`,
        '--upstream',
        `legacy=${gone.url}`,
        '--json',
        'recheck.json',
        '--html',
        'recheck.html',
        '--fail-on',
        'regression',
      ],
      { cwd: dir, env: { OPENAI_API_KEY: RECHECK_KEYS.openai, ANTHROPIC_API_KEY: RECHECK_KEYS.anthropic, GEMINI_API_KEY: RECHECK_KEYS.google } },
    );
  }, 60_000);
  afterAll(async () => {
    for (const close of closers.splice(0)) await close();
  });

  test('sorts text into equivalent, a tool argument into changed, and a lost tool call, an invalid structured output and a 404 model into regression', () => {
    expect(result.stderr).toContain('modeltape recheck: 3 exchanges regressed (--fail-on regression).');
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('modeltape recheck: 8 checked: 2 identical, 2 equivalent, 1 changed, 3 regression; 0 not checked.');

    const report = JSON.parse(readFileSync(json, 'utf8')) as {
      checked: Array<{ line: number; tape: string; verdict: string; reasons: string[]; model: { requested: string } }>;
    };
    const byLine = Object.fromEntries(report.checked.map((entry) => [entry.line, entry]));
    expect(report.checked.map((entry) => [entry.line, entry.verdict])).toEqual([
      [2, 'equivalent'],
      [3, 'changed'],
      [4, 'regression'],
      [5, 'regression'],
      [6, 'identical'],
      [7, 'equivalent'],
      [8, 'identical'],
      [9, 'regression'],
    ]);
    expect(byLine[2]!.reasons).toEqual(['.text: "Hello there." → "Hi there!"']);
    expect(byLine[3]!.reasons).toEqual(['.toolCalls[0].args.city: "Paris" → "Lyon"']);
    expect(byLine[4]!.reasons[0]).toBe('.finish: "tool_calls" → "stop"');
    expect(byLine[4]!.reasons).toContain('.toolCalls: get_weather → text');
    expect(byLine[5]!.reasons).toContain(".structured: no longer valid against the request's schema: .celsius: must be number");
    expect(byLine[7]!.reasons).toEqual(['.text: "Yes, sunny." → "Yes, sunny today."']);
    expect(byLine[9]!.reasons[0]).toMatch(/^\.status: 200 → 404 \(the model or endpoint no longer exists\): The model `gpt-4-0314` does not exist/);
    expect(byLine[9]!.tape).toBe(join('tapes', 'weather.jsonl'));
    // The terminal names each one that moved, where it is, why, and the model then and now.
    expect(result.stdout).toContain('  CHANGED  tapes/weather.jsonl:3  POST /openai/v1/chat/completions  gpt-4o-mini, answered by fake-gpt-4o-mini');
    expect(result.stdout).toContain('    .toolCalls[0].args.city: "Paris" → "Lyon"');
    expect(result.stdout).toContain('gpt-4-0314, answered by fake-gpt-4-0314 → (unknown)');
    expect(result.stdout).toMatch(/Spent: 8 requests, \d+ input and \d+ output tokens, \$0\.\d+ \(no price for gpt-4-0314: not counted\)/);
  });

  test('sends each key where its request goes and shows none in any output', () => {
    expect(gone.received).toHaveLength(1);
    expect(gone.received[0]!.headers.authorization).toBe(`Bearer ${RECHECK_KEYS.openai}`);
    const outputs = [result.stdout, result.stderr, readFileSync(json, 'utf8'), readFileSync(html, 'utf8'), readFileSync(tape, 'utf8')];
    for (const output of outputs) for (const key of Object.values(RECHECK_KEYS)) expect(output).not.toContain(key);
  });

  test('--html writes a page that reads in a real browser: the counts, and each answer that moved beside the recorded one', async () => {
    const { executablePath } = await findChromium();
    const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'], headless: true });
    try {
      const tab = await browser.newPage();
      await tab.goto(pathToFileURL(html).href);
      expect(await tab.locator('.stat.regression b').textContent()).toBe('3');
      expect(await tab.locator('.stat.identical b').textContent()).toBe('2');
      expect(await tab.locator('section.exchange').count()).toBe(6);
      const changed = tab.locator('section.exchange.changed');
      expect(await changed.locator('ul.differences li').first().textContent()).toBe('.toolCalls[0].args.city: "Paris" → "Lyon"');
      // Side by side: the row that differs is marked on both sides.
      const calls = changed.locator('tr', { hasText: 'tool calls' });
      expect(await calls.locator('td[data-side="recorded"] .kv.diff .v').textContent()).toContain('"city": "Paris"');
      expect(await calls.locator('td[data-side="fresh"] .kv.diff .v').textContent()).toContain('"city": "Lyon"');
      expect(
        await tab.locator('section.exchange.regression').last().locator('tr', { hasText: 'status' }).locator('td[data-side="fresh"] .v').textContent(),
      ).toBe('404');
    } finally {
      await browser.close();
    }
  }, 60_000);
});
