import { copyFileSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { ModeltapeError, mutateSuite, SuiteFailsOnTapesError, type MutantResult } from 'modeltape/testkit';
import { fakeOpenAiKey } from '../support/fake-keys.js';
import { tempDir } from '../support/temp-dir.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SUITE = [process.execPath, '--test', 'examples/weather.test.mjs'];

// mutateSuite, what `modeltape mutate` runs, from code: the example suite against the example tape.
describe('mutateSuite', () => {
  const dir = tempDir();

  test('reports each mutant as it ends and returns the report; the tape is left as it was', async () => {
    const tape = `${dir}/weather.jsonl`;
    copyFileSync(`${ROOT}/examples/tapes/weather.jsonl`, tape);
    const before = readFileSync(tape);
    const seen: Array<[string, number, number]> = [];
    const logged: string[] = [];
    const report = await mutateSuite({
      tapes: [tape],
      command: SUITE,
      cwd: ROOT,
      operators: ['text-emptied', 'finish-length', 'rate-limited'],
      onMutant: (result: MutantResult, done, total) => seen.push([result.outcome, done, total]),
      log: (message) => logged.push(message),
    });
    // Two used exchanges, three operators each (the tool-call answer has no text to empty).
    expect(report.mutants.map((mutant) => `${mutant.line} ${mutant.operator} ${mutant.outcome}`)).toEqual([
      '2 finish-length survived',
      '2 rate-limited killed',
      '3 text-emptied killed',
      '3 finish-length survived',
      '3 rate-limited killed',
    ]);
    expect(report.score).toBe(60);
    expect(seen.map(([, done, total]) => `${done}/${total}`)).toEqual(['1/5', '2/5', '3/5', '4/5', '5/5']);
    expect(logged.join('\n')).toMatch(/the suite passed on the real tapes in [\d.]+ s; 5 mutants of 5 \(seed 1\)/);
    expect(readFileSync(tape)).toEqual(before);
  }, 60_000);

  test('refuses a suite that fails on the real tapes, with what it printed; an abort stops every mutant and rejects', async () => {
    const key = fakeOpenAiKey();
    const failing = mutateSuite({
      tapes: [`${ROOT}/examples/tapes/weather.jsonl`],
      command: [process.execPath, '-e', 'console.log("boom", process.env.LEAKY); process.exit(4)'],
      cwd: ROOT,
      env: { ...process.env, LEAKY: key },
    });
    await expect(failing).rejects.toThrow(SuiteFailsOnTapesError);
    await expect(failing).rejects.toMatchObject({ code: 'suite_fails_on_tapes', output: expect.stringContaining('boom') });
    // What the command printed is masked, as every message is.
    await expect(failing).rejects.toMatchObject({ output: expect.not.stringContaining(key) });
    await expect(failing).rejects.toMatchObject({ output: expect.stringMatching(/boom \[openai-key/) });

    const aborting = new AbortController();
    const stopped = mutateSuite({
      tapes: [`${ROOT}/examples/tapes/weather.jsonl`],
      command: SUITE,
      cwd: ROOT,
      jobs: 1,
      onMutant: () => aborting.abort(new ModeltapeError('mutate_stopped', 'stopped by the test')),
      signal: aborting.signal,
    });
    await expect(stopped).rejects.toThrow('stopped by the test');
  }, 60_000);
});
