import { describe, expect, test } from 'vitest';
import { recordedExchange } from '../mutation/operators/check-mutation.js';
import type { LoadedExchange } from '../recordings/internal.js';
import type { FreshResponse } from './fresh-response.js';
import { recheckExchanges, waitOf } from './recheck-exchanges.js';
import { selectExchanges } from './select-exchanges.js';

const completion = (text: string, status = 200): string =>
  status === 200
    ? JSON.stringify({
        model: 'gpt-4o-2024-08-06',
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1000, completion_tokens: 1000 },
      })
    : JSON.stringify({ error: { message: text } });
const turn = (prompt: string, options: { status?: number; path?: string; refusal?: boolean } = {}): LoadedExchange['exchange'] =>
  recordedExchange({
    upstream: 'openai',
    path: options.path ?? '/v1/chat/completions',
    request: { model: 'gpt-4o', messages: [{ role: 'user', content: prompt }] },
    status: options.status ?? 200,
    body: options.refusal
      ? JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: 'No.' }, finish_reason: 'stop' }] })
      : completion(`answer ${prompt}`, options.status ?? 200),
  });
const tape = (...exchanges: LoadedExchange['exchange'][]) => [
  { file: 't.jsonl', exchanges: exchanges.map((exchange, index) => ({ exchange, line: index + 2 })) },
];
const fresh = (text: string, status = 200, headers: Record<string, string> = {}): FreshResponse => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: Buffer.from(completion(text, status)),
});
const promptOf = (exchange: LoadedExchange['exchange']): string =>
  (exchange.request.body as { json: { messages: Array<{ content: string }> } }).json.messages[0]!.content;

describe('choosing what to send again', () => {
  test('model turns only; a recorded failure, refusal or error status only with includeFailures', () => {
    const exchanges = tape(turn('a'), turn('b', { status: 429 }), turn('c', { refusal: true }), turn('d', { path: '/v1/embeddings' }));
    const { selected, skipped } = selectExchanges(exchanges);
    expect(selected.map((entry) => entry.line)).toEqual([2]);
    expect(skipped.map((entry) => [entry.line, entry.reason])).toEqual([
      [3, 'its recorded answer was status 429 (add --include-failures to send it again)'],
      [4, 'its recorded answer was a refusal (add --include-failures to send it again)'],
      [5, 'not a model turn (POST /v1/embeddings)'],
    ]);
    expect(selectExchanges(exchanges, { includeFailures: true }).selected.map((entry) => entry.line)).toEqual([2, 3, 4]);
  });

  test('a sample is the same for the same seed, in tape order', () => {
    const exchanges = tape(...'abcdefghij'.split('').map((prompt) => turn(prompt)));
    const lines = (seed: string) => selectExchanges(exchanges, { sample: 3, seed }).selected.map((entry) => entry.line);
    expect(lines('x')).toEqual(lines('x'));
    expect(lines('x')).toHaveLength(3);
    expect([...lines('x')].sort((left, right) => left - right)).toEqual(lines('x'));
    expect(new Set(['a', 'b', 'c', 'd'].map((seed) => lines(seed).join())).size).toBeGreaterThan(1);
  });
});

describe('the engine', () => {
  test('waits as a 429 asks, then checks; what cannot be sent is listed, not lost', async () => {
    const { selected, skipped } = selectExchanges(tape(turn('a'), turn('b'), turn('c')));
    const waits: number[] = [];
    let limited = 0;
    const report = await recheckExchanges(selected, skipped, {
      sleep: async (ms) => {
        waits.push(ms);
      },
      send: async (exchange) => {
        const prompt = promptOf(exchange);
        if (prompt === 'a' && limited++ < 2) return fresh('slow down', 429, { 'retry-after': '2' });
        if (prompt === 'c') throw new Error('connect ECONNREFUSED 127.0.0.1:9');
        return fresh(prompt === 'b' ? 'another answer' : `answer ${prompt}`);
      },
    });
    expect(waits).toEqual([2000, 2000]);
    expect(report.checked.map((entry) => [entry.line, entry.verdict, entry.tries])).toEqual([
      [2, 'identical', 3],
      [3, 'equivalent', 1],
    ]);
    expect(report.notChecked).toEqual([{ tape: 't.jsonl', line: 4, reason: 'could not be sent: connect ECONNREFUSED 127.0.0.1:9' }]);
    // gpt-4o: 1000 tokens in at $2.50/M, 1000 out at $10/M, twice.
    expect(report.spent.usd).toBeCloseTo(0.025, 10);
  });

  test('a dry run estimates and sends nothing', async () => {
    const { selected, skipped } = selectExchanges(tape(turn('a'), turn('b')));
    const report = await recheckExchanges(selected, skipped, {
      dryRun: true,
      send: () => {
        throw new Error('a dry run sent a request');
      },
    });
    expect(report.planned.map((entry) => [entry.line, entry.model, entry.estimatedUsd])).toEqual([
      [2, 'gpt-4o', 0.0125],
      [3, 'gpt-4o', 0.0125],
    ]);
    expect(report.estimatedUsd).toBeCloseTo(0.025, 10);
  });

  test('retry-after as seconds or an HTTP date, retry-after-ms first, else a doubling backoff', () => {
    expect(waitOf({ 'retry-after-ms': '250', 'retry-after': '9' }, 1)).toBe(250);
    expect(waitOf({ 'retry-after': '3' }, 1)).toBe(3000);
    expect(waitOf({ 'retry-after': 'Wed, 21 Oct 2026 07:28:05 GMT' }, 1, () => Date.parse('Wed, 21 Oct 2026 07:28:00 GMT'))).toBe(5000);
    expect([1, 2, 3, 10].map((tried) => waitOf({}, tried))).toEqual([1000, 2000, 4000, 30_000]);
  });
});
