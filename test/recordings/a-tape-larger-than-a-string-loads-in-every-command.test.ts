import { closeSync, openSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { compileKeyRules, serializeLine, type Exchange } from 'modeltape/recordings';
import { pruneTape } from 'modeltape/proxy';
import { ReplayEngine } from '../../lookup/internal.js';
import { runMain } from '../support/cli.js';
import { chatExchange } from '../support/exchanges.js';
import { HEADER_LINE, RULES } from '../support/tape-lines.js';
import { tempDir } from '../support/temp-dir.js';

// Node cannot hold a string over 512 MiB (0x1fffffe8 characters): a tape larger than that used
// to be refused by every command. Building and reading 560 MiB takes about a minute on a busy
// 2-core machine, so this runs when asked: MODELTAPE_LARGE_TAPE=1 npx vitest run <this file>.
// The chunked reading it relies on is tested in every run with a few bytes a chunk
// (a-bom-crlf-or-a-duplicate-member-is-named-at-its-line.test.ts).
const LARGE = process.env.MODELTAPE_LARGE_TAPE === '1';
const LINES = 6;
const ANSWER_BYTES = 96 * 1024 * 1024;
const dir = LARGE ? tempDir() : '';

test.runIf(LARGE)(
  'a 560 MiB tape loads in replay, verify, inspect, report, rekey and prune',
  async () => {
    const file = join(dir, 'large.jsonl');
    const started = Date.now();
    const exchanges: Exchange[] = [];
    const descriptor = openSync(file, 'w');
    writeSync(descriptor, HEADER_LINE);
    for (let index = 0; index < LINES; index++) {
      const exchange = chatExchange(`question ${index}`, { answer: `answer ${index} `.padEnd(ANSWER_BYTES, 'lorem ipsum ') });
      exchanges.push(exchange);
      writeSync(descriptor, serializeLine(exchange));
    }
    closeSync(descriptor);
    const size = statSync(file).size;
    expect(size).toBeGreaterThan(512 * 1024 * 1024);
    process.stderr.write(`built a ${(size / 1024 / 1024).toFixed(0)} MiB tape in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);

    const timed = async <T>(name: string, run: () => Promise<T> | T): Promise<T> => {
      const at = Date.now();
      const result = await run();
      process.stderr.write(`  ${name}: ${((Date.now() - at) / 1000).toFixed(1)} s\n`);
      return result;
    };

    const { engine } = await timed('ReplayEngine.fromTape (run, drift, openTape)', () => ReplayEngine.fromTape(file, { keyRules: RULES }));
    expect(engine.size).toBe(LINES);
    const hit = engine.lookup(exchanges[2]!.key);
    expect(hit.kind === 'hit' && hit.entry.line).toBe(4);

    const verify = await timed('verify', () => runMain(['verify', file]));
    expect(verify.stdout).toBe(`${file}: ok, ${LINES} exchanges\n`);

    const inspect = await timed('inspect', () => runMain(['inspect', file]));
    expect(inspect.code).toBe(0);
    expect(inspect.stdout).toContain(`${file}: ${LINES} exchanges`);
    expect(inspect.stdout).toMatch(/POST \/v1\/chat\/completions\s+gpt-4o-mini\s+6\s+0\s+[\d.]+ B\s+576\.\d MB/);

    const report = await timed('report', () => runMain(['report', file, '--json']));
    expect(report.code, report.stderr).toBe(0);
    expect(JSON.parse(report.stdout).totals.exchanges).toBe(LINES);

    const config = join(dir, 'rekey.config.json');
    writeFileSync(config, JSON.stringify({ normalizers: [{ path: '.temperature' }] }));
    const rekey = await timed('rekey', () => runMain(['rekey', file, '--config', config]));
    expect(rekey.stdout).toContain(`${file}: rewritten`);
    expect(statSync(file).size).toBeGreaterThan(512 * 1024 * 1024);

    const pruned = await timed('prune', () => {
      const { engine: rekeyed } = ReplayEngine.fromTape(file, {
        keyRules: compileKeyRules({ headers: RULES.rules.headers, normalizers: [{ path: '.temperature' }] }),
      });
      for (const { key } of exchanges.slice(0, LINES - 1)) expect(rekeyed.lookup(key).kind).toBe('hit');
      return pruneTape(file, rekeyed);
    });
    expect(pruned).toBe(1);
    expect((await runMain(['verify', file])).stdout).toBe(`${file}: ok, ${LINES - 1} exchanges\n`);
  },
  600_000,
);
