import { describe, expect, test } from 'vitest';
import { mergeMutationReports, mutantsOfShard, readShardReport, ShardMergeError, type ShardReport } from './mutant-shards.js';
import { buildMutationReport, mutantListDigest, type MutantResult, type MutationReport } from './mutation-report.js';

const RUN = { command: ['npm', 'test'], seed: '1', tapes: ['tapes/a.jsonl'], candidates: 9, unusedExchanges: 1, unmutable: 0 };
const mutant = (position: number): MutantResult => ({
  id: `m${position + 1}`,
  tape: 'tapes/a.jsonl',
  line: 2 + position,
  endpoint: 'POST /v1/chat/completions (openai)',
  operator: 'text-emptied',
  variant: '',
  description: 'text emptied',
  before: `answer ${position}`,
  after: '',
  outcome: position % 2 === 0 ? 'killed' : 'survived',
  detail: '',
});

// The shards of a run of `total` mutants as mutateSuite writes them, and the whole run's report.
function shardsOf(total: number, count: number): { whole: MutationReport; shards: ShardReport[] } {
  const all = Array.from({ length: total }, (_, position) => mutant(position));
  const whole = buildMutationReport({ ...RUN, mutants: all });
  const list = mutantListDigest(whole.mutants);
  const shards = Array.from({ length: count }, (_, index) => {
    const shard = { index: index + 1, count, mutants: total, list };
    const { command, seed, tapes, ...counted } = RUN;
    return buildMutationReport({ command, seed, tapes, shard, ...counted, mutants: mutantsOfShard(all, shard) }) as ShardReport;
  });
  return { whole, shards };
}

describe('mutant shards', () => {
  test('every mutant is in exactly one shard, and shards differ by at most one mutant', () => {
    let checked = 0;
    for (let total = 0; total <= 9; total++)
      for (let count = 1; count <= 4; count++) {
        const all = Array.from({ length: total }, (_, position) => position);
        const shards = Array.from({ length: count }, (_, index) => mutantsOfShard(all, { index: index + 1, count }));
        expect(shards.flat().sort((a, b) => a - b)).toEqual(all);
        const sizes = shards.map((shard) => shard.length);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        checked++;
      }
    expect(checked).toBe(40);
  });

  test('a report read back is the report written, and shards merged are the whole run, an empty shard among them', () => {
    const { whole, shards } = shardsOf(2, 3);
    expect(shards.map((shard) => shard.mutants.length)).toEqual([1, 1, 0]);
    const read = shards.map((shard, index) => ({ file: `r${index + 1}.json`, report: readShardReport(`r${index + 1}.json`, JSON.stringify(shard, null, 2)) }));
    read.forEach((entry, index) => expect(JSON.stringify(entry.report)).toBe(JSON.stringify(shards[index])));
    expect(JSON.stringify(mergeMutationReports([read[2]!, read[0]!, read[1]!]), null, 2)).toBe(JSON.stringify(whole, null, 2));
  });

  test('a shard holding more or fewer mutants than its place in the run is refused, naming it', () => {
    const { shards } = shardsOf(5, 2);
    const short = { ...shards[1]!, mutants: shards[1]!.mutants.slice(1) };
    const merging = () =>
      mergeMutationReports([
        { file: 'a.json', report: shards[0]! },
        { file: 'b.json', report: short },
      ]);
    expect(merging).toThrow(ShardMergeError);
    expect(merging).toThrow('b.json holds 1 mutant, where shard 2/2 of a 5-mutant run holds 2');
  });
});
