import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadTape, serializeLine, type Exchange } from 'modeltape/recordings';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runMain, type CliResult } from '../support/cli.js';
import { fakeOpenAiKey } from '../support/fake-keys.js';
import { RECHECK_KEYS, lastUserMessage, recordRequests, type TapeRequest } from '../support/recheck-tapes.js';
import { startStandInUpstream, type StandInReply, type StandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

// A stand-in answers Chat Completions from a script that is switched from `then` (what the tape
// records) to `now` (what the recheck hears). Its Date header is fixed, so the same answers are the
// same bytes: what --write writes is then a function of its inputs alone.

const TOOL = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
const chat = (content: string, extra: Record<string, unknown> = {}): TapeRequest => ({
  upstream: 'openai',
  path: '/v1/chat/completions',
  body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content }], ...extra },
});
const REQUESTS: TapeRequest[] = [
  chat('Say hello'),
  chat('Weather in Paris?', { tools: [TOOL] }),
  chat('Weather in Oslo?', { tools: [TOOL] }),
  chat('Repeat the key'),
  chat('Count to three', { stream: true }),
  chat('Say goodbye'),
];
// What the stand-in says: text, or a call of get_weather; `then` and `now`.
const SCRIPT: Record<string, { then: string | { city: string }; now: string | { city: string } }> = {
  'Say hello': { then: 'Hello there.', now: 'Hi there!' },
  'Weather in Paris?': { then: { city: 'Paris' }, now: { city: 'Lyon' } },
  'Weather in Oslo?': { then: { city: 'Oslo' }, now: 'I cannot check the weather.' },
  // Today's answer carries a string shaped like a key: it must never reach the refreshed tape.
  'Repeat the key': { then: 'I will not.', now: `Sure: ${fakeOpenAiKey('LEAKEDLEAKEDLEAKEDLEAKEDLEAKED0000')}` },
  'Count to three': { then: '1 2 3', now: '1, 2, 3' },
  'Say goodbye': { then: 'Goodbye.', now: 'Goodbye.' },
};
const DATE = { date: 'Tue, 01 Dec 2026 00:00:00 GMT' };
const PINNED = '1767225600'; // 2026-01-01

function answer(said: string | { city: string }, model: string): Record<string, unknown> {
  const message =
    typeof said === 'string'
      ? { role: 'assistant', content: said, refusal: null }
      : {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: [{ id: 'call_standin_1', type: 'function', function: { name: 'get_weather', arguments: JSON.stringify(said) } }],
        };
  return {
    id: 'chatcmpl-standin',
    object: 'chat.completion',
    created: 1770000000,
    model,
    choices: [{ index: 0, message, finish_reason: typeof said === 'string' ? 'stop' : 'tool_calls', logprobs: null }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

function reply(when: 'then' | 'now'): (request: { body: string }) => StandInReply {
  return (request) => {
    const said = SCRIPT[lastUserMessage(request.body)]![when];
    const model = when === 'then' ? 'gpt-4o-mini-2024-07-18' : 'gpt-4o-mini-2025-01-31';
    if ((JSON.parse(request.body) as { stream?: boolean }).stream) {
      const words = (said as string).split(' ');
      const chunk = (delta: Record<string, unknown>, finish: string | null): string =>
        `data: ${JSON.stringify({ id: 'chatcmpl-standin', object: 'chat.completion.chunk', created: 1770000000, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      return {
        headers: DATE,
        frames: [
          chunk({ role: 'assistant', content: '' }, null),
          ...words.map((word, index) => chunk({ content: index === 0 ? word : ` ${word}` }, null)),
          chunk({}, 'stop'),
          'data: [DONE]\n\n',
        ],
      };
    }
    return { headers: DATE, body: JSON.stringify(answer(said, model)) };
  };
}

describe('modeltape recheck --write', () => {
  const dir = tempDir({ scope: 'file' });
  const tape = join(dir, 'tapes', 'weather.jsonl');
  const closers: Array<() => Promise<unknown>> = [];
  let now: StandInUpstream;
  let result: CliResult & { code: number };
  let original: string[];
  const env = { OPENAI_API_KEY: RECHECK_KEYS.openai, SOURCE_DATE_EPOCH: PINNED };
  const recheck = (extra: string[]): Promise<CliResult & { code: number }> =>
    runMain(['recheck', 'tapes/weather.jsonl', '--upstream', `openai=${now.url}`, ...extra], { cwd: dir, env });

  beforeAll(async () => {
    const then = await startStandInUpstream(reply('then'));
    closers.push(() => then.close());
    await recordRequests(tape, { openai: then.url }, REQUESTS);
    // An author's note on the first exchange, and an old recording date on every one: both kept or renewed.
    const lines = readFileSync(tape, 'utf8').split('\n');
    for (let index = 1; index < lines.length - 1; index++) {
      const exchange = JSON.parse(lines[index]!) as Exchange;
      exchange.recordedAt = '2025-03-01';
      if (index === 1) exchange._review = 'greeting, checked by hand';
      lines[index] = serializeLine(exchange).slice(0, -1);
    }
    writeFileSync(tape, lines.join('\n'));
    original = readFileSync(tape, 'utf8').split('\n');
    now = await startStandInUpstream(reply('now'));
    closers.push(() => now.close());
    result = await recheck(['--write', 'rechecked', '--accept', 'tapes/weather.jsonl:3', '--json', 'recheck.json']);
  }, 60_000);
  afterAll(async () => {
    for (const close of closers.splice(0)) await close();
  });

  test('refreshes identical and equivalent lines, takes the accepted one, keeps the rest byte for byte', () => {
    expect(result.stderr).toBe('modeltape: wrote recheck.json\n');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('modeltape recheck: 6 checked: 1 identical, 3 equivalent, 1 changed, 1 regression; 0 not checked.');
    expect(result.stdout).toContain('Wrote 1 tape to rechecked: 3 refreshed, 1 accepted, 2 kept as recorded.');
    expect(result.stdout).toContain('  Kept, not accepted: tapes/weather.jsonl:4 (regression)');
    expect(result.stdout).toContain('  Kept, refused: tapes/weather.jsonl:5: Refused to write the fresh answer to POST /v1/chat/completions (openai)');
    expect(result.stdout).toContain('  Review: git diff --no-index tapes rechecked');

    const written = readFileSync(join(dir, 'rechecked', 'weather.jsonl'), 'utf8').split('\n');
    expect(written).toHaveLength(original.length);
    expect(written[0]).toBe(original[0]);
    const parsed = (lines: string[]): Exchange[] => lines.slice(1, -1).map((line) => JSON.parse(line) as Exchange);
    const [before, after] = [parsed(original), parsed(written)];
    // Keys, ordinals, requests and order are the tape's; the answer and the date are today's.
    expect(after.map((exchange) => [exchange.key, exchange.ordinal])).toEqual(before.map((exchange) => [exchange.key, exchange.ordinal]));
    for (const index of [0, 1, 4, 5]) {
      expect(after[index]!.request).toEqual(before[index]!.request);
      expect(after[index]!.recordedAt).toBe('2026-01-01');
      // The answer's headers as a recording keeps them (the stand-in sends the same ones).
      expect(after[index]!.response.headers).toEqual(before[index]!.response.headers);
      expect(after[index]!.source).toBe('live');
      expect(JSON.stringify(after[index]!.response)).toContain('gpt-4o-mini-2025-01-31');
    }
    expect(after[0]!._review).toBe('greeting, checked by hand');
    expect(JSON.stringify(after[0]!.response.body)).toContain('Hi there!');
    expect(JSON.stringify(after[1]!.response.body)).toContain('Lyon');
    // The regression and the refused answer keep their recordings, byte for byte.
    expect(written[3]).toBe(original[3]);
    expect(written[4]).toBe(original[4]);
    // A refreshed stream keeps the recorded arrival times by position.
    const times = (exchange: Exchange): number[] => exchange.response.stream!.frames.map((frame) => frame.atMs);
    expect(after[4]!.response.stream!.frames.map((frame) => ('text' in frame ? frame.text : '')).join('')).toContain('"content":" 2,"');
    expect(times(after[4]!)).toEqual(times(before[4]!));
    // Each refreshed line is the line a recording writes: canonical, and the tape loads.
    for (const line of written.slice(1, -1)) expect(serializeLine(JSON.parse(line) as Exchange)).toBe(`${line}\n`);
    expect(loadTape(join(dir, 'rechecked', 'weather.jsonl')).exchanges).toHaveLength(6);
    // The tape itself is untouched, and nothing is left aside in DIR.
    expect(readFileSync(tape, 'utf8').split('\n')).toEqual(original);
    expect(readdirSync(join(dir, 'rechecked'))).toEqual(['weather.jsonl']);
  });

  test('--json lists what was written', () => {
    const report = JSON.parse(readFileSync(join(dir, 'recheck.json'), 'utf8')) as { written: Array<Record<string, unknown>> };
    expect(report.written).toHaveLength(1);
    expect(report.written[0]).toMatchObject({
      tape: join('tapes', 'weather.jsonl'),
      target: join('rechecked', 'weather.jsonl'),
      refreshed: 3,
      accepted: 1,
      kept: 2,
    });
  });

  test('no key, sent or answered, appears in any output', () => {
    const leaked = fakeOpenAiKey('LEAKEDLEAKEDLEAKEDLEAKEDLEAKED0000');
    const outputs = [
      result.stdout,
      result.stderr,
      readFileSync(join(dir, 'recheck.json'), 'utf8'),
      readFileSync(join(dir, 'rechecked', 'weather.jsonl'), 'utf8'),
    ];
    for (const output of outputs) {
      expect(output).not.toContain(RECHECK_KEYS.openai);
      expect(output).not.toContain(leaked);
    }
  });

  test('the same tapes, answers and date write the same bytes; --accept regression takes the regression too', async () => {
    const again = await recheck(['--write', 'again', '--accept', 'tapes/weather.jsonl:3']);
    expect(again.code).toBe(0);
    expect(readFileSync(join(dir, 'again', 'weather.jsonl'), 'utf8')).toBe(readFileSync(join(dir, 'rechecked', 'weather.jsonl'), 'utf8'));
    const both = await recheck(['--write', 'both', '--accept', 'changed', '--accept', 'regression']);
    expect(both.stdout).toContain('Wrote 1 tape to both: 3 refreshed, 2 accepted, 1 kept as recorded.');
    expect(readFileSync(join(dir, 'both', 'weather.jsonl'), 'utf8').split('\n')[3]).toContain('I cannot check the weather.');
  }, 30_000);

  test("refuses a tape's own folder, --accept without --write, and an --accept that names nothing it sends, before sending anything", async () => {
    const sent = now.received.length;
    const own = await recheck(['--write', 'tapes']);
    expect(own.code).toBe(2);
    expect(own.stderr).toContain('--write tapes is the folder of tapes/weather.jsonl: write the refreshed tapes elsewhere');
    const alone = await recheck(['--accept', 'changed']);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--accept says which fresh answers --write may take: add --write DIR');
    const line = await recheck(['--write', 'out', '--accept', 'tapes/weather.jsonl:1']);
    expect(line.code).toBe(2);
    expect(line.stderr).toContain('--accept tapes/weather.jsonl:1: line 1 of tapes/weather.jsonl is not an exchange this recheck sends again');
    const word = await recheck(['--write', 'out', '--accept', 'identical']);
    expect(word.code).toBe(2);
    expect(word.stderr).toContain('--accept "identical": give changed, regression, or one line of a tape as TAPE:LINE');
    expect(now.received.length).toBe(sent);
    expect(existsSync(join(dir, 'out'))).toBe(false);
  }, 30_000);
});
