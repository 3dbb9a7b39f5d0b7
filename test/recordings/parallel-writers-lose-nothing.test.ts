import { fork } from 'node:child_process';
import { readFileSync, statSync, truncateSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { loadTape, serializeLine, TapeWriter, compileKeyRules, type Exchange } from 'modeltape/recordings';
import { tempDir } from '../support/temp-dir.js';

const WORKER = new URL('../support/append-worker.mjs', import.meta.url);

function runWorker(tape: string, worker: number, count: number, bodyBytes: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = fork(WORKER, [tape, String(worker), String(count), String(bodyBytes)], { stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code) => resolve(code));
  });
}

describe('recording into one tape', () => {
  const dir = tempDir();

  test('several processes appending at once lose nothing and tear nothing', async () => {
    const tape = `${dir}/parallel.jsonl`;
    const workers = 4;
    const perWorker = 150;
    // 96 KB lines: well past the pipe-buffer size, where interleaved writes would show.
    const codes = await Promise.all(Array.from({ length: workers }, (_, worker) => runWorker(tape, worker, perWorker, 96 * 1024)));
    expect(codes).toEqual([0, 0, 0, 0]);

    const contents = loadTape(tape);
    expect(contents.warnings).toEqual([]);
    expect(contents.lineCount).toBe(1 + workers * perWorker);
    expect(contents.exchanges).toHaveLength(workers * perWorker);
    for (let worker = 0; worker < workers; worker++) {
      const indexes = contents.exchanges
        .map(({ exchange }) => exchange.response.body as { json: { worker: number; index: number } })
        .filter((body) => body.json.worker === worker)
        .map((body) => body.json.index);
      // Each writer's lines arrive whole and in its own order.
      expect(indexes).toEqual(Array.from({ length: perWorker }, (_, index) => index));
    }
    // Exactly one header, on line 1.
    expect(
      readFileSync(tape, 'utf8')
        .split('\n')
        .filter((line) => line.includes('"schemaVersion"')),
    ).toHaveLength(1);
  });

  test('a writer killed with SIGKILL mid-recording leaves every whole line readable', async () => {
    const tape = `${dir}/killed.jsonl`;
    const child = fork(WORKER, [tape, '0', '100000', String(4 * 1024 * 1024)], { stdio: 'inherit' });
    await new Promise<void>((resolve) => child.once('message', () => resolve()));
    // Let it get several 4 MB lines in, then kill it wherever it is, a write possibly half done.
    while (statSync(tape).size < 24 * 1024 * 1024) await new Promise((resolve) => setTimeout(resolve, 5));
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));

    const text = readFileSync(tape, 'utf8');
    const wholeLines = text.split('\n').length - 1;
    const contents = loadTape(tape);
    expect(contents.exchanges.length).toBe(wholeLines - 1);
    expect(contents.exchanges.length).toBeGreaterThanOrEqual(5);
    if (text.endsWith('\n')) expect(contents.warnings).toEqual([]);
    else expect(contents.warnings.map((warning) => warning.line)).toEqual([wholeLines + 1]);
  });

  test('a torn last line loads with a warning naming it, and the next writer continues on a fresh line', async () => {
    const tape = `${dir}/torn.jsonl`;
    await runWorker(tape, 0, 3, 100);
    // Cut the last exchange line in half, as a kill in the middle of its write would.
    const size = statSync(tape).size;
    const lastLineLength = readFileSync(tape, 'utf8').trimEnd().split('\n').pop()!.length + 1;
    truncateSync(tape, size - Math.floor(lastLineLength / 2));

    const torn = loadTape(tape);
    expect(torn.exchanges).toHaveLength(2);
    expect(torn.warnings).toHaveLength(1);
    expect(torn.warnings[0]!.line).toBe(4);
    expect(torn.warnings[0]!.message).toMatch(/line 4 is torn .*cut off mid-write.*skipped; every other line was kept/);

    const writer = TapeWriter.open(tape, { keyRules: compileKeyRules() });
    const again: Exchange = { ...torn.exchanges[0]!.exchange, ordinal: 1 };
    writer.append(again);
    writer.close();
    const continued = loadTape(tape);
    expect(continued.exchanges.map(({ line }) => line)).toEqual([2, 3, 5]);
    expect(continued.warnings.map((warning) => warning.line)).toEqual([4]);
    expect(readFileSync(tape, 'utf8').endsWith(`\n${serializeLine(again)}`)).toBe(true);
  });
});
