import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { beforeAll, describe, expect, test } from 'vitest';
import { findChromium } from '../support/find-chromium.js';
import { runCli, runMain } from '../support/cli.js';
import { startStandInUpstream, type ReceivedRequest, type StandInReply } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';
import { fakeAnthropicKey, fakeOpenAiKey } from '../support/fake-keys.js';

const FAKE_OPENAI_KEY = fakeOpenAiKey();
const FAKE_ANTHROPIC_KEY = fakeAnthropicKey();

// modeltape report: a suite recorded with the official SDKs, in the tape-per-test layout, read
// back as what it covers of the providers' behaviour, what a re-recording costs and how old it is;
// and the age limit that report, verify and run share.

const DAY = 86_400;
// 2026-09-01 and 2026-12-01, as SOURCE_DATE_EPOCH pins them.
const RECORDED = Date.UTC(2026, 8, 1) / 1000;
const LATER = RECORDED + 91 * DAY;

// What the stand-in providers answered: OpenAI a tool call, a stream and a 429; Anthropic an answer cut at max_tokens.
function reply(request: ReceivedRequest): StandInReply {
  const json = (body: unknown, status = 200): StandInReply => ({ status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (request.url.split('?')[0]!.endsWith('/messages')) {
    return json({
      id: 'msg_standin',
      type: 'message',
      role: 'assistant',
      model: 'claude-haiku-4-5',
      content: [{ type: 'text', text: 'Once upon a' }],
      stop_reason: 'max_tokens',
      stop_sequence: null,
      usage: { input_tokens: 1000, output_tokens: 8, cache_read_input_tokens: 2000, cache_creation_input_tokens: 0 },
    });
  }
  const body = JSON.parse(request.body) as { messages: Array<{ content: string }>; stream?: boolean };
  const asked = body.messages[0]!.content;
  if (asked === 'flood') return json({ error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } }, 429);
  if (body.stream === true) {
    const chunk = (delta: Record<string, unknown>, finish: string | null, usage: unknown = null) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-s', object: 'chat.completion.chunk', created: 1770000000, model: 'gpt-4o-mini-2024-07-18', choices: finish === 'usage' ? [] : [{ index: 0, delta, finish_reason: finish }], usage })}\n\n`;
    return {
      headers: { 'content-type': 'text/event-stream; charset=utf-8' },
      frames: [
        chunk({ role: 'assistant', content: 'Hi' }, null),
        chunk({}, 'stop'),
        chunk({}, 'usage', { prompt_tokens: 30, completion_tokens: 10, total_tokens: 40 }),
        'data: [DONE]\n\n',
      ],
    };
  }
  return json({
    id: 'chatcmpl-t',
    object: 'chat.completion',
    created: 1770000000,
    model: 'gpt-4o-mini-2024-07-18',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        },
        finish_reason: 'tool_calls',
      },
    ],
    usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, prompt_tokens_details: { cached_tokens: 0 } },
  });
}

const CLIENT = `
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
const openai = new OpenAI({ maxRetries: 0 });
const which = process.argv[2];
if (which === 'weather') {
  await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }] });
  await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'flood' }] }).then(() => { throw new Error('no 429'); }, (error) => { if (error.status !== 429) throw error; });
} else {
  const stream = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Say hi' }], stream: true, stream_options: { include_usage: true } });
  for await (const _chunk of stream);
  await new Anthropic({ maxRetries: 0 }).messages.create({ model: 'claude-haiku-4-5', max_tokens: 8, messages: [{ role: 'user', content: 'A story' }] });
}
`;

describe('modeltape report', () => {
  const dir = tempDir({ scope: 'file', inProject: true });
  const tapes = join(dir, '__tapes__', 'agent.test');
  const weather = join(tapes, 'weather.jsonl');
  const story = join(tapes, 'story.jsonl');
  const env = { OPENAI_API_KEY: FAKE_OPENAI_KEY, ANTHROPIC_API_KEY: FAKE_ANTHROPIC_KEY };

  beforeAll(async () => {
    writeFileSync(join(dir, 'client.mjs'), CLIENT);
    mkdirSync(tapes, { recursive: true });
    const upstream = await startStandInUpstream(reply);
    try {
      for (const [tape, which] of [
        [weather, 'weather'],
        [story, 'story'],
      ] as const) {
        const recorded = await runCli(
          [
            'run',
            '--tape',
            tape,
            '--mode',
            'record',
            '--upstream',
            `openai=${upstream.url}`,
            '--upstream',
            `anthropic=${upstream.url}`,
            '--',
            process.execPath,
            'client.mjs',
            which,
          ],
          { cwd: dir, env: { ...env, SOURCE_DATE_EPOCH: String(RECORDED) } },
        );
        expect(recorded.code, recorded.stderr).toBe(0);
      }
    } finally {
      await upstream.close();
    }
  }, 120_000);

  test('each exchange carries the date SOURCE_DATE_EPOCH pins, and no key reaches a tape', () => {
    for (const tape of [weather, story]) {
      const text = readFileSync(tape, 'utf8');
      const lines = text.trim().split('\n').slice(1);
      expect(lines.length).toBe(2);
      for (const line of lines) expect(JSON.parse(line).recordedAt).toBe('2026-09-01');
      expect(text).not.toContain(FAKE_OPENAI_KEY);
      expect(text).not.toContain(FAKE_ANTHROPIC_KEY);
    }
  });

  test('shows the behaviours the tapes cover and the ones they never do, tokens and cost per test, and ages', async () => {
    const result = await runMain(['report', '__tapes__/**/*.jsonl'], { cwd: dir, env: { SOURCE_DATE_EPOCH: String(LATER) } });
    expect(result.code, result.stderr).toBe(0);
    const out = result.stdout;
    expect(out).toMatch(/^modeltape report: 2 tapes, 4 exchanges, ages counted to 2026-12-01/);
    const row = (name: string) =>
      out
        .split('\n')
        .find((line) => line.trim().startsWith(`${name} `))
        ?.trim();
    expect(row('streamed')).toMatch(/^streamed\s+1\s+__tapes__\/agent\.test\/story\.jsonl:2$/);
    expect(row('tool-call')).toMatch(/^tool-call\s+1\s+__tapes__\/agent\.test\/weather\.jsonl:2$/);
    expect(row('finish-length')).toMatch(/^finish-length\s+1\s+__tapes__\/agent\.test\/story\.jsonl:3$/);
    expect(row('status-429')).toMatch(/^status-429\s+1\s+__tapes__\/agent\.test\/weather\.jsonl:3$/);
    expect(row('parallel-tool-calls')).toMatch(/never$/);
    expect(row('refusal')).toMatch(/never$/);
    expect(out).toContain('Never seen — the suite does not know how the code behaves on:\n  - an answer with parallel tool calls');
    expect(out).not.toMatch(/^\s+- a 429 rate limit$/m);
    expect(out).toMatch(/^\s+anthropic-messages max_tokens\s+1$/m);
    // Per test: 120 tokens of gpt-4o-mini ($0.15 / $0.60 per million), under a cent and shown with two significant digits …
    expect(out).toMatch(/^\s+agent\.test › weather\s+2\s+120\s+\$0\.000027\s+91d \(2026-09-01\)/m);
    // … and 40 of gpt-4o-mini with 3008 of claude-haiku-4-5 (1000 × $1 + 2000 cached × $0.10 + 8 × $5).
    expect(out).toMatch(/^\s+agent\.test › story\s+2\s+3048\s+\$0\.0013\s+91d/m);
    expect(out).toMatch(/Suite: 3168 \(in 1130 \+ cached 2000, out 38\) tokens; re-recording costs \$0\.0013\./);
  });

  test('--json gives the whole report, the same bytes for the same tapes and day', async () => {
    const first = await runMain(['report', weather, story, '--json'], { cwd: dir, env: { SOURCE_DATE_EPOCH: String(LATER) } });
    const second = await runMain(['report', weather, story, '--json'], { cwd: dir, env: { SOURCE_DATE_EPOCH: String(LATER) } });
    expect(first.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    const report = JSON.parse(first.stdout);
    expect(report.totals).toMatchObject({ tapes: 2, exchanges: 4, unpricedTokens: 0, oldest: '2026-09-01' });
    expect(report.totals.costUsd).toBeCloseTo((100 * 0.15 + 20 * 0.6 + 30 * 0.15 + 10 * 0.6 + 1000 * 1 + 2000 * 0.1 + 8 * 5) / 1e6, 12);
    expect(report.coverage.neverSeen).toEqual([
      'parallel-tool-calls',
      'structured-output',
      'finish-content-filter',
      'refusal',
      'stream-error',
      'status-4xx',
      'status-5xx',
    ]);
    expect(report.coverage.models.map((model: { name: string }) => model.name).sort()).toEqual(['claude-haiku-4-5', 'gpt-4o-mini']);
    expect(report.tapes[0].test).toEqual({ name: 'weather', file: 'agent.test' });
    // The cost is the number, unrounded: $0.000027 for the weather tape.
    expect(report.tapes[0].costUsd).toBeCloseTo((100 * 0.15 + 20 * 0.6) / 1e6, 15);
  });

  test('--max-cost and --max-tokens fail a suite whose re-recording would exceed them, and config prices change the cost', async () => {
    const over = await runMain(['report', weather, story, '--max-cost', '0.001'], { cwd: dir });
    expect(over.code).toBe(1);
    expect(over.stdout).toContain('re-recording would cost $0.0013, over the budget of $0.0010 (--max-cost).');
    expect((await runMain(['report', weather, story, '--max-cost', '0.01'], { cwd: dir })).code).toBe(0);
    // A tape named twice, or by a glob too, counts once.
    const twice = await runMain(['report', weather, `./__tapes__/agent.test/weather.jsonl`, '__tapes__/**/*.jsonl', '--json'], { cwd: dir });
    expect(JSON.parse(twice.stdout).totals).toMatchObject({ tapes: 2, exchanges: 4 });
    const tokens = await runMain(['report', weather, story, '--max-tokens', '3000'], { cwd: dir });
    expect(tokens.code).toBe(1);
    expect(tokens.stdout).toContain('the tapes hold 3168 tokens, over the budget of 3000 (--max-tokens).');
    const config = join(dir, 'prices.json');
    writeFileSync(config, JSON.stringify({ prices: { 'claude-haiku-4-5': { input: 0, cachedInput: 0, output: 0 } } }));
    const priced = await runMain(['report', weather, story, '--max-cost', '0.001', '--config', config, '--json'], { cwd: dir });
    expect(priced.code, priced.stderr).toBe(0);
    expect(JSON.parse(priced.stdout).prices.fromConfig).toEqual(['claude-haiku-4-5']);
    writeFileSync(config, JSON.stringify({ prices: { 'claude-haiku-4-5': { input: -1, output: 0 } } }));
    const bad = await runMain(['report', weather, '--config', config], { cwd: dir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/prices\.json:1:\d+: .*claude-haiku-4-5.*input/);
    expect((await runMain(['report', weather, '--max-cost', 'lots'], { cwd: dir })).code).toBe(2);
  });

  test('--max-age warns of a stale tape, fails with --stale fail, in report, verify and run alike', async () => {
    const later = { SOURCE_DATE_EPOCH: String(LATER) };
    const warned = await runMain(['report', weather, '--max-age', '90d'], { cwd: dir, env: later });
    expect(warned.code).toBe(0);
    expect(warned.stdout).toContain(
      'warning: stale tape __tapes__/agent.test/weather.jsonl (agent.test › weather): its oldest exchange was recorded on 2026-09-01, 91 days ago (the limit is 90).',
    );
    expect((await runMain(['report', weather, '--max-age', '13w', '--stale', 'fail'], { cwd: dir, env: later })).code).toBe(0);
    expect((await runMain(['report', weather, '--max-age', '90d', '--stale', 'fail'], { cwd: dir, env: later })).code).toBe(1);

    const verified = await runMain(['verify', weather, '--max-age', '90d', '--stale', 'fail'], { cwd: dir, env: later });
    expect(verified.code).toBe(1);
    expect(verified.stderr).toMatch(/stale tape .*weather\.jsonl: its oldest exchange was recorded on 2026-09-01, 91 days ago/);
    expect((await runMain(['verify', weather, '--max-age', '90d'], { cwd: dir, env: later })).code).toBe(0);

    // run: the command passes on the tape, and the stale tape fails the run under --stale fail.
    const replay = ['run', '--tape', weather, '--max-age', '90d'];
    const command = ['--', process.execPath, 'client.mjs', 'weather'];
    const runWarned = await runCli([...replay, ...command], { cwd: dir, env: { ...env, ...later } });
    expect(runWarned.code, runWarned.stderr).toBe(0);
    expect(runWarned.stderr).toMatch(/modeltape: warning: stale tape .*weather\.jsonl/);
    const runFailed = await runCli([...replay, '--stale', 'fail', ...command], { cwd: dir, env: { ...env, ...later } });
    expect(runFailed.code).toBe(1);
    expect(runFailed.stderr).toMatch(/modeltape: stale tape .*weather\.jsonl/);
    // The config's maxAge and stale do the same; a flag wins over them.
    writeFileSync(join(dir, 'modeltape.config.json'), JSON.stringify({ maxAge: '90d', stale: 'fail' }));
    try {
      expect((await runMain(['verify', weather], { cwd: dir, env: later })).code).toBe(1);
      expect((await runMain(['verify', weather, '--max-age', '120d'], { cwd: dir, env: later })).code).toBe(0);
    } finally {
      writeFileSync(join(dir, 'modeltape.config.json'), '{}');
    }
    const badAge = await runMain(['report', weather, '--max-age', '3m'], { cwd: dir });
    expect(badAge.code).toBe(2);
    expect(badAge.stderr).toContain('write a number of days or weeks, e.g. 90d or 12w');
  }, 60_000);

  test('--html writes a page that reads in a real browser: every behaviour, the never-seen ones marked, and the cost', async () => {
    const page = join(dir, 'report.html');
    const result = await runMain(['report', weather, story, '--html', page, '--max-age', '90d'], { cwd: dir, env: { SOURCE_DATE_EPOCH: String(LATER) } });
    expect(result.code).toBe(0);
    const { executablePath } = await findChromium();
    const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'], headless: true });
    try {
      const tab = await browser.newPage();
      await tab.goto(pathToFileURL(page).href);
      expect(await tab.locator('#behaviours tbody tr').count()).toBe(14);
      expect(await tab.locator('#behaviours tr.never').count()).toBe(7);
      expect(await tab.locator('#behaviours tr[data-behaviour="status-429"] td').nth(2).textContent()).toBe('1');
      expect(await tab.locator('#cost').textContent()).toBe('$0.0013');
      expect(await tab.locator('#tapes tbody tr').first().locator('td').nth(4).textContent()).toBe('$0.000027');
      expect(await tab.locator('#tapes tr.stale').count()).toBe(2);
      expect(await tab.locator('#never-seen li').first().textContent()).toBe('an answer with parallel tool calls');
    } finally {
      await browser.close();
    }
  }, 60_000);
});
