import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { CLI, runMain } from '../support/cli.js';
import { writeChatSuite, writeChatTape } from '../support/chat-tape.js';
import { tempDir } from '../support/temp-dir.js';

// `modeltape ARGS…` in a fresh process that reports its own peak RSS (the mutants' proxies run in
// it; their suites are other processes).
function peakRss(args: string[], cwd: string): Promise<{ code: number; peakMb: number; stderr: string }> {
  const script = `const { main } = await import(${JSON.stringify(CLI)});
const code = await main(${JSON.stringify(args)}, { stdout: { write: () => true }, stderr: process.stderr, env: { ...process.env, CI: '' } });
process.stdout.write(JSON.stringify({ code, peakMb: process.resourceUsage().maxRSS / 1024 }));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd, env: { PATH: process.env.PATH ?? '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', () => {
      try {
        resolve({ ...(JSON.parse(stdout) as { code: number; peakMb: number }), stderr });
      } catch {
        reject(new Error(`modeltape ${args.join(' ')} reported nothing:\n${stderr}`));
      }
    });
  });
}

describe('modeltape mutate on its copies of a tape', () => {
  const dir = tempDir();

  test("each mutant's copy is the tape byte for byte but the one line it changes", async () => {
    const tape = `${dir}/parcels.jsonl`;
    // Lines a writer would not make, which a copy must keep as they are: CRLF endings, and a
    // trailing blank line.
    writeChatTape(tape, 30, (index, line) => (index % 7 === 3 ? line.replace(/\n$/, '\r\n') : line));
    const original = Buffer.concat([readFileSync(tape), Buffer.from('\n')]);
    writeFileSync(tape, original);
    const copies = `${dir}/copies`;
    mkdirSync(copies);
    writeChatSuite(`${dir}/suite.mjs`, [2, 10, 24], copies);
    const result = await runMain(['mutate', '--tape', 'parcels.jsonl', '--max', '6', '--json', '--', process.execPath, 'suite.mjs'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { mutants: Array<{ line: number }> };
    expect(report.mutants.length).toBeGreaterThan(3);
    const kept = readdirSync(copies);
    expect(kept).toHaveLength(report.mutants.length);

    const originalLines = original.toString('latin1').split('\n');
    const changedLines: number[] = [];
    for (const name of kept) {
      const lines = readFileSync(`${copies}/${name}`).toString('latin1').split('\n');
      expect(lines).toHaveLength(originalLines.length);
      const changed = lines.flatMap((line, index) => (line === originalLines[index] ? [] : [index + 1]));
      expect(changed).toHaveLength(1);
      changedLines.push(changed[0]!);
      // The changed line is still the same recording: its key and ordinal lead it.
      expect(lines[changed[0]! - 1]!.slice(0, 90)).toBe(originalLines[changed[0]! - 1]!.slice(0, 90));
    }
    expect(changedLines.sort((a, b) => a - b)).toEqual(report.mutants.map((mutant) => mutant.line).sort((a, b) => a - b));
    // The tape itself was never written.
    expect(readFileSync(tape)).toEqual(original);
  });

  test('its peak memory is about one replay of the tape, not the tape held several times', { timeout: 180_000 }, async () => {
    const tape = `${dir}/large.jsonl`;
    writeChatTape(tape, 60_000);
    const tapeMb = statSync(tape).size / 1024 / 1024;
    writeChatSuite(`${dir}/suite.mjs`, [0, 30_001, 59_998]);
    const suite = ['--', process.execPath, 'suite.mjs'];
    const run = await peakRss(['run', '--tape', 'large.jsonl', ...suite], dir);
    expect(run.code, run.stderr).toBe(0);
    const mutate = await peakRss(['mutate', '--tape', 'large.jsonl', '--jobs', '1', '--max', '1', '--operators', 'text-emptied', ...suite], dir);
    expect(mutate.code, mutate.stderr).toBe(0);
    // One replay at a time (the baseline's, then the mutant's), with what the one before left for
    // the collector still counted: under two replays' worth, however lazily a Node version
    // collects (Node 24 was seen at run + 2.5 × the tape). Copies made in memory held the tape
    // several times over: 1,146 MB for a tape of 50,000 exchanges, against 623 MB streamed.
    expect(mutate.peakMb, `a ${tapeMb.toFixed(0)} MB tape: run ${run.peakMb.toFixed(0)} MB, mutate ${mutate.peakMb.toFixed(0)} MB`).toBeLessThan(
      2 * run.peakMb,
    );
  });
});
