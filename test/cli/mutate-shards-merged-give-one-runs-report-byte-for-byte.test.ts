import { readFileSync, writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, test } from 'vitest';
import { chatRequestBody, writeChatTape } from '../support/chat-tape.js';
import { runMain } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

// modeltape mutate over a CI matrix: each job runs `--shard I/N` (every shard lists the same
// mutants, and runs its own slice), and `--merge` puts their --json reports back together: the
// report one whole run prints, byte for byte, and its --min-score verdict. Reports that are not the
// shards of one run are refused, naming the file.

// A suite that reads three recorded answers: it checks the first one's text, the second one's
// finish reason, and nothing of the third, so some mutants are killed and some survive.
const SUITE = `const bodies = ${JSON.stringify([0, 1, 2].map(chatRequestBody))};
const answers = [];
for (const body of bodies) {
  const response = await fetch(\`\${process.env.OPENAI_BASE_URL}/chat/completions\`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer fake-test-key' },
    body: JSON.stringify(body),
  });
  answers.push(response.status === 200 ? await response.json() : undefined);
}
if (!answers[0]?.choices[0].message.content.startsWith('Order 0 left the depot at 09:00')) process.exit(1);
if (answers[1]?.choices[0].finish_reason !== 'stop') process.exit(1);
`;

const OPERATORS = ['--operators', 'text-negated,text-emptied,number-changed,finish-length,rate-limited', '--max', '8', '--seed', 'matrix'];

describe('modeltape mutate --shard and --merge', () => {
  const dir = tempDir({ scope: 'file' });
  const mutate = (args: string[]) =>
    runMain(['mutate', '--tape', 'chat.jsonl', '--jobs', '2', ...OPERATORS, ...args, '--', process.execPath, 'suite.mjs'], { cwd: dir });
  const merge = (args: string[]) => runMain(['mutate', '--merge', ...args], { cwd: dir });
  interface Report {
    score: number;
    counts: Record<string, number>;
    shard?: { index: number; count: number; mutants: number; list: string };
    mutants: Array<{ id: string; outcome: string }>;
  }
  let whole: { text: string; json: string; html: string };

  beforeAll(async () => {
    writeChatTape(`${dir}/chat.jsonl`, 4);
    writeFileSync(`${dir}/suite.mjs`, SUITE);
    const text = await mutate(['--html', 'whole.html']);
    expect(text.code, text.stderr).toBe(0);
    const json = await mutate(['--json']);
    expect(json.code, json.stderr).toBe(0);
    whole = { text: text.stdout, json: json.stdout, html: readFileSync(`${dir}/whole.html`, 'utf8') };
    // The three jobs of a matrix, each writing its report as a CI step would.
    for (const index of [1, 2, 3]) {
      const shard = await mutate(['--shard', `${index}/3`, '--json']);
      expect(shard.code, shard.stderr).toBe(0);
      writeFileSync(`${dir}/report-${index}.json`, shard.stdout);
    }
  }, 120_000);

  test('each mutant runs in exactly one shard, every shard listing the same run', () => {
    const report = JSON.parse(whole.json) as Report;
    // The run is worth splitting: 8 mutants, some killed and some survived.
    expect(report.mutants).toHaveLength(8);
    expect(report.counts.killed).toBeGreaterThan(0);
    expect(report.counts.survived).toBeGreaterThan(0);
    expect(report.shard).toBeUndefined();
    const shards = [1, 2, 3].map((index) => JSON.parse(readFileSync(`${dir}/report-${index}.json`, 'utf8')) as Report);
    expect(shards.map((shard) => shard.mutants.length)).toEqual([3, 3, 2]);
    expect(shards.map((shard) => shard.shard!.index)).toEqual([1, 2, 3]);
    expect(new Set(shards.map((shard) => shard.shard!.list)).size).toBe(1);
    expect(shards.every((shard) => shard.shard!.count === 3 && shard.shard!.mutants === 8)).toBe(true);
    // Every N-th mutant of the run's list, from the I-th, with the outcome the whole run gave it.
    expect(shards.map((shard) => shard.mutants.map((mutant) => mutant.id))).toEqual(
      [0, 1, 2].map((first) => report.mutants.filter((_, position) => position % 3 === first).map((mutant) => mutant.id)),
    );
    const outcomes = Object.fromEntries(report.mutants.map((mutant) => [mutant.id, mutant.outcome]));
    for (const shard of shards) for (const mutant of shard.mutants) expect(mutant.outcome, mutant.id).toBe(outcomes[mutant.id]);
  });

  test("the shards merged print the whole run's report byte for byte: the text, --json and --html, in any order", async () => {
    const text = await merge(['report-3.json', 'report-1.json', 'report-2.json', '--html', 'merged.html']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toBe(whole.text);
    expect(readFileSync(`${dir}/merged.html`, 'utf8')).toBe(whole.html);
    const json = await merge(['report-1.json', 'report-2.json', 'report-3.json', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toBe(whole.json);
    // A shard's own text says it is one.
    const shard = await mutate(['--shard', '3/3']);
    expect(shard.code, shard.stderr).toBe(0);
    expect(shard.stdout).toContain("shard 3/3: these 2 of the run's 8 mutants");
    expect(shard.stdout).not.toBe(whole.text);
  }, 60_000);

  test("a shard past the run's mutants has none: it runs the suite on the real tapes, and reports nothing to merge", async () => {
    const empty = await mutate(['--shard', '9/9', '--json']);
    expect(empty.code, empty.stderr).toBe(0);
    const report = JSON.parse(empty.stdout) as Report;
    expect(report.mutants).toEqual([]);
    expect(report.shard).toMatchObject({
      index: 9,
      count: 9,
      mutants: 8,
      list: (JSON.parse(readFileSync(`${dir}/report-1.json`, 'utf8')) as Report).shard!.list,
    });
    expect(empty.stderr).toContain("shard 9/9: 0 of the run's 8 mutants of 15 (seed matrix)");
  }, 30_000);

  test('--merge exits by --min-score as one run would', async () => {
    const { score } = JSON.parse(whole.json) as Report;
    expect(score).toBeGreaterThan(0);
    expect(score).toBeLessThan(100);
    const above = await merge(['report-1.json', 'report-2.json', 'report-3.json', '--min-score', String(score + 1)]);
    expect(above.code).toBe(1);
    expect(above.stderr).toContain(`the mutation score ${score}% is below --min-score ${score + 1}`);
    expect(above.stdout).toBe(whole.text);
    const at = await merge(['report-1.json', 'report-2.json', 'report-3.json', '--min-score', String(score)]);
    expect(at.code, at.stderr).toBe(0);
  });

  test('a shard missing, a shard twice, or shards of another N are refused', async () => {
    const missing = await merge(['report-1.json', 'report-3.json']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no report of shard 2/3 among report-1.json, report-3.json');
    const twice = await merge(['report-1.json', 'report-2.json', 'report-2.json', 'report-3.json']);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain('report-2.json and report-2.json are both shard 2/3');
    const four = JSON.parse(readFileSync(`${dir}/report-3.json`, 'utf8')) as Report;
    four.shard!.count = 4;
    writeFileSync(`${dir}/of-four.json`, JSON.stringify(four));
    const other = await merge(['report-1.json', 'report-2.json', 'of-four.json']);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('of-four.json is shard 3/4, and report-1.json is shard 1/3');
  });

  test('shards of another run are refused, naming the file: another --max, --seed, tape or command', async () => {
    // A real shard of another run: 5 mutants, not 8.
    const fewer = await mutate(['--shard', '2/3', '--json', '--max', '5']);
    expect(fewer.code, fewer.stderr).toBe(0);
    writeFileSync(`${dir}/fewer-2.json`, fewer.stdout);
    const list = await merge(['report-1.json', 'fewer-2.json', 'report-3.json']);
    expect(list.code).toBe(1);
    expect(list.stderr).toContain('fewer-2.json lists other mutants than report-1.json (5 of 15 possible, against 8 of 15');
    const edited = (name: string, change: (report: Record<string, unknown>) => void) => {
      const report = JSON.parse(readFileSync(`${dir}/report-2.json`, 'utf8')) as Record<string, unknown>;
      change(report);
      writeFileSync(`${dir}/${name}`, JSON.stringify(report, null, 2));
      return merge(['report-1.json', name, 'report-3.json']);
    };
    const seed = await edited('seed.json', (report) => (report.seed = 'other'));
    expect(seed.stderr).toContain('seed.json was run with --seed "other", and report-1.json with --seed "matrix"');
    const tapes = await edited('tapes.json', (report) => (report.tapes = ['other.jsonl']));
    expect(tapes.stderr).toContain('tapes.json mutated the tapes other.jsonl, and report-1.json chat.jsonl');
    const command = await edited('command.json', (report) => (report.command = ['npm', 'test']));
    expect(command.stderr).toContain('command.json ran `npm test`, and report-1.json');
    // The same list's digest with a mutant that is not the run's.
    const swapped = await edited('swapped.json', (report) => ((report.mutants as Array<{ line: number }>)[0]!.line = 9));
    expect(swapped.stderr).toContain('put together are not the list their .shard.list names');
    for (const result of [seed, tapes, command, swapped]) expect(result.code).toBe(1);
  }, 60_000);

  test('a report cut short, malformed, missing or of a whole run is a clear error naming the file', async () => {
    const text = readFileSync(`${dir}/report-2.json`, 'utf8');
    writeFileSync(`${dir}/cut.json`, text.slice(0, Math.floor(text.length / 2)));
    writeFileSync(`${dir}/empty.json`, '');
    writeFileSync(`${dir}/whole.json`, whole.json);
    const report = JSON.parse(text) as { mutants: Array<Record<string, unknown>>; counts: Record<string, number> };
    writeFileSync(
      `${dir}/outcome.json`,
      JSON.stringify({ ...report, mutants: report.mutants.map((mutant, index) => (index === 1 ? { ...mutant, outcome: 'maybe' } : mutant)) }),
    );
    const { killed: _killed, ...counts } = report.counts;
    writeFileSync(`${dir}/counts.json`, JSON.stringify({ ...report, counts }));
    const cases: Array<[string, string]> = [
      ['cut.json', "cut.json is not a shard's mutation report: its JSON does not parse ("],
      ['empty.json', "empty.json is not a shard's mutation report: it is empty"],
      ['whole.json', "whole.json is not a shard's mutation report: it is the report of a whole run (it has no .shard)"],
      [
        'outcome.json',
        'outcome.json is not a shard\'s mutation report: .mutants[1].outcome is "maybe", not one of killed, killed-by-replay, survived, timeout, not-reached',
      ],
      ['counts.json', 'counts.json is not a shard\'s mutation report: .counts["killed"] is undefined'],
      ['nowhere.json', 'could not read nowhere.json: there is no such file'],
    ];
    for (const [file, message] of cases) {
      const result = await merge(['report-1.json', file, 'report-3.json']);
      expect(result.code, file).toBe(1);
      expect(result.stderr, file).toContain(message);
      expect(result.stdout, file).toBe('');
    }
    expect((await merge(['report-1.json', 'cut.json', 'report-3.json'])).stderr).toContain('it is cut short');
  });

  test('usage errors: --merge with what only a run takes, no reports, a --shard out of range, --min-score on a shard', async () => {
    const cases: Array<[string[], string]> = [
      [
        ['mutate', '--merge', 'report-1.json', '--tape', 'chat.jsonl'],
        "modeltape mutate --merge runs nothing: it takes the shards' reports, --min-score, --json and --html, not --tape",
      ],
      [['mutate', '--merge', 'report-1.json', '--', 'node'], 'not a command after --'],
      [['mutate', '--merge'], "modeltape mutate --merge needs the shards' reports"],
      ...['0/3', '4/3', '1/0', '2', 'a/b'].map((shard): [string[], string] => [
        ['mutate', '--tape', 'chat.jsonl', '--shard', shard, '--', 'node'],
        `--shard needs I/N, shard I from 1 to N of N (--shard 2/4), got "${shard}"`,
      ]),
      [['mutate', '--tape', 'chat.jsonl', '--shard', '1/2', '--min-score', '80', '--', 'node'], '--min-score judges the whole run, not shard 1/2'],
    ];
    for (const [args, message] of cases) {
      const result = await runMain(args, { cwd: dir });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toContain(message);
    }
  });
});
