import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { recordedExchange } from '../mutation/operators/check-mutation.js';
import { createHeader, defaultKeyRules, serializeTape, type Exchange } from '../recordings/internal.js';
import { reportTapes, usd } from './tape-report.js';

const dir = mkdtempSync(join(tmpdir(), 'modeltape-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fixture = (name: string): string => readFileSync(new URL(`../test/fixtures/mutation/${name}`, import.meta.url), 'utf8');
const chat = { upstream: 'openai', path: '/v1/chat/completions', request: { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] } };
const answer = (message: Record<string, unknown>, finish: string, usage = { prompt_tokens: 1000, completion_tokens: 100 }) =>
  JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'ok', ...message }, finish_reason: finish }], usage });

function tape(name: string, exchanges: Array<Exchange & { recordedAt?: string }>): string {
  const file = join(dir, name);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, serializeTape(createHeader(defaultKeyRules()), exchanges));
  return file;
}
const dated = (exchange: Exchange, recordedAt: string | undefined): Exchange => (recordedAt === undefined ? exchange : { ...exchange, recordedAt });

describe('reportTapes', () => {
  const parallel = tape('parallel.jsonl', [
    dated(recordedExchange({ ...chat, body: fixture('openai/chat-completion-parallel-tool-calls.json') }), '2026-10-01'),
  ]);
  const failures = tape('failures.jsonl', [
    dated(recordedExchange({ ...chat, body: answer({ content: null, refusal: 'No.' }, 'stop') }), '2026-11-01'),
    dated(recordedExchange({ ...chat, body: answer({}, 'content_filter') }), '2026-11-02'),
    dated(recordedExchange({ ...chat, status: 503, body: '{"error":{"message":"busy"}}' }), '2026-11-03'),
    dated(recordedExchange({ ...chat, status: 400, body: '{"error":{"message":"bad"}}' }), '2026-11-03'),
  ]);

  test('counts each behaviour where it was seen, and lists the ones never seen', () => {
    const report = reportTapes([parallel, failures], { now: new Date('2026-12-01T12:00:00Z'), cwd: dir });
    const seen = Object.fromEntries(report.coverage.behaviours.map((behaviour) => [behaviour.name, behaviour.count]));
    expect(seen).toMatchObject({
      'parallel-tool-calls': 1,
      'tool-call': 0,
      refusal: 1,
      'finish-content-filter': 1,
      'status-5xx': 1,
      'status-4xx': 1,
      'status-429': 0,
    });
    expect(report.coverage.behaviours.find((behaviour) => behaviour.name === 'refusal')!.where).toEqual(['failures.jsonl:2']);
    expect(report.coverage.neverSeen).toEqual(['streamed', 'tool-call', 'structured-output', 'finish-stop', 'finish-length', 'stream-error', 'status-429']);
    expect(report.coverage.statuses.map((status) => [status.name, status.count])).toEqual([
      ['200', 3],
      ['400', 1],
      ['503', 1],
    ]);
    expect(report.tapes.map((summary) => [summary.file, summary.ageDays, summary.oldest, summary.newest])).toEqual([
      ['parallel.jsonl', 61, '2026-10-01', '2026-10-01'],
      ['failures.jsonl', 30, '2026-11-01', '2026-11-03'],
    ]);
  });

  test('costs live exchanges from the table; a FakeProvider exchange costs nothing; an unknown model is unpriced and says how to price it', () => {
    const live = recordedExchange({ ...chat, body: answer({}, 'stop') });
    const fake = { ...live, source: 'fake' as const };
    const unknown = recordedExchange({ ...chat, request: { ...chat.request, model: 'house-model-7b' }, body: answer({}, 'stop') });
    const file = tape('costs.jsonl', [live, fake, unknown]);
    const report = reportTapes([file], { now: new Date('2026-12-01'), cwd: dir });
    // gpt-4o: 1000 × $2.50 + 100 × $10 per million.
    expect(report.totals.costUsd).toBeCloseTo(0.0035, 12);
    expect(report.totals.tokens.total).toBe(3300);
    expect(report.totals.unpriced).toEqual(['house-model-7b']);
    expect(report.totals.unpricedTokens).toBe(1100);
    expect(report.warnings[0]).toContain('1100 tokens have no price (house-model-7b)');
    expect(report.failures).toEqual([]);
    const budgeted = reportTapes([file], { now: new Date('2026-12-01'), cwd: dir, maxCostUsd: 1 });
    expect(budgeted.failures).toEqual([expect.stringContaining('so the cost budget cannot be checked: add its price under "prices" in modeltape.config.json')]);
    const priced = reportTapes([file], { now: new Date('2026-12-01'), cwd: dir, maxCostUsd: 1, prices: { 'house-model-7b': { input: 0, output: 0 } } });
    expect(priced.failures).toEqual([]);
    expect(priced.prices.fromConfig).toEqual(['house-model-7b']);
  });

  test('a local model on an Ollama upstream costs nothing on its OpenAI-compatible API too', () => {
    const file = tape('ollama.jsonl', [
      recordedExchange({ ...chat, upstream: 'ollama', request: { ...chat.request, model: 'llama3.2' }, body: answer({}, 'stop') }),
    ]);
    const report = reportTapes([file], { cwd: dir, maxCostUsd: 0 });
    expect(report.totals).toMatchObject({ costUsd: 0, unpriced: [], unpricedTokens: 0 });
    expect(report.failures).toEqual([]);
  });

  test('live answers that recorded no usage are warned of, and fail a budget that cannot count them', () => {
    const silent = recordedExchange({
      ...chat,
      request: { ...chat.request, stream: true },
      stream: { text: 'data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n', format: 'sse' },
    });
    const file = tape('silent.jsonl', [recordedExchange({ ...chat, body: answer({}, 'stop') }), silent]);
    const report = reportTapes([file], { cwd: dir });
    expect(report.totals.unmetered).toBe(1);
    expect(report.warnings).toEqual([
      expect.stringMatching(/^1 live model answer recorded no token usage \(first at silent\.jsonl:3; an OpenAI stream reports it only with stream_options/),
    ]);
    expect(reportTapes([file], { cwd: dir, maxCostUsd: 10 }).failures).toEqual([expect.stringContaining('the budget cannot be checked')]);
  });

  test('a budget over tapes that report no usage checked nothing, and fails', () => {
    // A FakeProvider's answer without usage, and a model list: nothing a budget could count.
    const fake = recordedExchange({
      ...chat,
      body: JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }] }),
    });
    const file = tape('no-usage.jsonl', [
      { ...fake, source: 'fake' },
      recordedExchange({ upstream: 'openai', path: '/v1/embeddings', request: { model: 'text-embedding-3-small', input: 'x' }, body: '{"data":[]}' }),
    ]);
    expect(reportTapes([file], { maxTokens: 10, cwd: dir }).failures).toEqual([
      'no exchange in these tapes reports its token usage, so the budget checked nothing.',
    ]);
  });

  test('an undated exchange makes its tape stale under a max age; tapes in __tapes__/FILE/ are named by their test', () => {
    const file = tape('__tapes__/checkout.test/refunds twice.jsonl', [
      dated(recordedExchange({ ...chat, body: answer({}, 'stop') }), '2026-11-30'),
      recordedExchange({ ...chat, body: answer({}, 'length') }),
    ]);
    const report = reportTapes([file], { now: new Date('2026-12-01'), cwd: dir, ageLimit: { maxAgeDays: 90, stale: 'fail' } });
    expect(report.tapes[0]!.test).toEqual({ name: 'refunds twice', file: 'checkout.test' });
    expect(report.tapes[0]!.undated).toBe(1);
    expect(report.failures).toEqual([
      expect.stringMatching(
        /^stale tape __tapes__\/checkout\.test\/refunds twice\.jsonl \(checkout\.test › refunds twice\): 1 of its 2 exchanges carries no recording date/,
      ),
    ]);
  });

  test('an exchange dated after today is warned of', () => {
    const file = tape('future.jsonl', [dated(recordedExchange({ ...chat, body: answer({}, 'stop') }), '2027-01-01')]);
    expect(reportTapes([file], { now: new Date('2026-12-01'), cwd: dir }).warnings).toEqual([
      'future.jsonl holds an exchange recorded on 2027-01-01, after 2026-12-01: a clock that was wrong when it was recorded, or a hand edit.',
    ]);
  });

  test('the same tapes and day give the same report, byte for byte', () => {
    const once = JSON.stringify(reportTapes([parallel, failures], { now: new Date('2026-12-01'), cwd: dir }));
    expect(JSON.stringify(reportTapes([parallel, failures], { now: new Date('2026-12-01'), cwd: dir }))).toBe(once);
  });

  test('a tape that is not valid is refused naming its file, line and field', () => {
    const file = join(dir, 'broken.jsonl');
    const line = JSON.parse(serializeTape(createHeader(defaultKeyRules()), [recordedExchange({ ...chat, body: '{}' })]).split('\n')[1]!);
    line.recordedAt = '2026-13-01';
    writeFileSync(file, `${serializeTape(createHeader(defaultKeyRules()), []).trim()}\n${JSON.stringify(line)}\n`);
    expect(() => reportTapes([file], { cwd: dir })).toThrow(/broken\.jsonl:2: .*\.recordedAt/);
  });
});

describe('usd', () => {
  test('keeps two significant digits under a cent, four places up to $100, cents above', () => {
    expect([0, 0.000027, 0.0000876, 0.0013, 0.001, 0.5, 12.3456, 1234.5, 1e-9].map(usd)).toEqual([
      '$0',
      '$0.000027',
      '$0.000088',
      '$0.0013',
      '$0.0010',
      '$0.5000',
      '$12.3456',
      '$1234.50',
      '$0.0000000010',
    ]);
  });
});
