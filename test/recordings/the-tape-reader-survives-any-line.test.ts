import fc from 'fast-check';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { readTape, serializeLine } from '../../recordings/internal.js';
import { ModeltapeError } from '../../core/internal.js';
import { ReplayEngine } from '../../lookup/internal.js';
import { runMain } from '../support/cli.js';
import { chatExchange } from '../support/exchanges.js';
import { HEADER_LINE, RULES } from '../support/tape-lines.js';
import { tempDir } from '../support/temp-dir.js';

const dir = tempDir({ scope: 'file' });

// What a hand edit, a bad disk, a bad merge or a hostile tape can do to one line.
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('deep' as const), depth: fc.constantFrom(513, 3000, 20_000), object: fc.boolean() }),
  fc.record({
    kind: fc.constant('number' as const),
    text: fc.constantFrom('1e400', '-1e400', '123456789012345678901234567890', '0.1e-400', '9007199254740993', '-0'),
  }),
  fc.record({ kind: fc.constant('unicode' as const), text: fc.constantFrom('\\ud800', '\\udfff\\ud800', '\u2028\u2029', '\u0000', '🎉\u200d', '\\u0000') }),
  fc.record({ kind: fc.constant('bom' as const) }),
  fc.record({ kind: fc.constant('crlf' as const) }),
  fc.record({ kind: fc.constant('duplicate' as const), member: fc.constantFrom('key', 'ordinal', 'request', 'response', 'body', 'json', 'content') }),
  fc.record({
    kind: fc.constant('type' as const),
    member: fc.constantFrom('key', 'ordinal', 'upstream', 'source', 'request', 'response', 'status', 'frames', 'body', 'query', 'headers'),
    value: fc.constantFrom('null', '1', '"x"', '[]', '{}', 'true', '-1', '1.5'),
  }),
  fc.record({ kind: fc.constant('keep' as const) }),
);

type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

const lineCase = fc.record({ content: fc.string({ maxLength: 40 }), streamed: fc.boolean(), mutation });

function mutate(line: string, m: Mutation): string {
  const body = line.slice(0, -1);
  switch (m.kind) {
    case 'truncate':
      return `${body.slice(0, m.at % body.length)}\n`;
    case 'flip': {
      const bytes = Buffer.from(body);
      bytes[m.at % bytes.length] = m.byte === 0x0a ? 0x20 : m.byte;
      return `${bytes.toString('latin1')}\n`;
    }
    case 'deep': {
      const open = m.object ? '{"a":'.repeat(m.depth) : '['.repeat(m.depth);
      const close = m.object ? '}'.repeat(m.depth) : ']'.repeat(m.depth);
      return `${body.replace(/"content":"/, () => `"content":${open}0${close},"was":"`)}\n`;
    }
    case 'number':
      return `${body.replace(/"ordinal":\d+/, `"ordinal":${m.text}`).replace('"status":200', `"status":${m.text}`)}\n`;
    case 'unicode':
      return `${body.replace('"content":"', `"content":"${m.text}`)}\n`;
    case 'bom':
      return `\uFEFF${line}`;
    case 'crlf':
      return `${body}\r\n`;
    case 'duplicate':
      return `${body.replace(`"${m.member}":`, `"${m.member}":null,"${m.member}":`)}\n`;
    case 'type':
      return `${body.replace(new RegExp(`"${m.member}":`), `"${m.member}":${m.value},"_was":`)}\n`;
    default:
      return line;
  }
}

test('no line makes readTape, replay, verify or inspect throw anything but a ModeltapeError; every problem names file:line; valid lines are kept', async () => {
  let checked = 0;
  let withProblems = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(lineCase, { minLength: 1, maxLength: 6 }), async (cases) => {
      const file = join(dir, `fuzz-${checked}.jsonl`);
      const valid = new Set<number>();
      let text = HEADER_LINE;
      cases.forEach(({ content, streamed, mutation: m }, index) => {
        const line = serializeLine(chatExchange(content, { streamed, ordinal: index }));
        const mutated = mutate(line, m);
        if (mutated === line) valid.add(index + 2);
        text += mutated;
      });
      writeFileSync(file, text);
      checked++;

      const contents = readTape(file);
      const lineCount = contents.lineCount;
      for (const problem of contents.problems) {
        expect(problem.file).toBe(file);
        expect(problem.line).toBeGreaterThanOrEqual(1);
        expect(problem.line).toBeLessThanOrEqual(lineCount);
        expect(problem.message.length).toBeGreaterThan(0);
      }
      for (const warning of contents.warnings) expect(warning.line).toBeGreaterThanOrEqual(1);
      const kept = new Set(contents.exchanges.map(({ line }) => line));
      for (const line of valid) expect(kept.has(line), `valid line ${line} kept`).toBe(true);
      if (contents.problems.length > 0) withProblems++;

      // Replay reads lazily: any line may only fail when used, and then as a ModeltapeError naming it.
      try {
        const { engine } = ReplayEngine.fromTape(file, { keyRules: RULES });
        for (const entry of engine.entries()) {
          try {
            void entry.exchange.response;
          } catch (error) {
            expect(error).toBeInstanceOf(ModeltapeError);
            expect((error as Error).message).toContain(`${file}:${entry.line}:`);
          }
        }
      } catch (error) {
        expect(error).toBeInstanceOf(ModeltapeError);
      }

      const verify = await runMain(['verify', file]);
      expect(verify.code === 0 || verify.code === 1).toBe(true);
      expect(`${verify.stdout}${verify.stderr}`).not.toMatch(/RangeError|Maximum call stack|TypeError|at .*\.js:\d+/);
      if (contents.problems.length > 0) expect(verify.code).toBe(1);
      for (const problemLine of verify.stdout.split('\n').slice(0, -2)) expect(problemLine.startsWith(`${file}:`)).toBe(true);

      const inspect = await runMain(['inspect', file]);
      expect(inspect.code === 0 || inspect.code === 1).toBe(true);
      expect(`${inspect.stdout}${inspect.stderr}`).not.toMatch(/RangeError|Maximum call stack|TypeError|at .*\.js:\d+/);
    }),
    { numRuns: 300, seed: 20261211, endOnFailure: true },
  );
  expect(checked).toBe(300);
  // A fuzz run that mutated nothing would prove nothing.
  expect(withProblems).toBeGreaterThan(60);
}, 60_000);
