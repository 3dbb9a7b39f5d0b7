import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { MAX_JSON_DEPTH, TapeWriter, captureRequest, loadTape, readTape, serializeLine, type Exchange } from 'modeltape/recordings';
import { ReplayEngine } from '../../lookup/internal.js';
import { runMain } from '../support/cli.js';
import { chatExchange } from '../support/exchanges.js';
import { RULES, lineWith, nestedText, writeTape } from '../support/tape-lines.js';
import { tempDir } from '../support/temp-dir.js';

const dir = tempDir();

// Where "<DEEP>" goes: a request body, a response body, a stream frame's JSON.
const PLACES: Array<{ name: string; exchange: () => Exchange; raw: (depth: number) => string; field: RegExp }> = [
  {
    name: 'request body',
    exchange: () => {
      const exchange = chatExchange('deep');
      (exchange.request.body as { json: Record<string, unknown> }).json.messages = '<DEEP>';
      return exchange;
    },
    raw: nestedText,
    field: /^\.request\.body\.json\.messages(\[0\]){511}/,
  },
  {
    name: 'response body',
    exchange: () => {
      const exchange = chatExchange('deep');
      (exchange.response.body as { json: Record<string, unknown> }).json.choices = '<DEEP>';
      return exchange;
    },
    raw: nestedText,
    field: /^\.response\.body\.json\.choices(\[0\]){511}/,
  },
  // JSON too deep for JSON.parse is kept as text: it is just as impossible to key or compare.
  {
    name: 'request body kept as text',
    exchange: () => {
      const exchange = chatExchange('deep');
      exchange.request.body = { text: '<DEEP>' };
      return exchange;
    },
    raw: (depth) => JSON.stringify(nestedText(depth)),
    field: /^\.request\.body\.text \(character 512\)$/,
  },
  {
    name: 'response body kept as text',
    exchange: () => {
      const exchange = chatExchange('deep');
      exchange.response.body = { text: '<DEEP>' };
      return exchange;
    },
    raw: (depth) => JSON.stringify(nestedText(depth)),
    field: /^\.response\.body\.text \(character 512\)$/,
  },
  {
    name: 'stream frame',
    exchange: () => {
      const exchange = chatExchange('deep', { streamed: true });
      (exchange.response.stream!.frames[0] as { text: string }).text = '<DEEP>';
      return exchange;
    },
    raw: (depth) => JSON.stringify(`data: ${nestedText(depth)}\n\n`),
    field: /^\.response\.stream\.frames\[0\]\.text \(character \d+\)$/,
  },
];

describe.each([3000, 100_000])('JSON nested %i levels deep', (depth) => {
  test.each(PLACES)(
    'in a $name: every reader names the line and the path, and every command ends with a message, not a RangeError',
    async ({ exchange, raw, field }) => {
      const good = serializeLine(chatExchange('fine'));
      const file = writeTape(join(dir, 'deep.jsonl'), [good, lineWith(exchange(), raw(depth)), serializeLine(chatExchange('also fine'))]);

      const contents = readTape(file);
      expect(contents.exchanges.map(({ line }) => line)).toEqual([2, 4]);
      expect(contents.problems).toHaveLength(1);
      expect(contents.problems[0]).toMatchObject({ file, line: 3 });
      expect(contents.problems[0]!.field).toMatch(field);
      expect(contents.problems[0]!.message).toContain(`nests deeper than ${MAX_JSON_DEPTH} levels of JSON`);

      const verify = await runMain(['verify', file]);
      expect(verify.code).toBe(1);
      expect(verify.stdout).toContain(`${file}:3: nests deeper than ${MAX_JSON_DEPTH} levels of JSON`);
      expect(verify.stdout).toContain(`${file}: 1 problem in 4 lines`);

      for (const command of [
        ['inspect', file],
        ['rekey', file],
      ]) {
        const result = await runMain(command);
        expect(result.code, command.join(' ')).toBe(1);
        expect(`${result.stdout}${result.stderr}`).toContain(`${file}:3: nests deeper than ${MAX_JSON_DEPTH} levels`);
        expect(`${result.stdout}${result.stderr}`).not.toMatch(/RangeError|call stack/);
      }

      // Replay (run, drift, openTape) reads lazily: the line is refused when it is first used,
      // the other lines answer.
      const { engine } = ReplayEngine.fromTape(file, { keyRules: RULES });
      expect(engine.size).toBe(3);
      const hit = engine.lookup(chatExchange('fine').key);
      expect(hit.kind).toBe('hit');
      let caught: unknown;
      try {
        for (const entry of engine.entries()) void entry.exchange;
      } catch (error) {
        caught = error;
      }
      expect((caught as Error).message).toContain(`${file}:3: nests deeper than ${MAX_JSON_DEPTH} levels`);
      expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(5);
    },
  );

  test('the writer refuses to record it (too_deep), and capture refuses a request body that deep', () => {
    const writer = TapeWriter.open(join(dir, 'write.jsonl'), { keyRules: RULES });
    try {
      for (const place of PLACES) {
        const exchange = JSON.parse(lineWith(place.exchange(), place.raw(Math.min(depth, 5000)))) as Exchange;
        expect(() => writer.append(exchange), place.name).toThrow(
          expect.objectContaining({ code: 'too_deep', message: expect.stringContaining(`nests deeper than ${MAX_JSON_DEPTH} levels`) }),
        );
      }
    } finally {
      writer.close();
    }
    expect(loadTape(join(dir, 'write.jsonl')).exchanges).toHaveLength(0);
    const body = Buffer.from(`{"messages":${nestedText(depth)}}`);
    expect(() =>
      captureRequest({ method: 'POST', path: '/v1/chat/completions', query: '', headers: { 'content-type': 'application/json' }, body }, RULES),
    ).toThrow(expect.objectContaining({ code: 'too_deep' }));
  });
});

test('JSON exactly as deep as the cap is written, read, verified and replayed', async () => {
  const exchange = chatExchange('at the cap');
  // The body is level 1, its "choices" member level 2: MAX_JSON_DEPTH - 1 more arrays reach the cap.
  (exchange.response.body as { json: Record<string, unknown> }).json.choices = JSON.parse(nestedText(MAX_JSON_DEPTH - 1));
  const file = join(dir, 'cap.jsonl');
  const writer = TapeWriter.open(file, { keyRules: RULES });
  writer.append(exchange);
  writer.close();
  const verify = await runMain(['verify', file]);
  expect(verify.stdout).toBe(`${file}: ok, 1 exchange\n`);
  const { engine } = ReplayEngine.fromTape(file, { keyRules: RULES });
  const hit = engine.lookup(exchange.key);
  expect(hit.kind === 'hit' && hit.entry.exchange.response.body).toEqual(exchange.response.body);
});
